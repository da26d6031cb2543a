// The deadline class's place in the class list (kernel/sched/deadline.c), holding what of it is modelled:
// the v6.12 fair server (dl/fair_server.h). While the server serves a CPU, its pick is the fair class's
// pick, ahead of the RT class, as the kernel's dl_server entity is picked before RT tasks. No task is of
// this class: SCHED_DEADLINE tasks are not modelled (they are refused at the policy parsers), so the
// task ops never see a task; they are here because every class has the full table.
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_class.h"
#include "scheduler/dl/fair_server.h"

namespace warmsched::scheduler {

class dl_class final : public sched_class {
public:
    // `fair` is the class the server runs; `server` is null under CFS (v5.15 has no fair server).
    dl_class(sched_class& fair, const fair_server* server) : fair_(fair), server_(server) {}
    const char* name() const override { return "dl"; }
    void enqueue_task(runqueue&, task&, unsigned) override {}
    bool dequeue_task(runqueue&, task&, unsigned) override { return true; }
    void yield_task(runqueue&) override {}
    void check_preempt_curr(runqueue&, task&, unsigned) override {}
    // pick_task_dl -> dl_server's pick: the fair class's next task while the server serves this CPU.
    task* pick_next_task(runqueue& rq, task* prev) override {
        return serving(rq) && fair_.has_runnable(rq) ? fair_.pick_next_task(rq, prev) : nullptr;
    }
    void put_prev_task(runqueue&, task&) override {}
    void set_next_task(runqueue&, task&) override {}
    unsigned select_task_rq(task& p, unsigned, unsigned) override { return p.cpu; }
    void task_tick(runqueue&, task&) override {}
    void task_fork(runqueue&, task&, task*) override {}
    void migrate_task_rq(task&, unsigned) override {}
    bool balance(runqueue&, task*) override { return false; }
    // No task of its own is ever runnable (the served fair tasks are the fair class's).
    bool has_runnable(const runqueue&) const override { return false; }
    bool serving(const runqueue& rq) const { return server_ && server_->serving(rq.cpu); }

private:
    sched_class& fair_;
    const fair_server* server_;
};

} // namespace warmsched::scheduler
