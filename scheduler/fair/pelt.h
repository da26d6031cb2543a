// Per-entity load tracking (kernel/sched/pelt.c): time is cut into 1024 ns periods (the kernel's
// "1 us"); each older period counts y times the next, with y^32 = 1/2 (32 ms half-life). An entity
// accumulates its weight while runnable (load), 1 while runnable (runnable) and 1 while running
// (util), each scaled to 1024; the average is the sum over the geometric series' maximum,
// LOAD_AVG_MAX = 47742. A run queue's averages are the sums of its entities', with sleeping entities'
// contributions decaying in place. Frequency and capacity invariance are left out (every CPU runs at
// capacity 1024), and so is the clock_pelt idle-time compensation.
#pragma once

#include <cstdint>

namespace warmsched::scheduler {

constexpr std::uint32_t pelt_period_ns = 1024;
constexpr std::uint32_t load_avg_period = 32;
constexpr std::uint32_t load_avg_max = 47742;
constexpr unsigned capacity_shift = 10; // SCHED_CAPACITY_SHIFT: capacity 1024

struct sched_avg {
    std::uint64_t last_update_time = 0; // ns
    bool attached = false;              // part of a queue's sums (the kernel marks "not attached" as time 0)
    std::uint64_t load_sum = 0;
    std::uint64_t runnable_sum = 0;
    std::uint64_t util_sum = 0;
    std::uint32_t period_contrib = 0;
    std::uint64_t load_avg = 0;
    std::uint64_t runnable_avg = 0;
    std::uint64_t util_avg = 0;
    // util_est (tasks): the task's util when it last went to sleep, and its EWMA (1/4).
    std::uint64_t util_est_enqueued = 0, util_est_ewma = 0;
};

// val * y^n.
std::uint64_t pelt_decay(std::uint64_t val, std::uint64_t n);
// Brings the sums to `now`: `load` (weight, or 0 when not queued), `runnable` (count), `running`.
// Returns true when at least one period boundary was crossed (the averages need recomputing).
bool pelt_update_sum(std::uint64_t now, sched_avg& sa, std::uint64_t load, std::uint64_t runnable,
                     bool running);
// Recomputes the averages from the sums; `load` is the weight the load sum is scaled by (1 for a
// queue, whose load sum already carries weights).
void pelt_update_avg(sched_avg& sa, std::uint64_t load);
// The divider of the averages: LOAD_AVG_MAX - 1024 + period_contrib.
inline std::uint64_t pelt_divider(const sched_avg& sa) {
    return load_avg_max - 1024 + sa.period_contrib;
}

} // namespace warmsched::scheduler
