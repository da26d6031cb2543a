// Experiment reading and running; see experiment.h.
#include "sim/experiment.h"
#include "base/files/output_file.h"

#include <sstream>

#include "models/common/run_simulation.h"
#include "models/system/machine.h"
#include "platforms/config/config_reader.h"
#include "platforms/config/units.h"
#include "platforms/platform_catalog.h"
#include "platforms/platform_loader.h"
#include "sim/cgroups/cgroup_config.h"
#include "sim/kernel_config.h"
#include "sim/workload_entries.h"
#include "sim/results_dir.h"
#include "sim/workload_run.h"
#include "workloads/cli/command_line.h"
#include "workloads/kernel/pid_max.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace warmsched::sim {
namespace fs = std::filesystem;

experiment read_experiment(const std::string& path, const std::vector<std::string>& overrides,
                           const command_workload& command) {
    config::config_node root = config::load_yaml_file(path);
    // `-p platform=NAME` chooses another platform: apply it before the platform's tree is spliced in.
    std::vector<std::string> rest;
    for (const auto& o : overrides) {
        if (o.rfind("platform=", 0) == 0)
            config::apply_override(root, o);
        else
            rest.push_back(o);
    }
    // The platform is named (or a path relative to the experiment); splice its tree in so that
    // overrides such as platform.caches.2.size apply to it and errors point into its file.
    if (const auto* entry = root.find_entry("platform"); entry && entry->value.is_scalar()) {
        std::string name = entry->value.scalar();
        const bool is_path = name.find('/') != std::string::npos ||
                             (name.size() > 5 && name.substr(name.size() - 5) == ".yaml") ||
                             (name.size() > 4 && name.substr(name.size() - 4) == ".xml");
        if (is_path && fs::path(name).is_relative() && entry->value.where().line > 0)
            name = (fs::path(path).parent_path() / name).string();
        std::string why;
        const std::string file = platform::find_platform_path(name, why);
        if (file.empty()) throw config::config_error(entry->value.where(), "platform", why);
        root.set("platform", platform::load_platform_file(file), entry->key_where);
    }
    for (const auto& o : rest) config::apply_override(root, o);

    experiment e;
    e.source = path;
    e.resolved = config::config_node::make_map({});
    config::error_list errors;
    config::config_reader r(&root, "", errors, &e.resolved, root.where());
    r.keys_of_elsewhere(platform::platform_keys(), "platform"); // `-p caches.2.size=`: platform.caches
    const config::config_node* platform_node = r.consume("platform");
    if (!platform_node || !platform_node->is_map())
        r.error("platform", "expected a shipped platform name or a platform file path");
    e.seed = static_cast<std::uint64_t>(r.integer("seed", 1, 0, (1ll << 62)));
    e.repeat = static_cast<unsigned>(r.integer("repeat", 1, 1, 10000));
    const double quantum_ps = r.time_ps("quantum", 1e6);
    e.quantum_ps = static_cast<std::uint64_t>(std::clamp(quantum_ps, 1e3, 1e6));
    // Temporal decoupling lets a hart run this far ahead of the others; past 1us it takes its share of a
    // link before the others' demand is known, and the results change (docs/architecture.md, "Harts and
    // time": 10us lowers the all-core bandwidth by 2.5-3%; 100ns and 1us agree within 0.2%).
    if (r.has("quantum") && !(quantum_ps >= 1e3 && quantum_ps <= 1e6))
        r.error("quantum", "must be between 1ns and 1us (a longer quantum lets a CPU run ahead of the others "
                           "and changes the results; docs/architecture.md, \"Harts and time\"), got " +
                               config::format_time_ps(quantum_ps));
    r.text("description", "");
    e.set_sampling = static_cast<unsigned>(r.integer("set_sampling", 1, 1, 1 << 16));
    e.fast_forward = static_cast<unsigned>(r.integer("fast_forward", 1, 1, 1 << 20));
    unsigned cpus = 1;
    bool platform_read = false;
    if (platform_node && platform_node->is_map()) {
        config::config_node resolved_platform = config::config_node::make_map({});
        try {
            e.platform = platform::read_platform(*platform_node, &resolved_platform, "platform");
            platform_read = true;
            cpus = 1;
            for (const auto& l : e.platform.levels) cpus *= l.count;
            cpus *= e.platform.threads_per_core;
        } catch (const config::config_error& pe) {
            for (const auto& line : pe.lines()) errors.add_line(line);
        }
        e.resolved.set("platform", resolved_platform);
        if (errors.empty()) {
            const std::string why = platform::set_sampling_problem(e.platform, e.set_sampling);
            if (!why.empty()) r.error("set_sampling", why);
        }
    }
    auto kernel = r.child("kernel");
    e.kernel = read_kernel_config(kernel, cpus);
    kernel.finish();
    e.duration_ns = r.time_ns("duration", 0);
    e.warmup_ns = r.time_ns("warmup", 0);
    e.warmup_where = r.where("warmup");
    if (e.warmup_ns && e.duration_ns && e.warmup_ns >= e.duration_ns)
        r.error("warmup", "the warm-up (" + config::format_time_ps(e.warmup_ns * 1000.0) +
                              ") must end before the run does (duration: " +
                              config::format_time_ps(e.duration_ns * 1000.0) + ")");
    e.stats_period_ns = r.time_ns("stats_period", 0);
    e.stats_period_where = r.where("stats_period");
    if (e.stats_period_ns && e.duration_ns && e.stats_period_ns >= e.duration_ns)
        r.error("stats_period", "a period (" + config::format_time_ps(e.stats_period_ns * 1000.0) +
                                    ") must be shorter than the run (duration: " +
                                    config::format_time_ps(e.duration_ns * 1000.0) + ")");
    else if (e.stats_period_ns && e.duration_ns && e.duration_ns / e.stats_period_ns > max_stats_periods)
        r.error("stats_period", "at most " + std::to_string(max_stats_periods) + " periods in a run (" +
                                    std::to_string(e.duration_ns / e.stats_period_ns) +
                                    " in duration: " + config::format_time_ps(e.duration_ns * 1000.0) + ")");
    e.migration_cost = r.boolean("migration_cost", true);
    {
        // "15,17" (the default: v5.15's layout and the newest), any of 15, 16 (v6.6-v6.12) and 17 (v6.13).
        const std::string v = r.text("schedstat_versions", "15,17");
        e.schedstat_versions.clear();
        std::stringstream list(v);
        bool ok = !v.empty();
        for (std::string item; ok && std::getline(list, item, ',');) {
            const unsigned n = item == "15" ? 15 : item == "16" ? 16 : item == "17" ? 17 : 0;
            ok = n && std::find(e.schedstat_versions.begin(), e.schedstat_versions.end(), n) ==
                          e.schedstat_versions.end();
            if (ok) e.schedstat_versions.push_back(n);
        }
        if (!ok || v.back() == ',')
            r.error("schedstat_versions",
                    "expected a comma-separated list of 15, 16 and 17, each once (e.g. 16 or 15,17), got '" +
                        v + "'");
    }
    e.plot = r.boolean("plot", false);
    {
        auto t = r.child("trace");
        e.trace.enabled = t.boolean("enabled", false);
        {
            const std::string formats = t.text("formats", "ftrace");
            e.trace.ftrace = e.trace.chrome = e.trace.perfetto = false;
            std::size_t from = 0;
            while (from <= formats.size()) {
                const std::size_t comma = std::min(formats.find(',', from), formats.size());
                const std::string f = formats.substr(from, comma - from);
                if ((f == "ftrace" && e.trace.ftrace) || (f == "chrome" && e.trace.chrome) ||
                    (f == "perfetto" && e.trace.perfetto))
                    t.error("formats", "'" + f + "' is listed twice in '" + formats + "'");
                else if (f == "ftrace")
                    e.trace.ftrace = true;
                else if (f == "chrome")
                    e.trace.chrome = true;
                else if (f == "perfetto")
                    e.trace.perfetto = true;
                else
                    t.error("formats", "unknown trace format '" + f +
                                           "' (expected ftrace, chrome, perfetto or a comma list)");
                from = comma + 1;
            }
        }
        e.trace.vcd = t.boolean("vcd", false);
        e.trace.start_ns = t.time_ns("start", 0);
        e.trace.end_ns = t.time_ns("end", 0);
        e.trace.counter_interval_ns = t.time_ns("counter_interval", 1'000'000);
        if (e.trace.end_ns && e.trace.end_ns <= e.trace.start_ns)
            t.error("end", "the trace window must end after it starts (0: at the end of the run)");
        if (e.trace.counter_interval_ns == 0) t.error("counter_interval", "must be at least 1ns");
        // A window that opens after the run's end traces nothing. Known now when the run has a duration;
        // a run to its workloads' end says so after the run (workload_run.cpp).
        if (e.trace.start_ns > 0 && e.duration_ns && e.trace.start_ns >= e.duration_ns)
            t.error("start", "the trace window opens at " + config::format_time_ps(e.trace.start_ns * 1000.0) +
                                 ", after the run ends (duration: " +
                                 config::format_time_ps(e.duration_ns * 1000.0) + "): nothing would be traced");
        t.finish();
    }
    cgroup_setup cg = read_cgroups(r, errors, e.resolved);
    e.cgroups = cg.tree;
    if (!command.cgroup.empty() && command.words.empty())
        throw config::config_error(config::origin{"<command line>", 0, 0}, "--cgroup",
                                   "places the workload given after --; there is none");
    if (!command.words.empty()) {
        workloads::parse_command_line(command.words, cpus); // the tool's own usage error if it is wrong
        r.consume("workloads");
        e.workloads_from_command_line = true;
        std::string line;
        for (const auto& w : command.words) line += (line.empty() ? "" : " ") + w;
        const std::string cgroup = command.cgroup == "/" ? "" : command.cgroup;
        scheduler::group_id g = 0;
        if (!cgroup.empty()) {
            const auto found = e.cgroups.find(cgroup);
            if (!found)
                throw config::config_error(config::origin{"<command line>", 0, 0}, "--cgroup",
                                           "\"" + cgroup +
                                               "\" is not a group of this experiment (define it under "
                                               "cgroups: or with cgroup_generator:)");
            g = *found;
        }
        e.workloads.push_back(line);
        e.workload_params.emplace_back();
        e.workload_groups.push_back(g);
        auto seq = config::config_node::make_sequence({"<command line>", 0, 0});
        seq.items().push_back(resolve_workload_entry(workload_entry{line, {}, cgroup, {}}, cpus, e.cgroups));
        e.resolved.set("workloads", seq, {"<command line>", 0, 0});
        // What ran is the command line, not the experiment file's workloads: its description goes too.
        e.resolved.set(
            "description",
            config::config_node::make_scalar("the command line: " + line, {"<command line>", 0, 0}),
            {"<command line>", 0, 0});
    } else {
        std::vector<workload_entry> entries;
        std::uint64_t tasks = 0; // of every workload: they run at once, in one kernel
        if (const config::config_node* list = r.consume("workloads"))
            entries = read_workload_entries(*list, r.path("workloads"), cpus, errors, e.resolved, e.cgroups,
                                            &tasks);
        // The generators' leaf workloads follow the listed ones (resolved with their cgroup).
        if (!cg.leaf_workloads.empty()) {
            config::config_node* seq = e.resolved.find("workloads");
            if (!seq) seq = &e.resolved.set("workloads", config::config_node::make_sequence({}));
            for (auto& w : cg.leaf_workloads) {
                try {
                    std::uint64_t n = 0;
                    seq->push_back(resolve_workload_entry(w, cpus, e.cgroups, &n));
                    tasks += n;
                } catch (const workloads::usage_error& u) {
                    const std::string what = u.what();
                    errors.add(w.where, r.path("cgroup_generator") + ".leaf_workload",
                               what.substr(0, what.find('\n')));
                    break;
                }
                entries.push_back(std::move(w));
            }
        }
        // Each workload is checked against pid_max alone (command_line.cpp); together they share it.
        if (entries.size() > 1 && tasks > workloads::pid_max(cpus))
            r.error("workloads", "the workloads together need " + std::to_string(tasks) +
                                     " tasks, more than the simulated kernel's pid_max of " +
                                     std::to_string(workloads::pid_max(cpus)) + " on " + std::to_string(cpus) +
                                     " CPUs (Linux: max(32768, 1024 x CPUs)); the real tools' fork() would "
                                     "fail with EAGAIN");
        for (auto& w : entries) {
            e.workloads.push_back(w.command);
            e.workload_params.push_back(std::move(w.params));
            e.workload_groups.push_back(w.cgroup.empty() ? 0 : e.cgroups.find(w.cgroup).value_or(0));
        }
    }
    auto probes = r.child("probes");
    e.probes = read_probe_settings(probes, cpus, platform_read ? &e.platform : nullptr);
    e.probes.seed = e.seed;
    const bool any_probe = e.probes.latency || e.probes.c2c || e.probes.bandwidth || e.probes.migrate;
    if (any_probe && !e.workloads.empty())
        r.error("probes", "an experiment runs either workloads or probes, not both");
    // A list whose entries were all refused above has said what is wrong with them.
    const config::config_node* listed = root.find("workloads");
    const bool entries_given = listed && listed->is_sequence() && !listed->items().empty();
    if (!any_probe && e.workloads.empty() && !entries_given)
        r.error("workloads", "nothing to run: give workload command lines (or probes)");
    if (any_probe && e.warmup_ns)
        r.error("warmup", "the probes measure from their start: a warm-up is for workload runs");
    if (any_probe && e.stats_period_ns)
        r.error("stats_period", "the probes write no stats series: a stats period is for workload runs");
    r.finish();
    errors.throw_if_any();
    return e;
}

std::string default_results_dir(const std::string& prefix) {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    const std::string base = "results/" + prefix + stamp;
    std::string dir = base;
    for (int n = 2; fs::exists(dir); ++n) dir = base + "-" + std::to_string(n);
    return dir;
}

int run_experiment(const experiment& e, const std::string& final_dir, std::ostream& out, bool replace) {
    if (!e.workloads.empty()) return run_workloads(e, final_dir, out, replace);
    results_dir results(final_dir, replace);
    const std::string& out_dir = results.writing();
    results.write_files([&] {
        base::output_file cfg((fs::path(out_dir) / "config.yaml").string());
        cfg << "# Fully resolved configuration of this run (every parameter, defaults included).\n"
            << "# Experiment: " << e.source << "\n"
            << e.resolved.to_yaml();
        cfg.close();
    });
    models::machine_options mo;
    mo.seed = e.seed;
    mo.quantum_ps = e.quantum_ps;
    mo.set_sampling = e.set_sampling;
    models::machine m("system", e.platform, mo);
    probe_suite suite(m, e.probes);
    suite.start();
    models::run_simulation();
    suite.report(out);
    results.write_files([&] {
        base::output_file report((fs::path(out_dir) / "report.txt").string());
        suite.report(report);
        report.close();
        for (const char* probe : {"latency", "c2c", "bandwidth", "migrate"}) {
            std::ostringstream csv;
            if (suite.report_csv(probe, csv))
                base::write_file((fs::path(out_dir) / (std::string(probe) + ".csv")).string(), csv.str());
        }
    });
    results.commit();
    out << "results: " << final_dir << " (config.yaml, report.txt, one CSV per probe)\n";
    return 0;
}

} // namespace warmsched::sim
