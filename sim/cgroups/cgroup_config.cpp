// The experiment's cgroup hierarchy; see cgroup_config.h.
#include "sim/cgroups/cgroup_config.h"

#include "scheduler/fair/weights.h"
#include "workloads/cli/option_parser.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

namespace warmsched::sim {

namespace {

using config::config_node;
using scheduler::cgroup_spec;
using scheduler::cgroup_tree;
using scheduler::group_id;

constexpr long long min_period_us = 1'000, max_period_us = 1'000'000, min_quota_us = 1'000;
constexpr long long max_runtime_us = (1ll << 44) - 1; // the kernel's max_cfs_runtime (MAX_BW), in us
constexpr std::size_t max_groups = 65'536;
constexpr std::size_t max_levels = 16;
constexpr long long max_fanout = 1'000;

// The kernel's limits on a group's name and path (mkdir in cgroupfs): a name is one directory entry of
// at most NAME_MAX bytes (ENAMETOOLONG), and the path below the mount point /sys/fs/cgroup must fit in
// PATH_MAX with it.
constexpr std::size_t name_max = 255;
constexpr std::size_t path_max = 4096 - 1 - std::char_traits<char>::length("/sys/fs/cgroup");

// Files cgroupfs has in every non-root group of the model's hierarchy (cgroup v2 with the cpu
// controller and PSI): a group of one of these names is mkdir's EEXIST.
bool is_interface_file(const std::string& name) {
    static const char* const files[] = {"cpu.stat", "cpu.stat.local", "cpu.weight", "cpu.weight.nice", "cpu.idle",
                                        "cpu.max", "cpu.max.burst", "cpu.uclamp.min", "cpu.uclamp.max",
                                        "cpu.pressure", "io.pressure", "memory.pressure", "irq.pressure"};
    return std::any_of(std::begin(files), std::end(files), [&](const char* f) { return name == f; });
}

// A cgroup directory name: what mkdir in cgroupfs accepts, restricted to a portable set.
std::string name_problem(const std::string& name) {
    if (name.empty()) return "an empty path component";
    if (name == "." || name == "..") return "'" + name + "' is not a group name";
    if (name.size() > name_max)
        return "a group name of " + std::to_string(name.size()) + " bytes; the kernel's limit is NAME_MAX, " +
               std::to_string(name_max) + " (mkdir fails with ENAMETOOLONG)";
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '@' ||
              c == ':' || c == '+'))
            return "group name '" + name + "' has a '" + std::string(1, c) +
                   "' (allowed: letters, digits, _ - . @ : +)";
    // The core interface files (cgroup.procs, cgroup.threads, ...) all begin with "cgroup.", a prefix
    // cgroup-v2.rst reserves for them; newer kernels add more.
    if (name.rfind("cgroup.", 0) == 0)
        return "'" + name + "' begins with 'cgroup.', the prefix cgroup v2 reserves for its core files "
               "(cgroup.procs, cgroup.threads, ...; mkdir of one fails with EEXIST)";
    if (is_interface_file(name))
        return "'" + name + "' is the name of a file cgroupfs has in every group (mkdir fails with EEXIST)";
    return {};
}

std::string path_length_problem(std::size_t length) {
    return "a group path of " + std::to_string(length) + " bytes; below /sys/fs/cgroup it must fit in PATH_MAX " +
           "(at most " + std::to_string(path_max) + " bytes; mkdir fails with ENAMETOOLONG)";
}

std::string parent_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == 0 ? "/" : path.substr(0, slash);
}

bool parse_u64(const std::string& s, long long max, long long& out) {
    return workloads::parse_int(s, 0, max, out);
}

// The four cpu-controller files of one group, read from `r` into `g` and resolved into `resolved`.
void read_group_settings(config::config_reader& r, cgroup_spec& g, config_node& resolved) {
    const bool has_weight = r.has("cpu.weight"), has_nice = r.has("cpu.weight.nice");
    if (has_weight && has_nice) {
        r.consume("cpu.weight.nice");
        r.error("cpu.weight.nice", "give cpu.weight or cpu.weight.nice, not both (they set the same weight)");
    }
    if (has_nice && !has_weight) {
        const int nice = static_cast<int>(r.integer("cpu.weight.nice", 0, -20, 19));
        g.weight = cgroup_weight_of_nice(nice);
        resolved.set("cpu.weight.nice", config_node::make_scalar(std::to_string(nice), {}));
    } else {
        g.weight = static_cast<unsigned>(r.integer("cpu.weight", 100, 1, 10'000));
        resolved.set("cpu.weight", config_node::make_scalar(std::to_string(g.weight), {}));
    }

    long long quota_us = -1, period_us = 100'000;
    if (const config_node* n = r.consume("cpu.max")) {
        std::vector<std::string> words;
        if (n->is_scalar()) {
            std::istringstream in(n->scalar());
            for (std::string w; in >> w;) words.push_back(w);
        }
        const std::string given = n->is_scalar() ? n->scalar() : "a map or list";
        bool ok = !words.empty() && words.size() <= 2;
        if (ok && words[0] != "max") ok = parse_u64(words[0], max_runtime_us, quota_us);
        if (ok && words.size() == 2) ok = parse_u64(words[1], LLONG_MAX / 2, period_us);
        if (!ok) {
            r.error("cpu.max",
                    "expected \"QUOTA PERIOD\" or \"max PERIOD\" in microseconds (the period may be "
                    "left out: 100000), got '" +
                        given + "'");
        } else if (period_us < min_period_us || period_us > max_period_us) {
            r.error("cpu.max", "period " + std::to_string(period_us) + " us is out of range [1000, 1000000]");
        } else if (quota_us >= 0 && quota_us < min_quota_us) {
            r.error("cpu.max", "quota " + std::to_string(quota_us) + " us is below the minimum of 1000 us");
        } else {
            if (quota_us >= 0) g.quota_ns = static_cast<std::uint64_t>(quota_us) * 1000;
            g.period_ns = static_cast<std::uint64_t>(period_us) * 1000;
        }
    }
    resolved.set("cpu.max", config_node::make_scalar(cpu_max_text(g), {}));

    const long long burst_us = r.integer("cpu.max.burst", 0, 0, max_runtime_us);
    if (g.quota_ns && static_cast<std::uint64_t>(burst_us) * 1000 > *g.quota_ns)
        r.error("cpu.max.burst", std::to_string(burst_us) + " us exceeds the quota (" +
                                     std::to_string(*g.quota_ns / 1000) + " us of cpu.max)");
    else
        g.burst_ns = static_cast<std::uint64_t>(burst_us) * 1000;
    resolved.set("cpu.max.burst", config_node::make_scalar(std::to_string(g.burst_ns / 1000), {}));
}

// Adds `g` (path already checked) under its parent; false with an error if it cannot be.
bool add_group(cgroup_tree& tree, cgroup_spec g, config::config_reader& r, const std::string& key) {
    if (tree.find(g.path)) {
        r.error(key, "group " + g.path + " is defined twice");
        return false;
    }
    const std::string parent = parent_of(g.path);
    const auto p = tree.find(parent);
    if (!p) {
        r.error(key, "parent " + parent + " of " + g.path +
                         " is not defined before it (list parents first, as mkdir without -p)");
        return false;
    }
    if (tree.groups.size() >= max_groups) {
        r.error(key, "more than " + std::to_string(max_groups) + " groups");
        return false;
    }
    g.parent = *p;
    tree.groups.push_back(std::move(g));
    return true;
}

config_node resolved_group(const std::string& path, const config_node& settings) {
    config_node m = config_node::make_map({});
    m.set("path", config_node::make_scalar(path, {}));
    for (const auto& e : settings.entries()) m.set(e.key, e.value);
    return m;
}

// One generator: groups under `parent`, level by level in depth-first order, and a workload per leaf.
void run_generator(config::config_reader& g, config_node& g_resolved, cgroup_setup& out,
                   config_node& resolved_groups, config::error_list& errors) {
    const std::string name = g.text("name");
    if (const std::string why = name_problem(name); !name.empty() && !why.empty()) g.error("name", why);
    const std::string parent = g.text("parent", "/");
    const auto parent_id = out.tree.find(parent);
    if (!parent_id) g.error("parent", "no group " + parent + " (define it under cgroups: first)");

    std::vector<long long> fanout;
    if (const config_node* f = g.consume("fanout"); !f) {
        g.error("fanout", "required key is missing (the number of children per level, e.g. [2, 2, 5])");
    } else if (!f->is_sequence() || f->items().empty() || f->items().size() > max_levels) {
        g.error("fanout", "expected a list of 1 to " + std::to_string(max_levels) + " whole numbers");
    } else {
        config_node seq = config_node::make_sequence({});
        for (const auto& item : f->items()) {
            long long v = 0;
            if (!item.is_scalar() || !workloads::parse_int(item.scalar(), 1, max_fanout, v)) {
                g.error("fanout", "'" + (item.is_scalar() ? item.scalar() : std::string("a map or list")) +
                                      "' is not a whole number in [1, " + std::to_string(max_fanout) + "]");
                fanout.clear();
                break;
            }
            fanout.push_back(v);
            seq.push_back(config_node::make_scalar(std::to_string(v), {}));
        }
        g_resolved.set("fanout", std::move(seq));
    }
    // The longest name and path it makes: the last group of each level.
    if (!name.empty() && name_problem(name).empty() && !fanout.empty()) {
        std::size_t longest = parent == "/" ? 0 : parent.size();
        for (std::size_t l = 0; l < fanout.size(); ++l) {
            const std::string last = (l == 0 ? name : "l" + std::to_string(l + 1) + "_") +
                                     std::to_string(fanout[l] - 1);
            if (const std::string why = name_problem(last); !why.empty()) {
                g.error(l == 0 ? "name" : "fanout", "the group " + last + " it makes: " + why);
                break;
            }
            longest += 1 + last.size();
        }
        if (longest > path_max) g.error("fanout", "its deepest groups: " + path_length_problem(longest));
    }
    std::size_t total = 0, width = 1;
    for (long long f : fanout) {
        width *= static_cast<std::size_t>(f);
        total += width;
        if (total > max_groups) break;
    }
    if (out.tree.groups.size() + total > max_groups)
        g.error("fanout", "makes " + std::to_string(total) + " groups; at most " +
                              std::to_string(max_groups) + " are allowed in all");

    // Settings per level.
    std::vector<cgroup_spec> level_spec(fanout.size());
    std::vector<config_node> level_resolved;
    for (std::size_t l = 0; l < max_levels + 2; ++l) {
        const std::string key = "level_" + std::to_string(l + 1);
        if (l >= fanout.size()) {
            if (g.has(key)) {
                g.consume(key);
                if (!fanout.empty())
                    g.error(key, "the generator has " + std::to_string(fanout.size()) +
                                     (fanout.size() == 1 ? " level" : " levels") + " (fanout)");
            }
            continue;
        }
        const config_node* n = g.consume(key);
        if (n && !n->is_map()) {
            g.error(key, "expected a map of the level's cpu settings (cpu.weight, cpu.max, cpu.max.burst)");
            n = nullptr;
        }
        config::config_reader lr(n, g.path(key), errors, nullptr, g.where(key));
        config_node resolved = config_node::make_map({});
        read_group_settings(lr, level_spec[l], resolved);
        lr.finish();
        g_resolved.set(key, resolved);
        level_resolved.push_back(std::move(resolved));
    }
    if (g.has("level_0")) {
        g.consume("level_0");
        g.error("level_0", "levels count from 1 (the generator's top groups)");
    }

    // The leaf workload, checked once.
    std::optional<workload_entry> leaf;
    if (const config_node* w = g.consume("leaf_workload")) {
        g_resolved.set("leaf_workload", *w);
        leaf = read_workload_entry(*w, g.path("leaf_workload"), errors);
        if (leaf && !leaf->cgroup.empty()) {
            errors.add(w->where(), g.path("leaf_workload") + ".cgroup",
                       "set by the generator (each leaf's workload runs in its leaf)");
            leaf.reset();
        }
    }
    const bool expanded = g.boolean("expanded", false);
    g.finish();
    if (!errors.empty() || !parent_id || fanout.empty()) return;
    if (expanded) return; // config.yaml of a run: the groups and workloads are already listed

    const std::string base = parent == "/" ? "" : parent;
    auto component = [&](std::size_t level, std::size_t i) {
        return level == 0 ? name + std::to_string(i)
                          : "l" + std::to_string(level + 1) + "_" + std::to_string(i);
    };
    auto visit = [&](auto&& self, std::size_t level, const std::string& prefix) -> void {
        for (long long i = 0; i < fanout[level]; ++i) {
            cgroup_spec spec = level_spec[level];
            spec.path = prefix + "/" + component(level, static_cast<std::size_t>(i));
            if (!add_group(out.tree, spec, g, "name")) return;
            resolved_groups.push_back(resolved_group(spec.path, level_resolved[level]));
            if (level + 1 < fanout.size()) {
                self(self, level + 1, spec.path);
            } else if (leaf) {
                workload_entry e = *leaf;
                e.cgroup = spec.path;
                out.leaf_workloads.push_back(std::move(e));
            }
        }
    };
    visit(visit, 0, base);
}

} // namespace

unsigned cgroup_weight_of_nice(int nice) {
    const std::uint64_t shares = scheduler::weight_of_nice(nice);
    const std::uint64_t w = (shares * 100 + 512) / 1024;
    return static_cast<unsigned>(std::clamp<std::uint64_t>(w, 1, 10'000));
}

std::string cpu_max_text(const cgroup_spec& g) {
    return (g.quota_ns ? std::to_string(*g.quota_ns / 1000) : std::string("max")) + " " +
           std::to_string(g.period_ns / 1000);
}

cgroup_setup read_cgroups(config::config_reader& r, config::error_list& errors, config_node& resolved_root) {
    cgroup_setup out;
    config_node resolved_groups = config_node::make_sequence({});
    if (const config_node* list = r.consume("cgroups")) {
        if (!list->is_sequence()) {
            r.error("cgroups", "expected a list of groups ({path: /name, cpu.max: ..., cpu.weight: ...})");
        } else {
            for (std::size_t i = 0; i < list->items().size(); ++i) {
                const config_node& item = list->items()[i];
                const std::string key = r.path("cgroups") + "[" + std::to_string(i) + "]";
                if (!item.is_map()) {
                    errors.add(item.where(), key, "expected a map with path: and the group's cpu settings");
                    continue;
                }
                config::config_reader g(&item, key, errors, nullptr, item.where());
                cgroup_spec spec;
                spec.path = g.text("path");
                config_node settings = config_node::make_map({});
                read_group_settings(g, spec, settings);
                g.finish();
                if (!g.has("path")) continue;
                std::string why;
                if (spec.path == "/") {
                    why = "the root group is always there and has no cpu.weight or cpu.max (cgroup v2)";
                } else if (spec.path.size() > path_max) {
                    why = path_length_problem(spec.path.size());
                } else if (spec.path.empty() || spec.path[0] != '/') {
                    why = "a group path starts with '/' (e.g. /tenant1/db), got '" + spec.path + "'";
                } else if (spec.path.back() == '/') {
                    why = "a group path does not end with '/', got '" + spec.path + "'";
                } else {
                    std::size_t start = 1;
                    while (why.empty()) {
                        const std::size_t slash = spec.path.find('/', start);
                        why = name_problem(spec.path.substr(start, slash - start));
                        if (slash == std::string::npos) break;
                        start = slash + 1;
                    }
                }
                if (!why.empty()) {
                    g.error("path", why);
                    continue;
                }
                if (add_group(out.tree, spec, g, "path"))
                    resolved_groups.push_back(resolved_group(spec.path, settings));
            }
        }
    }
    if (const config_node* gen = r.consume("cgroup_generator")) {
        std::vector<const config_node*> gens;
        if (gen->is_map()) {
            gens.push_back(gen);
        } else if (gen->is_sequence()) {
            for (const auto& item : gen->items()) gens.push_back(&item);
        } else {
            r.error("cgroup_generator",
                    "expected a map (name, fanout, level_N, leaf_workload) or a list of them");
        }
        config_node resolved_gens = config_node::make_sequence({});
        for (std::size_t i = 0; i < gens.size(); ++i) {
            const std::string key =
                r.path("cgroup_generator") + (gen->is_sequence() ? "[" + std::to_string(i) + "]" : "");
            if (!gens[i]->is_map()) {
                errors.add(gens[i]->where(), key, "expected a map (name, fanout, level_N, leaf_workload)");
                continue;
            }
            config_node resolved = config_node::make_map({});
            config::config_reader g(gens[i], key, errors, &resolved, gens[i]->where());
            run_generator(g, resolved, out, resolved_groups, errors);
            resolved.set("expanded", config_node::make_scalar("true", {}));
            resolved_gens.push_back(std::move(resolved));
        }
        if (gen->is_map() && !resolved_gens.items().empty())
            resolved_root.set("cgroup_generator", resolved_gens.items().front());
        else
            resolved_root.set("cgroup_generator", std::move(resolved_gens));
    }
    if (!resolved_groups.items().empty()) resolved_root.set("cgroups", std::move(resolved_groups));
    return out;
}

} // namespace warmsched::sim
