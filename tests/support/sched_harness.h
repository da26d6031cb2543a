// The scheduler without SystemC, for tests of single decisions: a machine built from platform YAML (by
// default flat: 8 cores in one LLC, one node; or `smt_machine`: 4 cores x 2 threads in 2 LLCs; any other,
// e.g. two NUMA nodes, with its distance table; the tunables are those of f = 4), the scheduler with a
// kernel's defaults (feature overrides and a tweak applied), idle tasks, and helpers that make the calls
// the simulated kernel makes -- start a task, block curr, wake, tick, schedule -- at explicit nanosecond
// times. The hooks record the CPUs kicked (IPIs) and every migration with its cause.
#pragma once

#include "platforms/fabric_graph.h"
#include "scheduler/core/scheduler.h"
#include "scheduler/fair/cfs_class.h"
#include "scheduler/fair/eevdf_class.h"
#include "support/mini_platform.h"

#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace warmsched::test {

constexpr scheduler::nsec ms = 1'000'000;
constexpr scheduler::nsec us = 1'000;
constexpr std::int64_t vms = 1'000'000; // a millisecond of vruntime (signed)

struct recording_hooks final : scheduler::scheduler_hooks {
    struct migration {
        int pid;
        unsigned from, to;
        scheduler::migration_cause why;
    };
    std::vector<unsigned> kicks;
    std::vector<migration> migrations;
    void kick_cpu(unsigned cpu) override { kicks.push_back(cpu); }
    void task_migrated(const scheduler::task& p, unsigned from, unsigned to,
                       scheduler::migration_cause why) override {
        migrations.push_back({p.pid, from, to, why});
    }
};

// An 8-CPU machine without SMT: one socket, one LLC, 8 cores (the default of the harness).
inline platform::platform_params flat_machine() {
    std::string y = mini_platform_yaml();
    y.replace(y.find("{name: ccx, count: 2}"), 21, "{name: ccx, count: 1}");
    y.replace(y.find("{name: core, count: 2}"), 22, "{name: core, count: 8}");
    y.replace(y.find("threads_per_core: 2"), 19, "threads_per_core: 1");
    return platform::read_platform(config::load_yaml_text(y, "flat.yaml"));
}
// The mini platform: CPUs 0-3 are the first threads of cores 0-3, CPUs 4-7 their siblings; cores 0-1
// (CPUs 0, 1, 4, 5) share LLC 0, cores 2-3 (CPUs 2, 3, 6, 7) LLC 1.
inline platform::platform_params smt_machine() {
    return mini_platform();
}

struct sched_harness {
    recording_hooks hooks;
    platform::topology topo;
    scheduler::sched_config cfg;
    std::unique_ptr<scheduler::scheduler> s;
    std::deque<scheduler::task> idle, tasks;

    explicit sched_harness(scheduler::kernel_version k,
                           const std::vector<std::pair<std::string, bool>>& features = {},
                           const std::function<void(scheduler::sched_config&)>& tweak = {},
                           const platform::platform_params& machine = flat_machine())
        : topo(machine), cfg(scheduler::sched_config::defaults(k, topo.num_cpus())) {
        for (const auto& [name, on] : features) {
            const std::string why = cfg.features.set(name, on);
            if (!why.empty()) throw std::runtime_error(why);
        }
        if (tweak) tweak(cfg);
        const platform::fabric_graph graph(machine, topo, {});
        s = std::make_unique<scheduler::scheduler>(topo, platform::numa_distances(machine, topo, graph), cfg,
                                                   hooks);
        for (unsigned c = 0; c < topo.num_cpus(); ++c) {
            idle.emplace_back();
            idle.back().comm = "swapper/" + std::to_string(c);
            s->init_idle(idle.back(), c);
        }
    }

    scheduler::runqueue& rq(unsigned cpu = 0) { return s->rq(cpu); }
    scheduler::cfs_rq& q(unsigned cpu = 0) { return s->rq(cpu).cfs; }
    scheduler::task* curr(unsigned cpu = 0) { return s->rq(cpu).curr; }
    scheduler::cfs_class& cfs() { return dynamic_cast<scheduler::cfs_class&>(s->fair()); }
    scheduler::eevdf_class& eevdf() { return dynamic_cast<scheduler::eevdf_class&>(s->fair()); }

    // A task present from the start (add_initial_task), pinned to `cpu` unless `pin` is false.
    scheduler::task& add(const std::string& comm, unsigned cpu, scheduler::nsec now, int nice = 0,
                         scheduler::sched_policy policy = scheduler::sched_policy::normal, bool pin = true) {
        scheduler::task& t = make(comm, cpu, nice, policy, pin);
        s->add_initial_task(t, cpu, now);
        return t;
    }
    // A task object not yet known to the scheduler (for sched_fork).
    scheduler::task& make(const std::string& comm, unsigned cpu, int nice = 0,
                          scheduler::sched_policy policy = scheduler::sched_policy::normal, bool pin = true) {
        tasks.emplace_back();
        scheduler::task& t = tasks.back();
        t.pid = static_cast<int>(tasks.size());
        t.tgid = t.pid;
        t.comm = comm;
        t.policy = policy;
        t.nice = nice;
        if (pin) {
            t.allowed.assign(topo.num_cpus(), false);
            t.allowed[cpu] = true;
        }
        return t;
    }
    // schedule() on `cpu` (preempt: the current task was preempted); returns the new curr.
    scheduler::task& schedule(unsigned cpu, scheduler::nsec now, bool preempt = true) {
        return s->schedule(cpu, preempt, now);
    }
    // The current task of `cpu` blocks (sleeps) at `now`; returns the task that runs next.
    scheduler::task& block(unsigned cpu, scheduler::nsec now) {
        s->rq(cpu).curr->state = scheduler::task_state::sleeping;
        return s->schedule(cpu, false, now);
    }
    scheduler::wakeup_result wake(scheduler::task& p, unsigned from_cpu, scheduler::nsec now,
                                  unsigned flags = 0) {
        return s->try_to_wake_up(p, from_cpu, flags, now);
    }
    // The tick at `now`; a NEED_RESCHED it (or anything before it) set is acted on at once. Returns
    // whether a reschedule happened.
    bool tick(unsigned cpu, scheduler::nsec now) {
        s->scheduler_tick(cpu, now);
        if (!s->need_resched(cpu)) return false;
        s->schedule(cpu, true, now);
        return true;
    }
    // Ticks of `cpu` at every multiple of the tick period in (from, to].
    void ticks(unsigned cpu, scheduler::nsec from, scheduler::nsec to) {
        const scheduler::nsec period = cfg.tick_ns();
        for (scheduler::nsec t = (from / period + 1) * period; t <= to; t += period) tick(cpu, t);
    }
};

} // namespace warmsched::test
