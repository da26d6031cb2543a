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
// "Overloaded" is the rto mask's test (more than one RT task, one of them movable); the model flag
// RT_OVERLOAD_PUSH off goes back to the run-queue depth (rt_nr_running > 1) that a puller learns by reading
// every other CPU's run queue. The run queues of other CPUs these paths read are listed in the scheduler's
// rt_rq_reads for the kernel to read through the caches (the IPI chain's pushes are listed for the CPU
// that started the chain).
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

#include <array>
#include <cstdint>

namespace warmsched::scheduler {

class scheduler;

// What the RT class did in a run, for the run summary (the kernel has no RT schedstat fields; these are
// what its sched_migrate_task and ipi tracepoints would show).
struct rt_counters {
    // Where a woken RT task was placed, against the CPU it last ran on.
    enum where { same_cpu, same_core, same_llc, same_socket, other_socket, num_where };
    std::uint64_t wakeups = 0;
    std::array<std::uint64_t, num_where> woke{};
    std::uint64_t pushes = 0, pulls = 0;                     // tasks moved by push_rt_task / pull_rt_task
    std::uint64_t pushes_cross_llc = 0, pulls_cross_llc = 0; // ... to a CPU of another LLC
    std::uint64_t push_ipis = 0;                             // RT_PUSH_IPI: IPIs to overloaded CPUs
};

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
    // A task joining the class has the RR slice __sched_fork gives every task, unless it has one left
    // from an earlier stint (task_tick_rt never leaves it at 0).
    void switching_to(runqueue& rq, task& p) override;
    void migrate_task_rq(task& p, unsigned new_cpu) override;
    bool balance(runqueue& rq, task* prev) override;
    bool has_runnable(const runqueue& rq) const override {
        return rq.rt.rt_nr_running > 0 && !rq.rt.rt_throttled;
    }

    rt_bandwidth& bandwidth() { return bw_; }
    nsec bandwidth_next_period() const { return bw_.next_period(); }
    const rt_counters& counters() const { return counters_; }
    // try_to_wake_up placed RT task p, which last ran on `prev`, on `cpu`.
    // try_to_wake_up placed an RT task that last ran on `prev` on `cpu` (select_task_rq with WF_TTWU).
    void count_wakeup(unsigned prev, unsigned cpu);
    rt_counters::where where_is(unsigned from, unsigned to) const;
    const cpupri& priorities() const { return cpupri_; }
    rt_placement& placement() { return placement_; }

    // push_rt_tasks: while rq has a queued, movable RT task (the highest pushable) that another CPU runs
    // only lower-priority work for, move it there (push_rt_task, up to RT_MAX_TRIES searches each).
    void push_rt_tasks(runqueue& rq);
    // task_woken_rt: p was woken onto rq behind an RT task it does not preempt (or a pinned one): push.
    void task_woken(runqueue& rq, task& p) override;
    // The balance callback after switching to an RT task: push_rt_tasks.
    void balance_callback(runqueue& rq, task&) override { push_rt_tasks(rq); }
    // switched_to_rt: a queued task joining the class may preempt, and overloads push; switched_from_rt:
    // the CPU pulls if no RT task is left on it; prio_changed_rt: a running task whose priority dropped
    // pulls and reschedules if a more urgent one is queued here, a queued one may preempt.
    void switched_to(runqueue& rq, task& p) override;
    void switched_from(runqueue& rq, task& p) override;
    void prio_changed(runqueue& rq, task& p, int old_prio) override;
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
    rt_counters counters_;
};

} // namespace warmsched::scheduler
