// The experiment file's workloads list; see workload_entries.h.
#include "sim/workload_entries.h"

#include "workloads/cli/command_line.h"

namespace warmsched::sim {

config::config_node resolve_workload_entry(const workload_entry& entry, unsigned cpus,
                                           const scheduler::cgroup_tree& groups, std::uint64_t* tasks) {
    const auto wc =
        workloads::parse_command_line(workloads::split_command_line(entry.command), cpus, entry.params);
    if (tasks) *tasks = wc.w->tasks_needed();
    for (const auto& [path, where] : wc.w->cgroups_named())
        if (!groups.find(path))
            throw workloads::usage_error(where + ": taskgroup \"" + path +
                                         "\" is not a group of this experiment (define it under cgroups: or "
                                         "with cgroup_generator:)");
    if (wc.params.resolved().empty() && entry.cgroup.empty())
        return config::config_node::make_scalar(entry.command, {});
    config::config_node map = config::config_node::make_map({});
    map.set("command", config::config_node::make_scalar(entry.command, {}));
    if (!entry.cgroup.empty()) map.set("cgroup", config::config_node::make_scalar(entry.cgroup, {}));
    for (const auto& [key, value] : wc.params.resolved())
        map.set(key, config::config_node::make_scalar(value, {}));
    return map;
}

std::optional<workload_entry> read_workload_entry(const config::config_node& item, const std::string& path,
                                                  config::error_list& errors) {
    workload_entry e;
    e.where = item.where();
    if (item.is_scalar()) {
        e.command = item.scalar();
        return e;
    }
    if (!item.is_map()) {
        errors.add(item.where(), path,
                   item.is_null() ? "an empty entry (a '-' with nothing after it): give a command line or a "
                                    "{command: ...} map"
                                  : "expected a command line or a {command: ...} map");
        return std::nullopt;
    }
    bool ok = true;
    for (const auto& kv : item.entries()) {
        if (!kv.value.is_scalar()) {
            errors.add(kv.value.where(), path + "." + kv.key, "expected a plain value");
            ok = false;
        } else if (kv.key == "command") {
            e.command = kv.value.scalar();
        } else if (kv.key == "cgroup") {
            e.cgroup = kv.value.scalar() == "/" ? "" : kv.value.scalar();
            if (kv.value.scalar().empty() || kv.value.scalar()[0] != '/') {
                errors.add(kv.value.where(), path + ".cgroup",
                           "expected a group path such as /tenant0 (/ for the root), got '" +
                               kv.value.scalar() + "'");
                e.cgroup
                    .clear(); // the entry is kept: the run does not start, and "nothing to run" is not said
            }
        } else {
            e.params.set(kv.key, kv.value.scalar());
        }
    }
    if (!ok) return std::nullopt;
    if (e.command.empty()) {
        errors.add(item.where(), path + ".command", "missing: the workload's command line");
        return std::nullopt;
    }
    return e;
}

std::vector<workload_entry> read_workload_entries(const config::config_node& list,
                                                  const std::string& key_path, unsigned cpus,
                                                  config::error_list& errors, config::config_node& resolved,
                                                  const scheduler::cgroup_tree& groups, std::uint64_t* tasks) {
    std::vector<workload_entry> out;
    std::vector<const config::config_node*> items;
    if (list.is_sequence()) {
        for (const auto& item : list.items()) items.push_back(&item);
    } else if (list.is_scalar()) {
        items.push_back(&list);
    } else {
        errors.add(list.where(), key_path, "expected a list of command lines or {command: ...} maps");
        return out;
    }
    config::config_node seq = config::config_node::make_sequence({});
    for (std::size_t i = 0; i < items.size(); ++i) {
        const config::config_node& item = *items[i];
        const std::string path = key_path + "." + std::to_string(i);
        std::optional<workload_entry> e = read_workload_entry(item, path, errors);
        if (!e) continue;
        if (!e->cgroup.empty() && !groups.find(e->cgroup)) {
            const auto* c = item.is_map() ? item.find_entry("cgroup") : nullptr;
            errors.add(c ? c->value.where() : item.where(), path + ".cgroup",
                       "no group " + e->cgroup +
                           " in this experiment (define it under cgroups: or with "
                           "cgroup_generator:)");
        }
        try {
            std::uint64_t n = 0;
            seq.push_back(resolve_workload_entry(*e, cpus, groups, &n));
            if (tasks) *tasks += n;
        } catch (const workloads::usage_error& u) {
            const std::string what = u.what();
            errors.add(item.where(), key_path,
                       "workload " + std::to_string(i) + ": " + what.substr(0, what.find('\n')));
        }
        out.push_back(
            std::move(*e)); // a bad one too: the run does not start, and "nothing to run" is not said
    }
    resolved.set("workloads", std::move(seq));
    return out;
}

} // namespace warmsched::sim
