// The RT class's sysctls (kernel.sched_rt_period_us, kernel.sched_rt_runtime_us,
// kernel.sched_rr_timeslice_ms), with the defaults both modelled kernels ship: RT tasks may use 950 ms
// of each 1 s period on each CPU (runtime -1 = no limit), and SCHED_RR tasks get 100 ms timeslices.
#pragma once

#include <cstdint>

namespace warmsched::scheduler {

struct rt_tunables {
    std::int64_t sched_rt_period_us = 1'000'000;
    std::int64_t sched_rt_runtime_us = 950'000; // -1: RUNTIME_INF, no throttling
    std::int64_t sched_rr_timeslice_ms = 100;

    bool unlimited() const { return sched_rt_runtime_us < 0; }
    std::uint64_t period_ns() const { return static_cast<std::uint64_t>(sched_rt_period_us) * 1000; }
    std::uint64_t runtime_ns() const { return static_cast<std::uint64_t>(sched_rt_runtime_us) * 1000; }
    std::uint64_t rr_timeslice_ns() const {
        return static_cast<std::uint64_t>(sched_rr_timeslice_ms) * 1'000'000;
    }
};

} // namespace warmsched::scheduler
