// One CPU's run queue (struct rq): the current and idle tasks, the NEED_RESCHED flag, the clock, the
// fair and RT classes' queues, and the per-CPU schedstat counters printed in /proc/schedstat's cpu<N> line.
#pragma once

#include "scheduler/fair/cfs_rq.h"
#include "scheduler/fair/cfs_tasks.h"
#include "scheduler/group/group_rq.h"
#include "scheduler/rt/rt_rq.h"
#include "scheduler/task/task.h"

#include <memory>
#include <vector>

namespace warmsched::scheduler {

// The cpu<N> line of /proc/schedstat (version 15/16/17 share it).
struct rq_sched_stats {
    std::uint64_t yld_count = 0, sched_count = 0, sched_goidle = 0;
    std::uint64_t ttwu_count = 0, ttwu_local = 0;
    nsec rq_cpu_time = 0, run_delay = 0;
    std::uint64_t pcount = 0;
};

struct runqueue {
    unsigned cpu = 0;
    task* curr = nullptr;
    task* idle = nullptr;
    unsigned nr_running = 0; // tasks queued in all classes, curr included
    nsec clock = 0;          // rq_clock_task: the latest time the scheduler saw on this CPU
    bool need_resched = false;
    cfs_rq cfs;
    rt_rq rt;
    // Group scheduling: the task groups' queues and entities on this CPU, by group (null until used),
    // and the allocated ones deepest first (the kernel's leaf cfs_rq list, walked by blocked updates).
    std::vector<std::unique_ptr<group_sched>> tg;
    std::vector<cfs_rq*> leaf_cfs_rqs;
    rq_sched_stats stats;
    std::uint64_t nr_switches = 0;
    nsec idle_since = 0; // when it last went idle
    // Wakeup placement state: the average idle period (EWMA 1/8, capped at 2 x max_idle_balance_cost),
    // when the current idle period began (0: not idle), and SIS_PROP's budget of idle time.
    nsec avg_idle = 0, max_idle_balance_cost = 0, idle_stamp = 0;
    nsec wake_avg_idle = 0, wake_stamp = 0; // wake_stamp in jiffies
    unsigned idle_policy_running = 0;       // queued SCHED_IDLE tasks (a CPU running only those is "idle")

    // Load balancing (fair/load_balance, fair/balance_triggers).
    task_list cfs_tasks;                 // queued fair tasks, most recently run first
    unsigned long cpu_capacity = 1024;   // capacity_of(): the original capacity less RT/IRQ pressure
    unsigned long capacity_pressure = 0; // capacity RT/IRQ work takes (set through a test hook)
    nsec next_balance = 0;               // jiffy at which the periodic balance is due
    bool active_balance = false;         // a stopper push to push_cpu is pending on this CPU
    unsigned push_cpu = 0;
    task* exec_push = nullptr; // sched_exec: the stopper moves this task to exec_cpu
    unsigned exec_cpu = 0;
    unsigned nohz_idle_balance = 0; // NOHZ_*_KICK flags: this idle CPU balances for the idle CPUs
    bool nohz_tick_stopped = false; // in nohz.idle_cpus_mask (tickless idle)
    bool llc_nohz_idle = false;     // counted out of its LLC's nr_busy_cpus
    bool has_blocked_load = false;  // idle, with PELT load still to decay
    nsec last_blocked_load_update_tick = 0;
    // Balancer work this CPU did and the kernel has not charged yet (take_balance_cost).
    nsec balance_cost_ns = 0;
    unsigned balance_migrations = 0, balance_switches = 0;

    bool is_idle() const { return curr == idle && nr_running == 0; }

    // add_nr_running / sub_nr_running (kernel/sched/sched.h): every class counts the tasks it puts on or
    // takes off this CPU through these two and never writes nr_running itself. Called from the classes'
    // enqueue_task/dequeue_task and from the paths that move whole queues (CFS bandwidth's throttle and
    // unthrottle, the RT class's throttling of its top queue). The core reads the count for is_idle, the
    // balancers and the root domain's overload flag (scheduler::activate_task).
    void add_nr_running(unsigned count) { nr_running += count; }
    void sub_nr_running(unsigned count) { nr_running -= count; }
};

// cfs_rq_of(se): the queue `se` is (to be) queued on; `rq` is the run queue of se's CPU, whose root
// queue is meant by a null se.cfs_rq (a task of the root group).
inline cfs_rq& cfs_rq_of(runqueue& rq, const sched_entity& se) {
    return se.cfs_rq ? *se.cfs_rq : rq.cfs;
}
inline const cfs_rq& cfs_rq_of(const runqueue& rq, const sched_entity& se) {
    return se.cfs_rq ? *se.cfs_rq : rq.cfs;
}

} // namespace warmsched::scheduler
