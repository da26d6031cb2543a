// An experiment file: the platform it runs on (a shipped name or a path), the seed and quantum, the
// kernel (scheduler version, features, tunables), and what to run -- workload command lines run under
// the simulated kernel, or the hardware probes. Reading it yields the fully resolved configuration,
// written as config.yaml next to the results.
#pragma once

#include "platforms/config/config_error.h"
#include "platforms/config/config_node.h"
#include "platforms/platform_params.h"
#include "scheduler/core/scheduler.h"
#include "scheduler/group/cgroup_tree.h"
#include "sim/outputs/trace_settings.h"
#include "sim/probe_suite.h"
#include "workloads/cli/workload_params.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::sim {

// The most rows a run's stats-series.csv may have (`stats_period:`).
inline constexpr std::uint64_t max_stats_periods = 10000;

struct experiment {
    std::string source; // file it was read from
    platform::platform_params platform;
    std::uint64_t seed = 1;
    unsigned repeat = 1; // seeds seed..seed+repeat-1, each into DIR/seed-<s>/ (repeated_runs.h)
    std::uint64_t quantum_ps = 1'000'000;
    unsigned set_sampling = 1;
    unsigned fast_forward = 1; // settled compute simulates 1 in N of its accesses (1: all)
    probe_suite_settings probes;
    scheduler::sched_config kernel;
    std::vector<std::string> workloads;                      // command lines, e.g. "hackbench -p -g 10"
    bool workloads_from_command_line = false;                // the command after `--` replaced the file's
    std::vector<workloads::workload_params> workload_params; // each one's parameters (same order), as given
    std::vector<scheduler::group_id> workload_groups;        // each one's cgroup (same order; 0: the root)
    // `cgroups:` and `cgroup_generator:` (sim/cgroups/cgroup_config.h); only the root when none is given.
    scheduler::cgroup_tree cgroups;
    std::uint64_t duration_ns = 0; // stop after this much simulated time (0: when the workloads end)
    // The counters cover the run after this much simulated time (0: the whole run); the tools' own output
    // (hackbench's Time:) covers their whole run (sim/workload_run.h).
    std::uint64_t warmup_ns = 0;
    config::origin warmup_where; // where it was given, for the error of a run that ends within it
    // A row of stats-series.csv every this much simulated time (0: none; base/stats/stats_series.h), at
    // most max_stats_periods of them (a row holds every stat: thousands on the large platforms).
    std::uint64_t stats_period_ns = 0;
    config::origin stats_period_where;
    bool migration_cost = true;    // run the cost-of-migration tracker and print its report
    std::vector<unsigned> schedstat_versions{15, 17}; // the /proc/schedstat layouts written (15, 16, 17)
    trace_settings trace;          // trace.txt, trace.json, trace.perfetto-trace, trace.vcd; off by default
    bool plot = false;             // write plots/ (gnuplot PNG and SVG) after the run
    config::config_node resolved;  // every parameter, defaults included
};

// The workload given on the command line: the words after `--`, and the cgroup its tasks start in
// (`--cgroup PATH`, a group of the experiment; "" or "/" = the root).
struct command_workload {
    std::vector<std::string> words;
    std::string cgroup;
};

// Throws config_error for every problem in the file or the overrides (`dotted.key=value`). A non-empty
// `command` replaces the file's workloads.
experiment read_experiment(const std::string& path, const std::vector<std::string>& overrides,
                           const command_workload& command = {});

// Runs the experiment: elaborates the machine, runs the probes, prints the report to `out` and writes
// config.yaml, report.txt and one CSV per probe into `out_dir`. Returns the process exit code.
int run_experiment(const experiment& e, const std::string& out_dir, std::ostream& out, bool replace = false);

// A new dated directory under results/ (results/PREFIXYYYYMMDD-HHMMSS[-N]).
std::string default_results_dir(const std::string& prefix = "");

} // namespace warmsched::sim
