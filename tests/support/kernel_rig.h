// A machine with the simulated kernel on it, for scheduler and workload tests: the mini platform (8
// CPUs, f = 4 as on any machine with 8 or more CPUs) or a shipped one, either kernel, feature and
// sysctl overrides, and helpers to start tasks from op lists.
#pragma once

#include "scheduler/core/scheduler.h"
#include "support/mini_platform.h"
#include "workloads/kernel/cpu_executor.h"
#include "workloads/kernel/scripted_program.h"
#include "workloads/kernel/sim_kernel.h"

#include <memory>
#include <string>
#include <vector>

namespace warmsched::test {

inline scheduler::sched_config rig_config(scheduler::kernel_version k,
                                          const std::vector<std::pair<std::string, bool>>& features = {}) {
    auto c = scheduler::sched_config::defaults(k, 8);
    for (const auto& [name, on] : features) {
        const std::string why = c.features.set(name, on);
        if (!why.empty()) throw std::runtime_error(why);
    }
    return c;
}

struct kernel_rig {
    models::machine m;
    workloads::sim_kernel k;
    explicit kernel_rig(const scheduler::sched_config& cfg, std::uint64_t seed = 1)
        : m("system", mini_platform(), {}), k("kernel", m, cfg, seed) {}
    kernel_rig(const platform::platform_params& p, const scheduler::sched_config& cfg, std::uint64_t seed = 1)
        : m("system", p, {}), k("kernel", m, cfg, seed) {}

    static std::vector<bool> only(unsigned cpu, unsigned n = 8) {
        std::vector<bool> a(n, false);
        a[cpu] = true;
        return a;
    }
    // A task running `ops` (loops < 0: forever) on `cpu`, pinned there when `pin`.
    workloads::kernel_task& start(const std::string& comm, std::vector<workloads::op> ops, long loops,
                                  unsigned cpu, bool pin = true, int nice = 0,
                                  scheduler::sched_policy policy = scheduler::sched_policy::normal) {
        workloads::spawn_spec s;
        s.comm = comm;
        s.nice = nice;
        s.policy = policy;
        if (pin) s.allowed = only(cpu, m.num_cpus());
        s.body = std::make_shared<workloads::scripted_program>(std::move(ops), loops);
        return k.spawn(s, cpu);
    }
    // A CPU hog: compute forever (no memory accesses).
    workloads::kernel_task& hog(const std::string& comm, unsigned cpu, int nice = 0,
                                scheduler::sched_policy policy = scheduler::sched_policy::normal) {
        return start(comm, {workloads::op::compute(1'000'000'000, nullptr)}, -1, cpu, true, nice, policy);
    }
    double seconds(const workloads::kernel_task& t) const { return t.t.se.sum_exec_runtime / 1e9; }
};

// Simulates up to absolute time `t`.
inline void run_to(kernel_rig& r, scheduler::nsec t) {
    if (t > r.k.now()) r.k.run(t - r.k.now());
}
// a's share of the CPU time the two tasks got.
inline double share(const workloads::kernel_task& a, const workloads::kernel_task& b) {
    return static_cast<double>(a.t.se.sum_exec_runtime) /
           static_cast<double>(a.t.se.sum_exec_runtime + b.t.se.sum_exec_runtime);
}
// Mean length of a task's runs on the CPU: its runtime over the times it was switched in.
inline double mean_stint_ms(const scheduler::task& t) {
    return static_cast<double>(t.se.sum_exec_runtime) / 1e6 / static_cast<double>(t.stats.pcount);
}

} // namespace warmsched::test
