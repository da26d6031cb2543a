// CFS bandwidth control (kernel/sched/fair.c, reference/scheduler/06-bandwidth-throttle.md): each
// group with a cpu.max quota has a global pool refilled every period (up to quota + burst) from which
// the CPUs' run queues take 5 ms slices (sched_cfs_bandwidth_slice_us) into their local
// runtime_remaining; running charges every quota level of the running task's hierarchy; a level whose
// local runtime is spent and cannot get more is throttled; the period timer refills the pool and
// distributes it to the throttled queues in list order; a queue that empties returns its runtime above
// 1 ms to the pool and may arm the 5 ms slack timer. cpu.stat's nr_periods, nr_throttled,
// throttled_usec, nr_bursts and burst_usec are counted as the kernel counts them.
//
// Two throttle models (feature TASK_BASED_THROTTLE):
//  - per-cfs_rq (v5.15, v6.12): throttling takes the whole group's queue off the CPU at once: the
//    fair class dequeues the group's entity (fair_class::throttle_cfs_rq) while its tasks stay queued
//    in it, the running one leaving at its next schedule, even mid-syscall; the subtree's queues stop
//    their PELT clocks (throttle_count); a wakeup into a throttled hierarchy queues the task there;
//    unthrottle enqueues the group entity again.
//  - task-based (v6.18): the throttled queue stays; a task picked in a throttled hierarchy gets the
//    throttle task work and runs on in the kernel (charging debt); on its return to user mode
//    (scheduler::return_to_user, called by the simulated kernel) it is dequeued onto the limbo list;
//    throttled time starts at the first limbo entry; unthrottle enqueues the limbo tasks. A throttled
//    queue's PELT clock stops once it is empty (fair_class::pelt_clock_emptied).
// Load balancing: THROTTLED_LB_PAIR refuses a task whose hierarchy is throttled on the source or the
// destination CPU; LB_THROTTLED_DEST (the v6.18 follow-up) refuses a throttled destination only.
//
// Timers: the period and slack hrtimers are kept here as expiry times; the scheduler asks the
// simulated kernel for an interrupt at the earliest (scheduler_hooks::arm_sched_timer) and also runs
// due timers from any tick, so a rig without timer interrupts still gets them at tick granularity.
// Periods are aligned to multiples of the period from the start of the run (hrtimer_forward_now from
// expiry 0). Left out: cgroup v1 files, cpu.stat.local.
#pragma once

#include "scheduler/group/cgroup_tree.h"
#include "scheduler/task/task.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace warmsched::scheduler {

class scheduler;
struct runqueue;

// The bandwidth state of one group's cfs_rq on one CPU.
struct cfs_rq_runtime {
    std::int64_t runtime_remaining = 0;
    bool throttled = false;     // throttled at this level
    bool clock_started = false; // throttled_clock is set (task-based: from the first limbo entry)
    nsec throttled_clock = 0;
    unsigned h_nr_running = 0; // tasks of the group's subtree queued on this CPU's fair queue
    bool csd_pending = false;  // v6.12: its unthrottle waits for this CPU to take the CSD IPI
};

// struct cfs_bandwidth of one group with a quota.
struct cfs_bandwidth {
    std::int64_t quota = 0, period = 0, burst = 0;
    std::int64_t runtime = 0, runtime_snap = 0; // the global pool
    bool idle = false, period_active = false, slack_started = false;
    nsec period_expiry = 0, slack_expiry = 0;
    std::vector<unsigned> throttled_cpus; // throttled_cfs_rq, in throttle order
    std::vector<cfs_rq_runtime> cpu;      // per CPU
    std::uint64_t nr_periods = 0, nr_throttled = 0, nr_burst = 0;
    nsec throttled_time = 0, burst_time = 0;
};

class cfs_bandwidth_control {
public:
    explicit cfs_bandwidth_control(scheduler& core);

    // (Re)builds the pools of the groups with a quota (scheduler::set_cgroups).
    void build();
    bool active() const { return !pools_.empty(); }

    // update_curr: `delta` of p's run time on rq charged to p's quota levels.
    void account(runqueue& rq, task& p, nsec delta);
    // p joined / left rq's fair queue: its levels' task counts; a level that empties returns slack.
    void task_enqueued(runqueue& rq, const task& p);
    void task_dequeued(runqueue& rq, const task& p);
    // Before p is enqueued on rq (per-cfs_rq model): an empty level without runtime throttles
    // (check_enqueue_throttle).
    void check_enqueue_throttle(runqueue& rq, const task& p);
    // schedule() on rq, before the pick: check_cfs_rq_runtime on prev's levels (put_prev_entity).
    void check_prev(runqueue& rq, task& prev);
    // After the pick (task-based model): a task picked in a throttled hierarchy gets the task work.
    void picked(runqueue& rq, task& next);
    // Task-based model: rq's current task returns to user mode with the task work pending.
    void return_to_user(runqueue& rq, task& p);
    // cgroup.procs: p, on a limbo list (task-based model), moves to group g: it is enqueued afresh.
    void move_parked(runqueue& rq, task& p, group_id g);

    bool throttled_hierarchy(const task& p, unsigned cpu) const;
    // p cannot run because of a throttle: on a limbo list, or queued in a throttled hierarchy
    // (per-cfs_rq model).
    bool task_throttled(const task& p) const;
    // The levels of group g's hierarchy throttled on `cpu` (throttle_count), and g's own state.
    unsigned throttle_count(group_id g, unsigned cpu) const;
    const cfs_rq_runtime* state(group_id g, unsigned cpu) const;
    const cfs_bandwidth* pool(group_id g) const {
        return g < index_.size() && index_[g] >= 0 ? &pools_[index_[g]] : nullptr;
    }
    // Wakeup preemption ignores a task in a throttled hierarchy -- per-cfs_rq model only: the v6.18
    // follow-up "do not special case tasks in throttled hierarchy" lets such a task preempt, since it
    // may run until its return to user mode.
    bool ignore_wakeup(const task& p, unsigned cpu) const {
        return p.throttled || (!task_based() && throttled_hierarchy(p, cpu));
    }
    // Load balancing may not move p from src to dst (THROTTLED_LB_PAIR, LB_THROTTLED_DEST).
    bool lb_refuses(const task& p, unsigned src, unsigned dst) const;

    // v6.12 unthrottles a remote CPU's queue asynchronously (unthrottle_cfs_rq_async): the timer's
    // CPU sends an IPI and that CPU unthrottles when it takes it (__cfsb_csd_unthrottle). v5.15
    // unthrottles every CPU's queue from the timer at once.
    bool csd_pending(unsigned cpu) const { return cpu < csd_.size() && !csd_[cpu].empty(); }
    void run_csd(unsigned cpu, nsec now);
    // The period and slack timers: the earliest expiry, and the work of every timer due at `now`.
    nsec next_timer() const { return next_; }
    void run_timers(unsigned cpu, nsec now);

    bool task_based() const; // TASK_BASED_THROTTLE

private:
    cfs_bandwidth& bw(group_id g) { return pools_[index_[g]]; }
    bool assign_runtime(cfs_bandwidth& b, cfs_rq_runtime& rt, std::int64_t target, nsec now);
    bool throttle(group_id g, unsigned cpu, nsec now);
    void unthrottle(group_id g, unsigned cpu, nsec now);
    void park(runqueue& rq, task& p);
    void throttle_down(group_id g, unsigned cpu, nsec now);
    void throttle_up(group_id g, unsigned cpu, nsec now);
    void start_period_timer(cfs_bandwidth& b, nsec now);
    void start_slack_timer(cfs_bandwidth& b, nsec now);
    bool refresh_within(const cfs_bandwidth& b, nsec now, nsec within) const;
    bool period_timer(group_id g, std::uint64_t overrun, nsec now); // true: deactivate
    void distribute(group_id g, nsec now);
    void update_next_timer();

    scheduler& core_;
    std::vector<int> index_; // group -> pool, -1 without a quota
    std::vector<cfs_bandwidth> pools_;
    std::vector<group_id> pool_group_;       // pool -> group
    std::vector<std::vector<task*>> parked_; // per CPU: the task-based model's limbo lists
    std::vector<std::vector<group_id>> csd_; // per CPU: groups whose unthrottle waits for its IPI
    nsec next_ = std::numeric_limits<nsec>::max();
    nsec armed_ = std::numeric_limits<nsec>::max();
};

} // namespace warmsched::scheduler
