// The fair class as Linux v5.15 runs it (CFS), from reference/scheduler/01-fair-cfs.md:
//
//   period = latency, or nr * min_granularity past nr_latency   slice = period * w / load (>= min_gran)
//   enqueue on wakeup: v = max(v, min_vruntime - latency/2)     fork: v = max(v_parent, min_v + vslice)
//   pick: leftmost vruntime, unless skip/last/next buddy is within wakeup_gran of it
//   wakeup preempts if curr.v - p.v > wakeup_gran * 1024 / w_p  tick preempts past the slice
//
// vruntime is kept relative to min_vruntime while a task is off every queue by migration or fork
// (the kernel's normalisation). The optional SCALE_WAKEUP_GRAN patch is a feature flag. Under cgroups
// each level of the hierarchy is a queue with these rules (fair_class.h); a slice is the period scaled
// by the entity's share at every level; bandwidth control in group/cfs_bandwidth.h.
#pragma once

#include "scheduler/fair/fair_class.h"

namespace warmsched::scheduler {

class cfs_class final : public fair_class {
public:
    using fair_class::fair_class;
    const char* name() const override { return "fair (CFS, v5.15)"; }

    void enqueue_task(runqueue& rq, task& p, unsigned flags) override;
    bool dequeue_task(runqueue& rq, task& p, unsigned flags) override;
    void yield_task(runqueue& rq) override;
    void check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags) override;
    task* pick_next_task(runqueue& rq, task* prev) override;
    void put_prev_task(runqueue& rq, task& p) override;
    void set_next_task(runqueue& rq, task& p) override;
    void task_tick(runqueue& rq, task& p) override;
    void task_fork(runqueue& rq, task& p, task* parent) override;
    void migrate_task_rq(task& p, unsigned new_cpu) override;

    // The decision rules, public for tests and reports.
    nsec sched_period(unsigned nr_running) const;
    nsec sched_slice(const runqueue& rq, const sched_entity& se) const;
    // wakeup_preempt_entity(curr, se): -1 if se is not ahead, 1 if ahead by more than the granularity.
    int wakeup_preempt_entity(const sched_entity& curr, const sched_entity& se) const;
    std::int64_t wakeup_gran(const sched_entity& curr, const sched_entity& se) const;

protected:
    void update_curr(runqueue& rq, cfs_rq& q) override;
    void enqueue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) override;
    bool dequeue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) override;
    void put_prev_entity(runqueue& rq, cfs_rq& q, sched_entity& se) override;
    void set_next_entity(runqueue& rq, cfs_rq& q, sched_entity& se) override;
    void reweight_entity(runqueue& rq, cfs_rq& q, sched_entity& se, std::uint32_t weight) override;
    void detach_vruntime(runqueue& rq, cfs_rq& q, sched_entity& se) override;
    void attach_vruntime(runqueue& rq, cfs_rq& q, sched_entity& se) override;

private:
    // Each acts on the queue `q` it is given, of run queue `rq` (rq_of(cfs_rq) in the kernel).
    void update_min_vruntime(cfs_rq& q);
    void place_entity(const runqueue& rq, const cfs_rq& q, sched_entity& se, bool initial);
    sched_entity* pick_next_entity(cfs_rq& q, sched_entity* curr);
    void check_preempt_tick(runqueue& rq, cfs_rq& q, sched_entity& curr);
};

} // namespace warmsched::scheduler
