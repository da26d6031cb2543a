// What the two fair classes share: the entity accounting both kernels do the same way (runtime into
// sum_exec_runtime, virtual time as delta * 1024 / weight with the kernel's inverse-weight rounding),
// queue counts, and CPU selection. CFS (v5.15) and EEVDF (v6.12) differ in how they place, pick and
// preempt, and implement those in cfs_class and eevdf_class.
//
// CPU selection: a wakeup goes through wake_placement (select_task_rq_fair's wakeup path), fork and exec
// through fork_placement (find_idlest_group/cpu down the sched domains). Load balancing is
// load_balancer (one pass) with its triggers in balance_triggers: `balance` is the newidle balance, the
// core calls the tick's trigger and the NOHZ kick's work through balancing().
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_class.h"
#include "scheduler/core/sched_features.h"
#include "scheduler/fair/balance_triggers.h"
#include "scheduler/fair/fair_tunables.h"
#include "scheduler/fair/fork_placement.h"
#include "scheduler/fair/load_balance.h"
#include "scheduler/fair/wake_placement.h"

namespace warmsched::scheduler {

class scheduler;

class fair_class : public sched_class {
public:
    explicit fair_class(scheduler& core);

    unsigned select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) override;
    bool balance(runqueue& rq, task* prev) override;
    bool has_runnable(const runqueue& rq) const override { return rq.cfs.nr_running > 0; }
    wake_placement& placement() { return placement_; }
    fork_placement& fork_balance() { return fork_; }
    load_balancer& balancer() { return balancer_; }
    balance_triggers& balancing() { return triggers_; }

    // calc_delta_fair: wall time `delta` as virtual time of `se` (delta * 1024 / weight).
    static std::int64_t calc_delta_fair(nsec delta, const sched_entity& se);
    // delta * weight / load, as __calc_delta scales a period by a share of a queue's load.
    static nsec scale_by_share(nsec delta, std::uint64_t weight, std::uint64_t load);
    // The run has cgroups: charge run time to them (set by scheduler::set_cgroups).
    void set_groups_enabled(bool on) { groups_on_ = on; }
    // reweight_entity: p (queued or not) takes `weight` (its hierarchical weight under cgroups).
    virtual void reweight_task(runqueue& rq, task& p, std::uint32_t weight) = 0;

protected:
    // Charges curr the time since exec_start (and a task's cgroups their usage); returns it (0 if none).
    nsec update_curr_se(runqueue& rq, sched_entity& curr);
    // account_cfs_rq_runtime: CFS bandwidth control charges `delta` of curr's run time to its quota
    // levels (the class's update_curr calls it after the entity's virtual time, as the kernel does).
    void account_cfs_rq_runtime(runqueue& rq, sched_entity& curr, nsec delta) {
        if (groups_on_ && curr.owner && core_bandwidth_active()) charge_bandwidth(rq, *curr.owner, delta);
    }
    // account_entity_enqueue/dequeue: the load and count of the queue `q` (of run queue `rq`) the
    // entity joins or leaves, and the run queue's cfs_tasks list for a task.
    void account_enqueue(runqueue& rq, cfs_rq& q, sched_entity& se) {
        q.load += se.weight;
        ++q.nr_running;
        if (se.owner) rq.cfs_tasks.push_front(*se.owner);
        if (groups_on_ && se.owner) group_enqueued(rq, *se.owner);
    }
    void account_dequeue(runqueue& rq, cfs_rq& q, sched_entity& se) {
        q.load -= se.weight;
        --q.nr_running;
        if (se.owner) rq.cfs_tasks.erase(*se.owner);
        if (groups_on_ && se.owner) group_dequeued(rq, *se.owner);
    }
    bool core_bandwidth_active() const;
    void charge_bandwidth(runqueue& rq, task& p, nsec delta);
    // cgroups: the task's quota levels count it (CFS bandwidth control).
    void group_enqueued(runqueue& rq, const task& p);
    void group_dequeued(runqueue& rq, const task& p);
    // CFS bandwidth control, per-cfs_rq model: p is about to be enqueued in a throttled hierarchy and
    // is parked instead (true), or a wakeup in a throttled hierarchy must not preempt.
    bool parked_on_enqueue(runqueue& rq, task& p, unsigned flags);
    bool ignore_wakeup(const runqueue& rq, const task& p) const;
    // cgroups: p (not queued yet) joins its levels on rq and takes its hierarchical weight; at the tick,
    // every queued task of a group takes its new one (group_shares.h).
    void group_weight_on_enqueue(runqueue& rq, task& p);
    void refresh_group_weights(runqueue& rq);
    // select_fallback_rq: an allowed CPU of prev's node, else any allowed CPU.
    unsigned select_fallback_rq(const task& p, unsigned prev_cpu) const;

    bool groups_on_ = false;
    scheduler& core_;
    const sched_features& feat_;
    const fair_tunables& tun_;
    wake_placement placement_;
    fork_placement fork_;
    load_balancer balancer_;
    balance_triggers triggers_;
};

} // namespace warmsched::scheduler
