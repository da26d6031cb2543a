// The scheduler's tunables as the kernel exposes them (the fair class's in debugfs /sys/kernel/debug/sched/*
// since v5.13, the kernel.sched_child_runs_first sysctl of v5.15, and the RT class's kernel.sched_rt_* and
// kernel.sched_rr_timeslice_ms sysctls, and kernel.sched_cfs_bandwidth_slice_us), by name, with the kernels
// that have each. Values are raw nanoseconds, as written to debugfs; tunable_scaling (0 none, 1 log, 2
// linear) re-derives the CPU-scaled defaults before explicit values are applied.
#pragma once

#include "scheduler/core/scheduler.h"

#include <string>
#include <vector>

namespace warmsched::scheduler {

struct sched_sysctl {
    const char* name;
    bool in_cfs, in_eevdf;
    long long min, max;
    const char* description;
};

inline const std::vector<sched_sysctl>& sched_sysctls() {
    static const std::vector<sched_sysctl> table = {
        {"latency_ns", true, false, 100'000, 1'000'000'000, "CFS targeted preemption latency (period)"},
        {"min_granularity_ns", true, false, 100'000, 1'000'000'000, "CFS minimum slice"},
        {"wakeup_granularity_ns", true, false, 0, 1'000'000'000, "CFS wakeup preemption granularity"},
        {"base_slice_ns", false, true, 100'000, 100'000'000, "EEVDF base slice (request size)"},
        {"migration_cost_ns", true, true, 0, 1'000'000'000, "cache-hot window of task_hot"},
        {"sched_child_runs_first", true, false, 0, 1, "a forked child runs before its parent"},
        {"sched_rt_period_us", true, true, 1, 2'147'483'647, "RT bandwidth period"},
        {"sched_rt_runtime_us", true, true, -1, 2'147'483'647,
         "RT runtime per period and CPU (-1 = no limit)"},
        {"sched_rr_timeslice_ms", true, true, 1, 2'147'483'647, "SCHED_RR timeslice"},
        {"sched_cfs_bandwidth_slice_us", true, true, 1, 2'147'483'647,
         "CFS bandwidth: runtime a CPU takes from its group's pool at a time"},
    };
    return table;
}

// Applies name=value to `c` (the value already range-checked against the table).
inline void apply_sysctl(sched_config& c, const std::string& name, long long value) {
    fair_tunables& t = c.tunables;
    const auto v = static_cast<nsec>(value);
    if (name == "latency_ns") t.latency_ns = v;
    if (name == "min_granularity_ns") t.min_granularity_ns = v;
    if (name == "wakeup_granularity_ns") t.wakeup_granularity_ns = v;
    if (name == "base_slice_ns") t.base_slice_ns = v;
    if (name == "migration_cost_ns") t.migration_cost_ns = v;
    if (name == "sched_child_runs_first") c.child_runs_first = value != 0;
    if (name == "sched_rt_period_us") c.rt.sched_rt_period_us = value;
    if (name == "sched_rt_runtime_us") c.rt.sched_rt_runtime_us = value;
    if (name == "sched_rr_timeslice_ms") c.rt.sched_rr_timeslice_ms = value;
    if (name == "sched_cfs_bandwidth_slice_us") t.cfs_bandwidth_slice_ns = v * 1000;
    if (t.min_granularity_ns > 0) t.nr_latency = static_cast<unsigned>(t.latency_ns / t.min_granularity_ns);
}

// The value of tunable `name` in `c`, as it would be written (the inverse of apply_sysctl).
inline long long sysctl_value(const sched_config& c, const std::string& name) {
    const fair_tunables& t = c.tunables;
    if (name == "latency_ns") return static_cast<long long>(t.latency_ns);
    if (name == "min_granularity_ns") return static_cast<long long>(t.min_granularity_ns);
    if (name == "wakeup_granularity_ns") return static_cast<long long>(t.wakeup_granularity_ns);
    if (name == "base_slice_ns") return static_cast<long long>(t.base_slice_ns);
    if (name == "migration_cost_ns") return static_cast<long long>(t.migration_cost_ns);
    if (name == "sched_child_runs_first") return c.child_runs_first ? 1 : 0;
    if (name == "sched_rt_period_us") return c.rt.sched_rt_period_us;
    if (name == "sched_rt_runtime_us") return c.rt.sched_rt_runtime_us;
    if (name == "sched_rr_timeslice_ms") return c.rt.sched_rr_timeslice_ms;
    if (name == "sched_cfs_bandwidth_slice_us") return static_cast<long long>(t.cfs_bandwidth_slice_ns / 1000);
    return 0;
}

} // namespace warmsched::scheduler
