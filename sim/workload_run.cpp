// Workload runs; see workload_run.h.
#include "sim/workload_run.h"

#include "base/files/output_file.h"
#include "base/stats/stats_series.h"
#include "base/stats/stats_window.h"
#include "base/stats/stats_writers.h"
#include "platforms/config/config_error.h"
#include "platforms/config/units.h"
#include "sim/cgroups/cgroup_stats.h"
#include "sim/migration_report.h"
#include "sim/outputs/chrome_trace_writer.h"
#include "sim/results_dir.h"
#include "sim/outputs/ftrace_writer.h"
#include "sim/outputs/perfetto_trace_writer.h"
#include "sim/outputs/progress_meter.h"
#include "sim/outputs/report_json.h"
#include "sim/outputs/sched_event_log.h"
#include "sim/outputs/sched_timeline.h"
#include "sim/outputs/schedstat_writer.h"
#include "sim/outputs/vcd_writer.h"
#include "sim/policy_exit_report.h"
#include "sim/plots/run_plots.h"
#include "sim/plots/timeline_data.h"
#include "sim/provenance.h"
#include "sim/run_summary.h"
#include "workloads/cli/command_line.h"
#include "workloads/kernel/sim_kernel.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace warmsched::sim {
namespace fs = std::filesystem;

namespace {
// The kernel of a run that starts at a point of the tick period drawn from the seed, as a measurement on
// a real machine starts somewhere between two ticks (the CPUs' ticks stay aligned, as without
// skew_tick). Repeated seeds of a run differ through it even where nothing else draws from the seed.
scheduler::sched_config with_seeded_tick_phase(scheduler::sched_config cfg, std::uint64_t seed) {
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ull; // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    cfg.tick_phase_ns = z % cfg.tick_ns();
    return cfg;
}
} // namespace

int run_workloads(const experiment& e, const std::string& final_dir, std::ostream& out, bool replace) {
    const auto wall0 = std::chrono::steady_clock::now();
    results_dir results(final_dir, replace); // checked writable now, not after the run
    const std::string& out_dir = results.writing();
    models::machine_options mo;
    mo.seed = e.seed;
    mo.quantum_ps = e.quantum_ps;
    mo.set_sampling = e.set_sampling;
    models::machine m("system", e.platform, mo);
    workloads::sim_kernel k("kernel", m, with_seeded_tick_phase(e.kernel, e.seed), e.seed, e.migration_cost);
    k.set_fast_forward(e.fast_forward);
    if (!e.cgroups.only_root()) k.sched().set_cgroups(e.cgroups);
    // The events behind trace.txt and trace.perfetto-trace.
    const bool perfetto = e.trace.enabled && e.trace.perfetto;
    std::unique_ptr<sched_event_log> trace;
    if ((e.trace.enabled && e.trace.ftrace) || perfetto)
        trace = std::make_unique<sched_event_log>(k.sched(), m, e.trace);
    // The timeline behind trace.json, the VCD, the plots and trace.perfetto-trace's counters.
    std::unique_ptr<sched_timeline> timeline;
    if ((e.trace.enabled && e.trace.chrome) || perfetto || e.trace.vcd || e.plot)
        timeline = std::make_unique<sched_timeline>(k.sched(), m, e.trace);
    std::unique_ptr<progress_meter> progress;
    if (progress_meter::wanted(2)) progress = std::make_unique<progress_meter>(std::cerr, e.duration_ns);
    tracepoint_tee tee2(progress.get(), timeline.get());
    tracepoint_tee tee(trace.get(), &tee2);
    if (trace || progress || timeline) k.sched().set_tracepoints(&tee);
    std::vector<workloads::workload_command> ws;
    for (std::size_t i = 0; i < e.workloads.size(); ++i) {
        ws.push_back(workloads::parse_command_line(
            workloads::split_command_line(e.workloads[i]), m.num_cpus(),
            i < e.workload_params.size() ? e.workload_params[i] : workloads::workload_params{}));
        const std::size_t first_task = k.tasks().size();
        ws.back().w->use_cgroups(e.cgroups); // rt-app's taskgroups
        ws.back().w->start(k, ws.back().allowed);
        // Its initial tasks go into its cgroup (cgroup.procs); the tasks they fork inherit it.
        if (const scheduler::group_id g = i < e.workload_groups.size() ? e.workload_groups[i] : 0)
            for (std::size_t t = first_task; t < k.tasks().size(); ++t) k.attach_initial(*k.tasks()[t], g);
    }
    if (progress && !e.duration_ns) { // the run ends with its last workload: known if each one's end is
        std::uint64_t end = 0;
        bool known = true;
        for (const auto& w : ws) {
            known = known && w.w->expected_end_ns() > 0;
            end = std::max(end, w.w->expected_end_ns());
        }
        progress->set_end_ns(known ? end : 0);
    }
    if (!e.duration_ns)
        for (const auto& w : ws)
            if (const std::string why = w.w->runs_until_stopped(); !why.empty())
                throw config::config_error(config::origin{"<command line>", 0, 0}, "duration",
                                           w.w->command() + ": " + why +
                                               ": give the run an end (-p duration=2s, or duration: in the "
                                               "experiment)");
    // A policy that fails is ejected (sched_ext's disable): its tasks run on under the fair class and the
    // run goes on to its end; the summary, the stats (kernel.ext) and report.json say so, and the run
    // exits with status 1 (policy_exit_report.h).
    // A workload that can never go on (rt-app's threads all blocked for good: the real tool would hang)
    // stops the run there, and nothing of it is written.
    auto stop_on_blocked_workload = [&] {
        for (const auto& w : ws)
            if (const std::string why = w.w->blocked_for_good(); !why.empty())
                throw config::config_error(std::vector<std::string>{why + " (no results written)"});
    };
    // The run goes in steps, each the same simulation as one run to the end (no event is added or moved):
    //   - to the end of the warm-up (`warmup:`), where every counter is read once: the stats, the summary,
    //     the reports, schedstat/vN-start.txt and cgroup/<path>/cpu.stat.start then cover the window after
    //     it (stats_window.h);
    //   - to each multiple of `stats_period:`, where the registry is read for a row of stats-series.csv
    //     (stats_series.h).
    // Until the warm-up ends, a step runs to its time even when nothing is left to do, as one run to the
    // warm-up's end does; after it, a run without a duration stops at its last event, as a run to the end
    // does.
    stats::group at_window_start;
    std::optional<cgroup_report> cgroups_at_start;
    std::optional<schedstat_snapshot> schedstat_start;
    const double warmup_s = static_cast<double>(e.warmup_ns) / 1e9;
    auto open_window = [&] {
        bool all_done = true;
        for (const auto& w : ws) all_done = all_done && w.w->finished();
        if (all_done)
            throw config::config_error(
                e.warmup_where, "warmup",
                "the workloads ended within the warm-up of " + config::format_time_ps(e.warmup_ns * 1000.0) +
                    ": nothing would be measured (give a shorter warmup; no results written)");
        add_run_stats(at_window_start, k, m, warmup_s, warmup_s);
        if (!e.cgroups.only_root()) {
            cgroups_at_start = cgroup_report::of(k, e.cgroups);
            add_cgroup_stats(at_window_start.child("kernel"), *cgroups_at_start);
        }
    };
    stats::series series;
    auto series_before = std::make_unique<stats::group>(); // the registry at the last row's end (empty at 0)
    std::optional<cgroup_report> series_cgroups; // the series' own reads of cpu.stat (cputime_adjust's chain)
    double series_from_s = 0;
    auto add_series_row = [&] {
        const double now_s = static_cast<double>(k.now()) / 1e9;
        auto at = std::make_unique<stats::group>();
        add_run_stats(*at, k, m, now_s, warmup_s);
        if (!e.cgroups.only_root()) {
            series_cgroups = cgroup_report::of(k, e.cgroups, series_cgroups ? &*series_cgroups : nullptr);
            add_cgroup_stats(at->child("kernel"), *series_cgroups);
        }
        stats::group row;
        stats::add_window(row, *at, *series_before);
        series.add_row(series_from_s, now_s, row);
        series_before = std::move(at);
        series_from_s = now_s;
    };
    bool window_open = e.warmup_ns == 0;
    if (window_open) schedstat_start = take_schedstat(k.sched(), k.now(), e.schedstat_versions);
    std::uint64_t next_row = e.stats_period_ns;
    for (bool more = true; more;) {
        std::uint64_t to = e.duration_ns; // 0: until the workloads end
        auto stop_at = [&](std::uint64_t t) {
            if (t && (!to || t < to)) to = t;
        };
        if (!window_open) stop_at(e.warmup_ns);
        stop_at(next_row);
        if (!to) { // no stop left: to the end
            k.run(0);
            stop_on_blocked_workload();
            break;
        }
        // Until the warm-up has ended, the run goes on to it even with nothing left to do (as one run to
        // its end would).
        more = k.run_to(to, !e.duration_ns && window_open) || !window_open;
        stop_on_blocked_workload();
        if (!window_open && k.now() >= e.warmup_ns) {
            open_window();
            window_open = true;
            schedstat_start = take_schedstat(k.sched(), k.now(), e.schedstat_versions);
        }
        if (next_row && k.now() >= next_row) {
            if (!e.duration_ns && series.rows() >= max_stats_periods) // with one, the experiment checked it
                throw config::config_error(e.stats_period_where, "stats_period",
                                           "the run passed " + std::to_string(max_stats_periods) +
                                               " periods: give a longer period (no results written)");
            add_series_row();
            next_row += e.stats_period_ns;
        }
        if (e.duration_ns && k.now() >= e.duration_ns) break;
    }
    if (e.stats_period_ns && static_cast<double>(k.now()) / 1e9 > series_from_s) add_series_row(); // the last
    k.sched().set_tracepoints(nullptr);
    if (timeline) timeline->finish(k.now());
    if (progress) progress->clear();
    const double sim_s = static_cast<double>(k.now()) / 1e9;
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    std::ostringstream report;
    std::vector<workload_output> outputs;
    for (const auto& w : ws) {
        if (ws.size() > 1) report << "$ " << w.w->command() << "\n";
        std::ostringstream one;
        w.w->report(one);
        report << one.str();
        outputs.push_back({w.w->command(), one.str()});
    }
    // The stats registry first: the summary and the migration and cgroup reports print views of it.
    stats::group at_end, window;
    add_run_stats(at_end, k, m, sim_s, warmup_s);
    std::optional<cgroup_report> cgroups;
    if (!e.cgroups.only_root()) {
        cgroups = cgroup_report::of(k, e.cgroups, cgroups_at_start ? &*cgroups_at_start : nullptr);
        add_cgroup_stats(at_end.child("kernel"), *cgroups);
    }
    if (e.warmup_ns) stats::add_window(window, at_end, at_window_start);
    const stats::group& registry = e.warmup_ns ? window : at_end;
    const stats::group& kernel_stats = registry.at("kernel");
    std::ostringstream summary;
    print_run_summary(summary, run_header::of(k, m, e.seed), registry);
    print_policy_exit(summary, k.sched());
    if (k.migration_costs()) print_migration_report(summary, kernel_stats);
    if (cgroups) print_cgroup_summary(summary, e.cgroups, kernel_stats, registry.real("simSeconds"));
    out << report.str() << summary.str();
    // Wall-clock speed goes to stderr, so that stdout and the result files are byte-identical per seed.
    // The host work of the hardware model (models/common/host_visits.h) goes with it: bench/compare.sh
    // reads both.
    char speed[160];
    std::snprintf(speed, sizeof speed, "warmsched: %.6f simulated s in %.2f s wall (%.4f simulated s per wall s)",
                  sim_s, wall_s, wall_s > 0 ? sim_s / wall_s : 0.0);
    std::cerr << speed << "; host work " << m.visits().per_access() << "\n";

    // Every file is written checked (base/files/output_file.h): a full disk ends the run with exit 1 and
    // the partial directory removed, never a cut file in a directory that looks complete.
    auto file = [&](const char* name) { return (fs::path(out_dir) / name).string(); };
    std::string files;
    results.write_files([&] {
        {
            base::output_file cfg(file("config.yaml"));
            cfg << "# Fully resolved configuration of this run (every parameter, defaults included).\n"
                << (command_line().empty() ? "" : "# Command line: " + command_line() + "\n")
                << "# Experiment: " << e.source
                << (e.workloads_from_command_line ? " (its workloads replaced by the command line after --)" : "")
                << "\n"
                << e.resolved.to_yaml();
            cfg.close();
        }
        base::write_file(file("report.txt"), report.str() + summary.str());
        {
            base::output_file txt(file("stats.txt"));
            stats::write_text(txt, registry);
            txt.close();
            base::output_file json(file("stats.json"));
            stats::write_json(json, registry, run_provenance(e));
            json.close();
        }
        if (e.stats_period_ns) {
            base::output_file csv(file("stats-series.csv"));
            series.write_csv(csv);
            csv.close();
        }
        write_schedstat_dir(out_dir, *schedstat_start, k);
        if (cgroups) // cgroup/<path>/cpu.stat (and cpu.stat.start after a warm-up)
            write_cpu_stat_files(out_dir, *cgroups, cgroups_at_start ? &*cgroups_at_start : nullptr);
        {
            base::output_file rj(file("report.json"));
            write_report_json(rj, outputs, run_provenance(e), policy_exit_json(k.sched()));
            rj.close();
        }
        if (k.migration_costs()) {
            base::output_file mj(file("migration_report.json"));
            write_migration_report_json(mj, kernel_stats, run_provenance(e));
            mj.close();
        }
        if (trace && e.trace.ftrace) {
            base::output_file tf(file("trace.txt"));
            write_ftrace_text(tf, *trace);
            tf.close();
            files += ", trace.txt";
        }
        if (timeline && e.trace.enabled && e.trace.chrome) {
            base::output_file tj(file("trace.json"));
            write_chrome_trace(tj, *timeline, run_provenance(e));
            tj.close();
            files += ", trace.json";
        }
        if (perfetto) {
            base::output_file pf(file("trace.perfetto-trace"));
            write_perfetto_trace(pf, *trace, *timeline, k.uname_release());
            pf.close();
            files += ", trace.perfetto-trace";
        }
        if (timeline && e.trace.vcd) {
            base::output_file vcd(file("trace.vcd"));
            write_vcd(vcd, *timeline);
            vcd.close();
            base::output_file filter(file("trace.vcd.filter"));
            write_gtkwave_translate_filter(filter, *timeline);
            filter.close();
            files += ", trace.vcd, trace.vcd.filter";
        }
        if (timeline && e.plot) {
            write_timeline_data(out_dir, *timeline);
            files += ", plots/";
        }
        for (const auto& w : ws) w.w->write_files(out_dir); // the tools' own files (rt-app's thread logs)
    });
    results.commit();
    out << "results: " << final_dir << " (config.yaml, report.txt, report.json, stats.txt, stats.json, "
        << (k.migration_costs() ? "migration_report.json, " : "")
        << (e.stats_period_ns ? "stats-series.csv, " : "") << "schedstat/" << files << ")\n";
    // A run without a duration ends when its workloads do: a window opening later traced nothing
    // (with a duration, the experiment reader refuses such a window before the run).
    if ((e.trace.enabled || e.trace.vcd) && e.trace.start_ns > 0 && e.trace.start_ns >= k.now()) {
        char when[96];
        std::snprintf(when, sizeof when, "it opens at %.9g s, the run ended at %.6f s",
                      static_cast<double>(e.trace.start_ns) / 1e9, static_cast<double>(k.now()) / 1e9);
        std::cerr << "warning: trace.start: the trace window never opened (" << when
                  << "): the trace files hold no scheduler events\n";
    }
    if (e.plot) plot_run(final_dir, out);
    bool all_done = true;
    for (const auto& w : ws) all_done = all_done && w.w->finished();
    if (const std::string ejected = policy_exit_stderr_line(k.sched()); !ejected.empty()) {
        std::cerr << ejected << "\n";
        return 1; // the results are complete, but not those of the policy alone
    }
    return all_done || e.duration_ns ? 0 : 1;
}

} // namespace warmsched::sim
