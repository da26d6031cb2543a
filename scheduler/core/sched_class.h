// The scheduling-class operations table, as the kernel's struct sched_class: the core scheduler
// (scheduler.h) calls these and never looks inside a class's queues. The built-in classes -- the fair
// server's deadline slot (dl/dl_class.h), rt, fair (CFS v5.15 or EEVDF v6.12), ext (a loaded policy,
// ext/ext_class.h) and idle -- implement it. Classes are ordered; a class earlier in the scheduler's list
// preempts the ones after it, and each task points at its class (task::sched_class, set by the core's
// setscheduler path).
#pragma once

#include "scheduler/task/task.h"

namespace warmsched::scheduler {

struct runqueue;

// enqueue/dequeue flags (kernel ENQUEUE_* / DEQUEUE_*).
enum : unsigned {
    ENQUEUE_WAKEUP = 0x01,
    ENQUEUE_RESTORE = 0x02, // sched_move_task: back where it was (with ENQUEUE_MOVE: in another group)
    ENQUEUE_MOVE = 0x04,
    ENQUEUE_HEAD = 0x10, // RT: at the head of its priority's list
    ENQUEUE_MIGRATED = 0x40,
    ENQUEUE_INITIAL = 0x80,
    ENQUEUE_DELAYED = 0x200,
    DEQUEUE_SLEEP = 0x01,
    DEQUEUE_SAVE = 0x02, // sched_move_task: off for a change, to be restored
    DEQUEUE_MOVE = 0x04,
    DEQUEUE_SPECIAL = 0x10,
    DEQUEUE_DELAYED = 0x200,
};
// wake flags (kernel WF_*).
enum : unsigned {
    WF_EXEC = 0x02,
    WF_FORK = 0x04,
    WF_TTWU = 0x08,
    WF_SYNC = 0x10,
    WF_MIGRATED = 0x20,
};

class sched_class {
public:
    virtual ~sched_class() = default;
    virtual const char* name() const = 0;

    // Who calls what: "core" is scheduler.cpp (kernel/sched/core.c); "balancer" is the fair class's load
    // balancer moving a task through scheduler::detach_task/attach_task. Every op runs with rq's clock
    // already brought to the caller's time. A class counts the tasks it queues with rq.add_nr_running /
    // rq.sub_nr_running (runqueue.h) and never writes rq.nr_running itself.

    // core (activate_task: wakeup, fork, a task present at the start, a balancer's attach, a
    // setscheduler's restore): put runnable task p on rq's queue of this class. ENQUEUE_* flags say why.
    virtual void enqueue_task(runqueue& rq, task& p, unsigned flags) = 0;
    // core (schedule() of a blocking or exiting task, setscheduler's save) and the balancer's detach:
    // take p off. Returns false when the class keeps it queued (EEVDF delayed dequeue of a sleeper).
    virtual bool dequeue_task(runqueue& rq, task& p, unsigned flags) = 0;
    // core (sched_yield()): rq's current task of this class yields.
    virtual void yield_task(runqueue& rq) = 0;
    // core (check_preempt_curr): a task of this class was woken or created on rq and rq's current task
    // is of this class too: should p preempt it? (A higher class preempts a lower one without asking.)
    virtual void check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags) = 0;
    // core (the pick loop of schedule(), in class order): the next task to run, or nullptr if this class
    // has none; it becomes rq.curr via set_next_task. `prev` is rq's current task (still curr while the
    // pick runs, as in the kernel).
    virtual task* pick_next_task(runqueue& rq, task* prev) = 0;
    // core (schedule() switching away, setscheduler of the running task): p stops being current; it
    // stays queued if still runnable.
    virtual void put_prev_task(runqueue& rq, task& p) = 0;
    // core (schedule() switching to p, setscheduler of the running task): p becomes rq's current task.
    virtual void set_next_task(runqueue& rq, task& p) = 0;
    // core (try_to_wake_up with WF_TTWU, wake_up_new_task with WF_FORK, sched_exec with WF_EXEC): the CPU
    // p should run on.
    virtual unsigned select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) = 0;
    // core (scheduler_tick): the periodic tick while p is rq's current task.
    virtual void task_tick(runqueue& rq, task& p) = 0;
    // core (sched_fork, add_initial_task): a new task was forked on rq by `parent` (nullptr: a task present
    // when the run starts); not queued yet.
    virtual void task_fork(runqueue& rq, task& p, task* parent) = 0;
    // core (try_to_wake_up placing p elsewhere) and the balancer's detach: p is moving from its rq to CPU
    // new_cpu while not queued.
    virtual void migrate_task_rq(task& p, unsigned new_cpu) = 0;
    // core (the pick loop, before any pick: from prev's class down until one returns true): pull work from
    // elsewhere before this CPU would go idle (newidle balance, RT pull, a policy's dispatch). Returns
    // true if a task of this or a higher class is runnable on rq.
    virtual bool balance(runqueue& rq, task* prev) = 0;
    // core and the classes: does rq have a runnable task of this class?
    virtual bool has_runnable(const runqueue& rq) const = 0;

    // The ops below have a default that does nothing; a class overrides the ones it needs.

    // core (try_to_wake_up, after the enqueue and the preemption check): p was woken onto rq. The RT
    // class pushes it on if it did not preempt (task_woken_rt).
    virtual void task_woken(runqueue& rq, task& p) { (void)rq, (void)p; }
    // core (schedule(), after switching to `next` of this class, next now current): the kernel's queued
    // balance callback (__balance_callbacks). The RT class pushes its other queued tasks away.
    virtual void balance_callback(runqueue& rq, task& next) { (void)rq, (void)next; }
    // core (setscheduler, p's class just set to this one, before it is queued here; v6.12's
    // check_class_changing): the per-task state the class needs that the kernel sets for every task at
    // fork (__sched_fork) and the model only for the class a task is born in -- an RR slice, an EEVDF
    // slice, a sched_ext task's init. Not a fork: what p carries from before (vruntime, lag) stays.
    virtual void switching_to(runqueue& rq, task& p) { (void)rq, (void)p; }
    // core (setscheduler, once p is back on its queues): p left this class for another one.
    virtual void switched_from(runqueue& rq, task& p) { (void)rq, (void)p; }
    // core (setscheduler): p joined this class, queued and current as before the change.
    virtual void switched_to(runqueue& rq, task& p) { (void)rq, (void)p; }
    // core (setscheduler within the class): p's priority changed from old_prio (task::prio() numbers,
    // lower is more urgent) to p.prio().
    virtual void prio_changed(runqueue& rq, task& p, int old_prio) { (void)rq, (void)p, (void)old_prio; }
};

} // namespace warmsched::scheduler
