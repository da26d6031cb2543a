// The real-time class (kernel/sched/rt.c): SCHED_FIFO and SCHED_RR tasks with rt_priority 1..99 (kernel
// prio 98..0), queued per CPU in a priority array. It sits between the stop class (not modelled) and the
// fair class: any queued RT task runs before any fair task, and a waking RT task preempts fair work and
// lower RT priorities at once; equal priorities never preempt. FIFO tasks run until they block or yield;
// SCHED_RR tasks get sched_rr_timeslice_ms (100 ms) and then go behind their equal-priority peers. A
// running task stays at the head of its list, so a preempted FIFO task resumes before its peers.
// RT runtime is charged to the CPU's RT bandwidth (rt_bandwidth), which throttles the class at
// sched_rt_runtime_us per sched_rt_period_us.
//
// Wakeup and fork placement is select_task_rq_rt through cpupri and find_lowest_rq (rt_placement): a
// wakee that would not preempt its previous CPU's RT task goes to a CPU running lower-priority work.
// After picking an RT task, and when a wakee queues behind an RT task, queued movable RT tasks are
// pushed to CPUs running lower-priority work (push_rt_task); a CPU whose RT priority drops pulls
// (pull_rt_task), or with RT_PUSH_IPI (the default) sends an IPI to each overloaded CPU, which pushes.
// Modelled differently: the rto mask and the pushable plist are derived on demand from the priority
// arrays, and the IPI chain's pushes happen at once, one CPU after the other, not when each IPI lands.
// An equal-priority wakee preempts only when it is pinned (or has nowhere to go) and curr can be pushed
// away (check_preempt_equal_prio). Not modelled yet: priority inheritance, sched_setscheduler at run
// time, RT group scheduling.
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_class.h"
#include "scheduler/rt/cpupri.h"
#include "scheduler/rt/rt_bandwidth.h"
#include "scheduler/rt/rt_placement.h"
#include "scheduler/rt/rt_tunables.h"

namespace warmsched::scheduler {

class scheduler;

class rt_class final : public sched_class {
public:
    explicit rt_class(scheduler& core);

    const char* name() const override { return "rt"; }
    void enqueue_task(runqueue& rq, task& p, unsigned flags) override;
    bool dequeue_task(runqueue& rq, task& p, unsigned flags) override;
    void yield_task(runqueue& rq) override;
    void check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags) override;
    task* pick_next_task(runqueue& rq, task* prev) override;
    void put_prev_task(runqueue& rq, task& p) override;
    void set_next_task(runqueue& rq, task& p) override;
    unsigned select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) override;
    void task_tick(runqueue& rq, task& p) override;
    void task_fork(runqueue& rq, task& p, task* parent) override;
    void migrate_task_rq(task& p, unsigned new_cpu) override;
    bool balance(runqueue& rq, task* prev) override;
    bool has_runnable(const runqueue& rq) const override {
        return rq.rt.rt_nr_running > 0 && !rq.rt.rt_throttled;
    }

    rt_bandwidth& bandwidth() { return bw_; }
    const cpupri& priorities() const { return cpupri_; }
    rt_placement& placement() { return placement_; }

    // push_rt_tasks: while rq has a queued, movable RT task (the highest pushable) that another CPU runs
    // only lower-priority work for, move it there (push_rt_task, up to RT_MAX_TRIES searches each).
    void push_rt_tasks(runqueue& rq);
    // task_woken_rt: p was woken onto rq behind an RT task it does not preempt (or a pinned one): push.
    void task_woken(runqueue& rq, task& p);
    // pull_rt_task: rq's priority is about to drop; take waiting RT tasks from overloaded CPUs (or, with
    // RT_PUSH_IPI, have those CPUs push to it).
    void pull_rt_task(runqueue& rq);
    // SCHED_RR's timeslice in ticks (msecs_to_jiffies(sched_rr_timeslice_ms)).
    unsigned rr_timeslice_ticks() const;

private:
    // update_curr_rt: charges rq's current RT task the time since it last was, and the CPU's RT bandwidth.
    void update_curr(runqueue& rq);
    void update_highest_prio(runqueue& rq);
    bool push_rt_task(runqueue& rq);
    // The highest-priority queued task that is not running and may run elsewhere (pushable_tasks' head).
    task* pick_next_pushable(const runqueue& rq) const;
    // The rto mask's test: more than one RT task queued and one of them pushable.
    bool overloaded(const runqueue& rq) const;

    scheduler& core_;
    const rt_tunables& tun_;
    rt_bandwidth bw_;
    cpupri cpupri_;
    rt_placement placement_;
};

} // namespace warmsched::scheduler
