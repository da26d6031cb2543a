// What every workload run prints after the tools' own output: where and how it ran (platform, kernel,
// seed, simulated vs wall time), and what the scheduler and the caches did -- context switches,
// migrations, wakeups, IPIs, CPU time, and memory accesses by the level that served them (with the
// misses per cache level). The same counters go to the stats registry (stats.txt, stats.json).
#pragma once

#include "base/stats/stats_group.h"
#include "models/system/machine.h"
#include "workloads/kernel/sim_kernel.h"

#include <ostream>

namespace warmsched::sim {

struct run_totals {
    std::uint64_t switches = 0, voluntary = 0, involuntary = 0, migrations = 0;
    std::uint64_t wakeups = 0, wakeups_remote = 0, wakeups_sync = 0, forks = 0;
    std::uint64_t ipis = 0, idle_exits = 0, ticks = 0;
    std::vector<std::uint64_t> idle_state_usage, idle_state_ns; // per cpuidle state, all CPUs
    std::uint64_t core_flushes = 0;
    std::uint64_t wakeups_affine = 0, affine_attempts = 0;
    // Load balancing, summed over every CPU's domains, per idle type (idle, busy, newly idle).
    std::array<std::uint64_t, 3> lb_count{}, lb_gained{}, lb_failed{};
    std::uint64_t alb_pushed = 0;
    double user_s = 0, busy_s = 0, idle_s = 0;
    std::array<std::uint64_t, static_cast<int>(models::mem_source::count)> accesses{};
    std::uint64_t total_accesses = 0;
    static run_totals of(const workloads::sim_kernel& k, models::machine& m);
};

// Deterministic: the same configuration and seed print the same bytes (wall-clock time is not in it).
void print_run_summary(std::ostream& out, const workloads::sim_kernel& k, models::machine& m, double sim_s,
                       std::uint64_t seed);
// The run's stats into the registry (base/stats): simSeconds, the kernel's counters (kernel.*, with
// the cost-of-migration tracker's when it ran), each CPU's (system.cpuN) and every model's own group.
void add_run_stats(stats::group& root, const workloads::sim_kernel& k, models::machine& m, double sim_s);

} // namespace warmsched::sim
