// The idle class (kernel/sched/idle.c): each CPU's idle task, picked when no other class has work. It is
// never queued, never preempts, and is preempted by any wakeup of another class.
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_class.h"

namespace warmsched::scheduler {

class idle_class final : public sched_class {
public:
    const char* name() const override { return "idle"; }
    void enqueue_task(runqueue&, task&, unsigned) override {}
    bool dequeue_task(runqueue&, task&, unsigned) override { return true; }
    void yield_task(runqueue&) override {}
    void check_preempt_curr(runqueue&, task&, unsigned) override {}
    task* pick_next_task(runqueue& rq, task*) override { return rq.idle; }
    void put_prev_task(runqueue&, task&) override {}
    void set_next_task(runqueue& rq, task&) override { rq.idle_since = rq.clock; }
    unsigned select_task_rq(task& p, unsigned, unsigned) override { return p.cpu; }
    void task_tick(runqueue&, task&) override {}
    void task_fork(runqueue&, task&, task*) override {}
    void migrate_task_rq(task&, unsigned) override {}
    bool balance(runqueue&, task*) override { return false; }
    bool has_runnable(const runqueue&) const override { return true; }
};

} // namespace warmsched::scheduler
