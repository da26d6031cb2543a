// One CPU's run queue (struct rq): the current and idle tasks, the NEED_RESCHED flag, the clock, the
// fair class's queue, and the per-CPU schedstat counters printed in /proc/schedstat's cpu<N> line.
#pragma once

#include "scheduler/fair/cfs_rq.h"
#include "scheduler/task/task.h"

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
    // Tasks queued here or sleeping after last running here, not exited: fork placement's stand-in for
    // the blocked load PELT keeps (PELT itself comes with load balancing).
    unsigned nr_attached = 0;
    nsec clock = 0; // rq_clock_task: the latest time the scheduler saw on this CPU
    bool need_resched = false;
    cfs_rq cfs;
    rq_sched_stats stats;
    std::uint64_t nr_switches = 0;
    nsec idle_since = 0; // when it last went idle
    // Wakeup placement state: the average idle period (EWMA 1/8, capped at 2 x max_idle_balance_cost),
    // when the current idle period began (0: not idle), and SIS_PROP's budget of idle time.
    nsec avg_idle = 0, max_idle_balance_cost = 0, idle_stamp = 0;
    nsec wake_avg_idle = 0, wake_stamp = 0; // wake_stamp in jiffies
    unsigned idle_policy_running = 0;       // queued SCHED_IDLE tasks (a CPU running only those is "idle")


    bool is_idle() const { return curr == idle && nr_running == 0; }
};

} // namespace warmsched::scheduler
