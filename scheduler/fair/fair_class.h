// What the two fair classes share: the entity accounting both kernels do the same way (runtime into
// sum_exec_runtime, virtual time as delta * 1024 / weight with the kernel's inverse-weight rounding),
// queue counts, and CPU selection. CFS (v5.15) and EEVDF (v6.12) differ in how they place, pick and
// preempt, and implement those in cfs_class and eevdf_class.
//
// CPU selection: a wakeup goes through wake_placement (select_task_rq_fair's wakeup path), fork and exec
// through fork_placement (find_idlest_group/cpu down the sched domains). Load balancing is
// load_balancer (one pass) with its triggers in balance_triggers: `balance` is the newidle balance, the
// core calls the tick's trigger and the NOHZ kick's work through balancing().
//
// Group scheduling (CONFIG_FAIR_GROUP_SCHED): a task of a cgroup is queued on its group's queue on its
// CPU, whose group entity is queued on the parent group's queue, up to the CPU's root queue
// (group/group_rq.h). Both classes walk that chain as the kernel does (enqueue and dequeue up to the
// first level already queued / still loaded, pick down from the root, put/set only below the common
// ancestor, tick at every level, wakeup preemption between the entities at the common level:
// find_matching_se). A group entity's weight is calc_group_shares of its queue's load against the
// group's total (update_cfs_group).
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_class.h"
#include "scheduler/core/sched_features.h"
#include "scheduler/fair/balance_triggers.h"
#include "scheduler/fair/fair_tunables.h"
#include "scheduler/fair/fork_placement.h"
#include "scheduler/fair/load_balance.h"
#include "scheduler/fair/wake_placement.h"
#include "scheduler/group/cgroup_tree.h"

#include <vector>

namespace warmsched::scheduler {

class scheduler;

class fair_class : public sched_class {
public:
    explicit fair_class(scheduler& core);

    unsigned select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) override;
    bool balance(runqueue& rq, task* prev) override;
    bool has_runnable(const runqueue& rq) const override { return rq.cfs.nr_running > 0; }
    // switched_from_fair / switched_to_fair: detach_task_cfs_rq / attach_task_cfs_rq (the PELT averages
    // leave and join the queue's sums, a sleeper's vruntime its virtual time) and, v6.12, the end of a
    // delayed dequeue.
    void switched_from(runqueue& rq, task& p) override;
    void switched_to(runqueue& rq, task& p) override;
    void prio_changed(runqueue& rq, task& p, int old_prio) override;
    wake_placement& placement() { return placement_; }
    fork_placement& fork_balance() { return fork_; }
    load_balancer& balancer() { return balancer_; }
    balance_triggers& balancing() { return triggers_; }

    // calc_delta_fair: wall time `delta` as virtual time of `se` (delta * 1024 / weight).
    static std::int64_t calc_delta_fair(nsec delta, const sched_entity& se);
    // delta * weight / load, as __calc_delta scales a period by a share of a queue's load.
    static nsec scale_by_share(nsec delta, std::uint64_t weight, std::uint64_t load);
    // The run's task groups changed (scheduler::set_cgroups): drop the per-CPU group state. Refused
    // while a task is queued in a group.
    void set_groups(bool enabled);
    // The state of group g on `cpu` (its queue and entity), nullptr if none of its subtree's tasks was
    // ever queued there; and the group's tg->load_avg.
    const group_sched* group_rq(unsigned cpu, group_id g) const;
    std::int64_t tg_load_avg(group_id g) const { return g < tg_load_avg_.size() ? tg_load_avg_[g] : 0; }
    // sched_move_task for a fair task: p moves to group g with its place kept (dequeued and enqueued
    // again if queued, its averages detached from the old group's queue and attached to the new one).
    void move_task_group(runqueue& rq, task& p, group_id g);
    // The group's queue and entity on rq, allocated with their ancestors on first use.
    group_sched& tg_rq(runqueue& rq, group_id g);
    // CFS bandwidth control, per-cfs_rq model (throttle_cfs_rq / unthrottle_cfs_rq): the group
    // entity of the throttled queue q leaves its parent (and each ancestor it leaves empty), taking
    // q's tasks off the CPU's counts while they stay queued in q; unthrottle puts it back.
    void throttle_cfs_rq(runqueue& rq, cfs_rq& q);
    void unthrottle_cfs_rq(runqueue& rq, cfs_rq& q);
    // The core switches from fair task prev to fair task next: put_prev_entity on prev's levels and
    // set_next_entity on next's, below their common ancestor only (pick_next_task_fair).
    void switch_tasks(runqueue& rq, task& prev, task& next);

protected:
    // The per-level operations the shared walks call (each class's own rules). dequeue_entity returns
    // false when EEVDF keeps the entity queued as a delayed sleeper.
    virtual void update_curr(runqueue& rq, cfs_rq& q) = 0;
    virtual void enqueue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) = 0;
    virtual bool dequeue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) = 0;
    virtual void put_prev_entity(runqueue& rq, cfs_rq& q, sched_entity& se) = 0;
    virtual void set_next_entity(runqueue& rq, cfs_rq& q, sched_entity& se) = 0;
    // reweight_entity: se (queued on q or not) takes `weight`.
    virtual void reweight_entity(runqueue& rq, cfs_rq& q, sched_entity& se, std::uint32_t weight) = 0;
    // task_change_group_fair's vruntime part: CFS makes a sleeping task's vruntime relative to the old
    // queue (detach) and absolute on the new one (attach); EEVDF keeps the lag.
    virtual void detach_vruntime(runqueue&, cfs_rq&, sched_entity&) {}
    virtual void attach_vruntime(runqueue&, cfs_rq&, sched_entity&) {}

    // set_task_rq: p's entity belongs to its group's queue on rq (allocated on first use), or to the
    // root queue for a task of the root group.
    void set_task_rq(runqueue& rq, task& p);
    // The levels above the ones an enqueue or dequeue changed (the second loop of enqueue_task_fair and
    // dequeue_entities): each group entity's averages, runnable count and weight, and `delta` tasks
    // (`idle` of them SCHED_IDLE) on each level's counts up to the root. EEVDF passes `slice`: each group
    // entity takes the shortest slice queued below it. False if the walk stopped at a throttled level
    // (the tasks are then not counted on the CPU).
    bool update_levels_above(runqueue& rq, sched_entity* se, int delta, int idle, std::uint64_t* slice);
    // update_cfs_group: a group entity takes calc_group_shares of its queue; nothing for a task.
    void update_cfs_group(runqueue& rq, sched_entity& se);
    std::uint32_t calc_group_shares(const cfs_rq& gq) const;
    // se_update_runnable: a group entity's runnable count is its queue's runnable tasks.
    static void se_update_runnable(sched_entity& se) {
        if (se.my_q) se.runnable_weight = se.my_q->h_nr_running - se.my_q->h_nr_delayed;
    }
    // find_matching_se: walk se and pse up to the entities that share a queue.
    static void find_matching_se(sched_entity*& se, sched_entity*& pse);
    // The buddies, set and cleared along the entity's chain (set_next_buddy, __clear_buddies_*).
    void set_next_buddy(runqueue& rq, sched_entity* se);
    void set_last_buddy(runqueue& rq, sched_entity* se);
    void set_skip_buddy(runqueue& rq, sched_entity* se);
    void clear_buddies(runqueue& rq, cfs_rq& q, sched_entity& se);
    // put_prev_task / set_next_task of a whole chain.
    void put_prev_chain(runqueue& rq, task& p);
    void set_next_chain(runqueue& rq, task& p);
    // set_next_entity's task part: cfs_tasks order and the slice_max statistic.
    void task_became_curr(runqueue& rq, sched_entity& se);

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
        if (q.pelt_stopped && q.nr_running == 1) pelt_clock_first_entity(rq, q);
    }
    void account_dequeue(runqueue& rq, cfs_rq& q, sched_entity& se) {
        q.load -= se.weight;
        --q.nr_running;
        if (se.owner) rq.cfs_tasks.erase(*se.owner);
        if (groups_on_ && se.owner) group_dequeued(rq, *se.owner);
        if (q.throttle_count && !q.nr_running && !q.pelt_stopped) pelt_clock_emptied(rq, q);
    }
    // The PELT clock of a queue in a throttled hierarchy (task-based model, v6.18): it stops when the
    // queue empties and runs again when an entity is enqueued into it (the per-cfs_rq model stops it
    // at the throttle and restarts it at the unthrottle).
    void pelt_clock_emptied(runqueue& rq, cfs_rq& q);
    void pelt_clock_first_entity(runqueue& rq, cfs_rq& q);
    bool core_bandwidth_active() const;
    void charge_bandwidth(runqueue& rq, task& p, nsec delta);
    // cgroups: the task's quota levels count it (CFS bandwidth control).
    void group_enqueued(runqueue& rq, const task& p);
    void group_dequeued(runqueue& rq, const task& p);
    // CFS bandwidth control: check_enqueue_throttle on the levels p is about to make non-empty, and
    // whether a wakeup in a throttled hierarchy must not preempt.
    void check_enqueue_throttle(runqueue& rq, const task& p);
    bool ignore_wakeup(const runqueue& rq, const task& p) const;
    // select_fallback_rq: an allowed CPU of prev's node, else any allowed CPU.
    unsigned select_fallback_rq(const task& p, unsigned prev_cpu) const;

    bool groups_on_ = false;
    std::vector<std::int64_t> tg_load_avg_; // tg->load_avg per group
    scheduler& core_;
    const sched_features& feat_;
    const fair_tunables& tun_;
    wake_placement placement_;
    fork_placement fork_;
    load_balancer balancer_;
    balance_triggers triggers_;
};

} // namespace warmsched::scheduler
