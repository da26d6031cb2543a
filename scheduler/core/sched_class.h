// The scheduling-class operations table, as the kernel's struct sched_class: the core scheduler
// (scheduler.h) calls these and never looks inside a class's queues. The built-in classes -- fair (CFS
// v5.15 or EEVDF v6.12), rt and idle -- implement it, and so can a user's own policy. Classes are ordered;
// a class earlier in the scheduler's list preempts the ones after it.
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

    // Put a runnable task on rq's queue of this class.
    virtual void enqueue_task(runqueue& rq, task& p, unsigned flags) = 0;
    // Take it off. Returns false when the class keeps it queued (EEVDF delayed dequeue of a sleeper).
    virtual bool dequeue_task(runqueue& rq, task& p, unsigned flags) = 0;
    // sched_yield() by rq's current task.
    virtual void yield_task(runqueue& rq) = 0;
    // A task of this class was woken or created on rq: should it preempt rq's current task (same class)?
    virtual void check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags) = 0;
    // The next task to run, or nullptr if this class has none; it becomes rq.curr via set_next_task.
    // `prev` is rq's current task (still curr while the pick runs, as in the kernel).
    virtual task* pick_next_task(runqueue& rq, task* prev) = 0;
    // The current task stops being current (it stays queued if still runnable).
    virtual void put_prev_task(runqueue& rq, task& p) = 0;
    virtual void set_next_task(runqueue& rq, task& p) = 0;
    // The CPU a waking (WF_TTWU) or new (WF_FORK) task should run on.
    virtual unsigned select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) = 0;
    // The periodic tick while p is current.
    virtual void task_tick(runqueue& rq, task& p) = 0;
    // A new task was forked on rq by `parent` (nullptr: a task present when the run starts); not queued.
    virtual void task_fork(runqueue& rq, task& p, task* parent) = 0;
    // p is moving from its rq to CPU new_cpu while not queued (a waking task placed elsewhere).
    virtual void migrate_task_rq(task& p, unsigned new_cpu) = 0;
    // Before picking on a CPU about to go idle: pull work from elsewhere (newidle balance). Returns
    // true if a task of this or a higher class became runnable on rq.
    virtual bool balance(runqueue& rq, task* prev) = 0;
    // Does rq have a runnable task of this class?
    virtual bool has_runnable(const runqueue& rq) const = 0;
};

} // namespace warmsched::scheduler
