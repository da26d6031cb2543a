// The fair class's time tunables and how the kernel scales them with the number of CPUs
// (sched_update_scaling, tunable_scaling = LOG): f = 1 + ilog2(min(ncpus, 8)). CFS (v5.15) uses
// latency, min_granularity and wakeup_granularity; EEVDF (v6.12) uses base_slice. All in nanoseconds.
#pragma once

#include <algorithm>
#include <cstdint>

namespace warmsched::scheduler {

struct fair_tunables {
    std::uint64_t latency_ns = 6'000'000;            // sched_latency (v5.15)
    std::uint64_t min_granularity_ns = 750'000;      // v5.15
    std::uint64_t wakeup_granularity_ns = 1'000'000; // v5.15
    std::uint64_t base_slice_ns = 750'000;           // v6.12
    std::uint64_t migration_cost_ns = 500'000;       // not scaled
    unsigned nr_latency = 8;                         // latency / min_granularity
    unsigned nr_migrate = 32; // sysctl_sched_nr_migrate: tasks one balance pass examines
    // What a balance pass costs the CPU running it (an estimate, docs/kernel.md "Load balancing"): a fixed
    // part per load_balance() call, plus one per run queue whose statistics or tasks it reads.
    std::uint64_t lb_pass_cost_ns = 1'000;
    std::uint64_t lb_rq_cost_ns = 250;
    // CFS bandwidth control: the runtime a CPU's queue takes from its group's pool at a time
    // (sysctl kernel.sched_cfs_bandwidth_slice_us, 5000 us; not scaled).
    std::uint64_t cfs_bandwidth_slice_ns = 5'000'000;

    // 1, 2, 2, 3, 3, 3, 3, 4 for 1-8 CPUs, 4 beyond.
    static unsigned scaling_factor(unsigned ncpus) {
        unsigned n = std::max(1u, std::min(ncpus, 8u)), log = 0;
        while (n >>= 1) ++log;
        return 1 + log;
    }
    // The kernel's defaults for a machine with `ncpus` online CPUs. `scaling`: tunable_scaling, 0 none
    // (f = 1), 1 log (the default), 2 linear (f = min(ncpus, 8)).
    static fair_tunables defaults(unsigned ncpus, unsigned scaling = 1) {
        const unsigned f = scaling == 0   ? 1
                           : scaling == 2 ? std::max(1u, std::min(ncpus, 8u))
                                          : scaling_factor(ncpus);
        fair_tunables t;
        t.latency_ns *= f;
        t.min_granularity_ns *= f;
        t.wakeup_granularity_ns *= f;
        t.base_slice_ns *= f;
        return t;
    }
};

} // namespace warmsched::scheduler
