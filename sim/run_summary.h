// What every workload run prints after the tools' own output: where and how it ran (platform, kernel,
// seed, simulated vs wall time), and what the scheduler and the caches did -- context switches,
// migrations, wakeups, IPIs, CPU time, and memory accesses by the level that served them (with the
// misses per cache level). The same counters go to the stats registry (stats.txt, stats.json).
#pragma once

#include "base/stats/stats_group.h"
#include "models/system/machine.h"
#include "workloads/kernel/sim_kernel.h"

#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

// What the summary says of the run itself: none of it is a stat.
struct run_header {
    std::string platform;
    unsigned cpus = 0;
    std::string kernel; // "EEVDF (Linux v6.12)"
    unsigned hz = 0;
    std::uint64_t seed = 0;
    std::vector<std::string> idle_states; // the platform's cpuidle states, when it lists more than one
    unsigned fast_forward = 1;            // 1 in N accesses simulated when above 1
    static run_header of(const workloads::sim_kernel& k, const models::machine& m, std::uint64_t seed);
};

// The run's stats into the registry (base/stats): simSeconds, the kernel's counters (kernel.*, with
// the cost-of-migration tracker's when it ran), each CPU's (system.cpuN) and every model's own group.
// `warmup_s` > 0: the run has a measurement window after that warm-up (stats_window.h), and the root's
// warmupSeconds says so; `sim_s` is still the simulated time so far (the window subtracts).
void add_run_stats(stats::group& root, const workloads::sim_kernel& k, models::machine& m, double sim_s,
                   double warmup_s = 0);
// The summary, read from that registry (a window's, after a warm-up): each figure it prints is a stat of
// stats.txt. Deterministic: the same configuration and seed print the same bytes (wall-clock time is not
// in it).
void print_run_summary(std::ostream& out, const run_header& h, const stats::group& registry);

} // namespace warmsched::sim
