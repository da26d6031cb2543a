// The fair class as Linux v6.12 runs it (EEVDF), from reference/scheduler/02-fair-eevdf.md:
//
//        V = weighted average vruntime (curr included)      lag = V - v      eligible: lag >= 0
//   deadline = v + slice * 1024 / w                          pick: earliest deadline among eligible
//
//   enqueue: v = V - lag * (W + w) / W (PLACE_LAG), deadline = v + vslice (halved for a new task)
//   tick / accounting: past the deadline -> new deadline and resched; no other tick preemption
//   RUN_TO_PARITY: curr keeps the CPU until its deadline while eligible (vlag == deadline marker)
//   PREEMPT_SHORT: a wakee with a shorter slice may cancel that protection
//   DELAY_DEQUEUE: an ineligible sleeper stays queued until picked (then dequeued, lag clipped to 0
//                  under DELAY_ZERO) or woken (requeued in place)
//
// The queue is a deadline-ordered tree augmented with subtree-minimum vruntime and slice, as the
// kernel's: the earliest eligible deadline, min_vruntime and the shortest slice are found in O(log n)
// (fair/entity_tree.h). Under cgroups each level of the hierarchy is a queue with these rules (fair_class.h);
// a group entity requests the shortest slice queued below it, and an ineligible group entity whose
// queue empties is delayed like a task; bandwidth control in group/cfs_bandwidth.h.
#pragma once

#include "scheduler/fair/fair_class.h"

namespace warmsched::scheduler {

class eevdf_class final : public fair_class {
public:
    using fair_class::fair_class;
    const char* name() const override { return "fair (EEVDF, v6.12)"; }

    void enqueue_task(runqueue& rq, task& p, unsigned flags) override;
    bool dequeue_task(runqueue& rq, task& p, unsigned flags) override;
    void yield_task(runqueue& rq) override;
    void check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags) override;
    task* pick_next_task(runqueue& rq, task* prev) override;
    void put_prev_task(runqueue& rq, task& p) override;
    void set_next_task(runqueue& rq, task& p) override;
    void task_tick(runqueue& rq, task& p) override;
    void task_fork(runqueue& rq, task& p, task* parent) override;
    // A task born in another class has no slice yet (__sched_fork gives every task the base slice).
    void switching_to(runqueue& rq, task& p) override;
    void migrate_task_rq(task& p, unsigned new_cpu) override;

    // The decision rules, public for tests and reports.
    static std::int64_t avg_vruntime(const cfs_rq& q);
    static bool entity_eligible(const cfs_rq& q, const sched_entity& se);
    static bool vruntime_eligible(const cfs_rq& q, std::int64_t vruntime); // is a lag of V - vruntime >= 0
    sched_entity* pick_eevdf(cfs_rq& q) const;

protected:
    void update_curr(runqueue& rq, cfs_rq& q) override;
    void enqueue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) override;
    bool dequeue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) override;
    void put_prev_entity(runqueue& rq, cfs_rq& q, sched_entity& se) override;
    void set_next_entity(runqueue& rq, cfs_rq& q, sched_entity& se) override;
    void reweight_entity(runqueue& rq, cfs_rq& q, sched_entity& se, std::uint32_t weight) override;

private:
    // Each acts on the queue `q` it is given, of run queue `rq` (rq_of(cfs_rq) in the kernel).
    bool update_deadline(sched_entity& se) const;
    void update_min_vruntime(cfs_rq& q);
    void update_entity_lag(const cfs_rq& q, sched_entity& se) const;
    void place_entity(cfs_rq& q, sched_entity& se, unsigned flags);
    void requeue_delayed_entity(runqueue& rq, cfs_rq& q, sched_entity& se);
    // dequeue_entities: se and the group entities it leaves empty; -1 if the task was delayed instead,
    // 0 if the walk ended at a throttled level, 1 when done (a task is then off the run queue).
    int dequeue_entities(runqueue& rq, sched_entity* se, unsigned flags);
    // pick_next_entity: the next buddy or pick_eevdf; nullptr if the pick was a delayed entity, which
    // is dequeued for real (the caller picks again from the root).
    sched_entity* pick_next_entity(runqueue& rq, cfs_rq& q);
    // set_delayed / clear_delayed: a delayed task counts in h_nr_delayed up its chain.
    void set_delayed(runqueue& rq, sched_entity& se);
    void clear_delayed(runqueue& rq, sched_entity& se);
    bool do_preempt_short(const cfs_rq& q, const sched_entity& pse, const sched_entity& se) const;
    nsec default_slice(const sched_entity& se) const {
        return se.custom_slice ? se.custom_slice : tun_.base_slice_ns;
    }
};

} // namespace warmsched::scheduler
