// CFS (v5.15) decisions; see cfs_class.h.
#include "scheduler/fair/cfs_class.h"

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/load_avg.h"

#include <algorithm>

namespace warmsched::scheduler {

void cfs_class::update_min_vruntime(cfs_rq& q) {
    std::int64_t v = q.min_vruntime;
    sched_entity* curr = q.curr && q.curr->on_rq ? q.curr : nullptr;
    if (curr) v = curr->vruntime;
    if (sched_entity* left = q.first()) v = curr ? std::min(v, left->vruntime) : left->vruntime;
    q.min_vruntime = std::max(q.min_vruntime, v);
}

void cfs_class::update_curr(runqueue& rq, cfs_rq& q) {
    if (!q.curr) return;
    const nsec delta = update_curr_se(rq, *q.curr);
    if (delta == 0) return;
    q.curr->vruntime += calc_delta_fair(delta, *q.curr);
    update_min_vruntime(q);
    account_cfs_rq_runtime(rq, *q.curr, delta);
}

nsec cfs_class::sched_period(unsigned nr_running) const {
    if (nr_running > tun_.nr_latency) return nr_running * tun_.min_granularity_ns;
    return tun_.latency_ns;
}

nsec cfs_class::sched_slice(const runqueue& rq, const sched_entity& se) const {
    const cfs_rq& q = cfs_rq_of(rq, se);
    const unsigned nr = feat_[feature::ALT_PERIOD] ? rq.cfs.h_nr_running : q.nr_running;
    nsec slice = sched_period(nr + (se.on_rq ? 0 : 1));
    // The entity's share of its queue, times its group's share of the parent queue, up to the root.
    for (const sched_entity* s = &se; s; s = s->parent) {
        const cfs_rq& l = cfs_rq_of(rq, *s);
        const std::uint64_t load = l.load + (s->on_rq ? 0 : s->weight);
        slice = scale_by_share(slice, s->weight, load);
    }
    if (feat_[feature::BASE_SLICE]) slice = std::max(slice, tun_.min_granularity_ns);
    return slice;
}

std::int64_t cfs_class::wakeup_gran(const sched_entity& curr, const sched_entity& se) const {
    nsec gran = tun_.wakeup_granularity_ns;
    if (feat_[feature::SCALE_WAKEUP_GRAN]) {
        const nsec ran = curr.sum_exec_runtime - curr.prev_sum_exec_runtime;
        if (ran < tun_.min_granularity_ns) gran += tun_.min_granularity_ns;
    }
    return calc_delta_fair(gran, se);
}

int cfs_class::wakeup_preempt_entity(const sched_entity& curr, const sched_entity& se) const {
    const std::int64_t vdiff = curr.vruntime - se.vruntime;
    if (vdiff <= 0) return -1;
    if (vdiff > wakeup_gran(curr, se)) return 1;
    return 0;
}

void cfs_class::place_entity(const runqueue& rq, const cfs_rq& q, sched_entity& se, bool initial) {
    std::int64_t v = q.min_vruntime;
    if (initial && feat_[feature::START_DEBIT]) v += calc_delta_fair(sched_slice(rq, se), se);
    if (!initial) {
        nsec thresh = tun_.latency_ns;
        if (feat_[feature::GENTLE_FAIR_SLEEPERS]) thresh >>= 1;
        v -= static_cast<std::int64_t>(thresh);
    }
    se.vruntime = std::max(se.vruntime, v); // never gain time by being placed backwards
}

void cfs_class::enqueue_task(runqueue& rq, task& p, unsigned flags) {
    if (groups_on_) set_task_rq(rq, p);
    check_enqueue_throttle(rq, p);
    util_est_enqueue(rq, p);
    p.on_rq = true;
    const unsigned idle = p.policy == sched_policy::idle ? 1 : 0;
    // enqueue_task_fair: the entity and each group entity not queued yet, then the levels above; the
    // walk ends at a throttled level (the task is queued there but not counted on the CPU).
    sched_entity* se = &p.se;
    for (; se && !se->on_rq; se = se->parent) {
        cfs_rq& q = cfs_rq_of(rq, *se);
        enqueue_entity(rq, q, *se, flags);
        ++q.h_nr_running;
        q.idle_h_nr_running += idle;
        if (q.throttled) return;
        flags = ENQUEUE_WAKEUP;
    }
    if (!update_levels_above(rq, se, 1, static_cast<int>(idle), nullptr)) return;
    rq.add_nr_running(1);
    rq.idle_policy_running += idle;
}

void cfs_class::enqueue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) {
    const bool renorm = !(flags & ENQUEUE_WAKEUP) || (flags & ENQUEUE_MIGRATED);
    const bool is_curr = q.curr == &se;
    if (renorm && is_curr) se.vruntime += q.min_vruntime;
    update_curr(rq, q);
    if (renorm && !is_curr) se.vruntime += q.min_vruntime;
    update_load_avg(q, rq.clock, se, LOAD_AVG_UPDATE_TG | LOAD_AVG_DO_ATTACH);
    se_update_runnable(se);
    update_cfs_group(rq, se);
    account_enqueue(rq, q, se);
    if (flags & ENQUEUE_WAKEUP) place_entity(rq, q, se, false);
    const std::int64_t spread = se.vruntime - q.min_vruntime;
    if (std::abs(spread) > 3 * static_cast<std::int64_t>(tun_.latency_ns)) ++q.nr_spread_over;
    if (!is_curr) q.insert(&se, se.vruntime);
    se.on_rq = true;
}

bool cfs_class::dequeue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) {
    update_curr(rq, q);
    update_load_avg(q, rq.clock, se, LOAD_AVG_UPDATE_TG);
    se_update_runnable(se);
    clear_buddies(rq, q, se);
    if (&se != q.curr) q.erase(&se);
    se.on_rq = false;
    account_dequeue(rq, q, se);
    if (!(flags & DEQUEUE_SLEEP)) se.vruntime -= q.min_vruntime;
    update_cfs_group(rq, se);
    if ((flags & (DEQUEUE_SAVE | DEQUEUE_MOVE)) != DEQUEUE_SAVE) update_min_vruntime(q);
    return true;
}

bool cfs_class::dequeue_task(runqueue& rq, task& p, unsigned flags) {
    util_est_dequeue(rq, p);
    const bool task_sleep = flags & DEQUEUE_SLEEP;
    const unsigned idle = p.policy == sched_policy::idle ? 1 : 0;
    p.on_rq = false;
    // dequeue_task_fair: the entity, and each group entity whose queue it leaves empty; then the
    // levels above (a sleeper's group becomes the next buddy of its parent queue). The walk ends at a
    // throttled level, above which the task was not counted.
    sched_entity* se = &p.se;
    bool counted = true;
    for (; se; se = se->parent) {
        cfs_rq& q = cfs_rq_of(rq, *se);
        dequeue_entity(rq, q, *se, flags);
        --q.h_nr_running;
        q.idle_h_nr_running -= idle;
        if (q.throttled) {
            counted = false;
            break;
        }
        if (q.load) { // the parent stays: it has other entities queued
            se = se->parent;
            if (task_sleep && se && !q.throttle_count) set_next_buddy(rq, se);
            break;
        }
        flags |= DEQUEUE_SLEEP;
    }
    if (counted) counted = update_levels_above(rq, se, -1, -static_cast<int>(idle), nullptr);
    if (counted) {
        rq.sub_nr_running(1);
        rq.idle_policy_running -= idle;
    }
    if (task_sleep) util_est_update(p);
    return true;
}

void cfs_class::yield_task(runqueue& rq) {
    if (rq.nr_running == 1) return;
    sched_entity& se = rq.curr->se;
    cfs_rq& q = cfs_rq_of(rq, se);
    clear_buddies(rq, q, se);
    if (se.owner->policy != sched_policy::batch) update_curr(rq, q);
    set_skip_buddy(rq, &se);
}

void cfs_class::check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags) {
    task& curr = *rq.curr;
    sched_entity* se = &curr.se;
    sched_entity* pse = &p.se;
    if (se == pse || ignore_wakeup(rq, p)) return;
    const bool scale = cfs_rq_of(rq, *se).nr_running >= tun_.nr_latency; // task_cfs_rq(curr)
    bool next_buddy_marked = false;
    if (feat_[feature::NEXT_BUDDY] && scale && !(wake_flags & WF_FORK)) {
        set_next_buddy(rq, pse);
        next_buddy_marked = true;
    }
    if (rq.need_resched) return;
    const bool curr_idle_policy = curr.policy == sched_policy::idle;
    bool preempt = curr_idle_policy && p.policy != sched_policy::idle;
    if (!preempt) {
        if (p.policy != sched_policy::normal || !feat_[feature::WAKEUP_PREEMPTION]) return;
        // Compare the entities that share a queue: curr's and p's, or their groups'.
        find_matching_se(se, pse);
        update_curr(rq, cfs_rq_of(rq, *se));
        if (wakeup_preempt_entity(*se, *pse) != 1) return;
        if (!next_buddy_marked) set_next_buddy(rq, pse);
    }
    core_.resched_curr(rq);
    if (!se->on_rq) return;
    if (feat_[feature::LAST_BUDDY] && scale && entity_is_task(*se)) set_last_buddy(rq, se);
}

sched_entity* cfs_class::pick_next_entity(cfs_rq& q, sched_entity* curr) {
    sched_entity* left = q.first();
    if (!left || (curr && curr->vruntime < left->vruntime)) left = curr;
    sched_entity* se = left;
    if (q.skip && q.skip == se) {
        sched_entity* second;
        if (se == curr) {
            second = q.first();
        } else {
            second = q.after(se);
            if (!second || (curr && curr->vruntime < second->vruntime)) second = curr;
        }
        if (second && wakeup_preempt_entity(*second, *left) < 1) se = second;
    }
    if (q.last && wakeup_preempt_entity(*q.last, *left) < 1) se = q.last; // give the CPU back
    if (q.next && wakeup_preempt_entity(*q.next, *left) < 1) se = q.next; // someone wants to run
    return se;
}

task* cfs_class::pick_next_task(runqueue& rq, task*) {
    // Down from the root: at each level the entity CFS picks, until a task.
    cfs_rq* q = &rq.cfs;
    if (q->nr_running == 0) return nullptr;
    sched_entity* se;
    do {
        sched_entity* curr = q->curr;
        if (curr) {
            if (curr->on_rq)
                update_curr(rq, *q);
            else
                curr = nullptr;
        }
        se = pick_next_entity(*q, curr);
        clear_buddies(rq, *q, *se);
        q = se->my_q;
    } while (q);
    return se->owner;
}

void cfs_class::put_prev_task(runqueue& rq, task& p) {
    put_prev_chain(rq, p);
}

void cfs_class::set_next_task(runqueue& rq, task& p) {
    set_next_chain(rq, p);
}

void cfs_class::put_prev_entity(runqueue& rq, cfs_rq& q, sched_entity& se) {
    if (se.on_rq) {
        update_curr(rq, q);
        const std::int64_t spread = se.vruntime - q.min_vruntime;
        if (std::abs(spread) > 3 * static_cast<std::int64_t>(tun_.latency_ns)) ++q.nr_spread_over;
        q.insert(&se, se.vruntime);
        update_load_avg(q, rq.clock, se, 0);
    }
    q.curr = nullptr;
}

void cfs_class::set_next_entity(runqueue& rq, cfs_rq& q, sched_entity& se) {
    if (se.on_rq) {
        q.erase(&se);
        update_load_avg(q, rq.clock, se, LOAD_AVG_UPDATE_TG);
    }
    if (se.owner) task_became_curr(rq, se);
    se.exec_start = rq.clock;
    q.curr = &se;
    se.prev_sum_exec_runtime = se.sum_exec_runtime;
}

void cfs_class::check_preempt_tick(runqueue& rq, cfs_rq& q, sched_entity& curr) {
    const nsec ideal = sched_slice(rq, curr);
    const nsec ran = curr.sum_exec_runtime - curr.prev_sum_exec_runtime;
    if (ran > ideal) {
        core_.resched_curr(rq);
        clear_buddies(rq, q, curr);
        return;
    }
    if (ran < tun_.min_granularity_ns) return;
    const sched_entity* left = q.first();
    if (!left) return;
    const std::int64_t delta = curr.vruntime - left->vruntime;
    if (delta < 0) return;
    if (delta > static_cast<std::int64_t>(ideal)) core_.resched_curr(rq);
}

void cfs_class::task_tick(runqueue& rq, task& p) {
    for (sched_entity* se = &p.se; se; se = se->parent) { // entity_tick at every level
        cfs_rq& q = cfs_rq_of(rq, *se);
        update_curr(rq, q);
        update_load_avg(q, rq.clock, *se, LOAD_AVG_UPDATE_TG);
        update_cfs_group(rq, *se);
        if (q.nr_running > 1) check_preempt_tick(rq, q, *se);
    }
}

void cfs_class::task_fork(runqueue& rq, task& p, task* parent) {
    if (groups_on_) set_task_rq(rq, p);
    cfs_rq& q = cfs_rq_of(rq, p.se); // task_cfs_rq(current): the child is in its parent's group
    sched_entity& se = p.se;
    sched_entity* curr = parent && q.curr == &parent->se ? q.curr : nullptr;
    if (curr) {
        update_curr(rq, q);
        se.vruntime = curr->vruntime;
    }
    place_entity(rq, q, se, true);
    if (core_.config().child_runs_first && curr && curr->vruntime < se.vruntime) {
        std::swap(curr->vruntime, se.vruntime);
        core_.resched_curr(rq);
    }
    se.vruntime -= q.min_vruntime;
}

// v5.15 reweight_entity: the queue's load and the entity's PELT load change; vruntime stays.
void cfs_class::reweight_entity(runqueue& rq, cfs_rq& q, sched_entity& se, std::uint32_t weight) {
    if (se.on_rq) {
        if (q.curr == &se) update_curr(rq, q);
        q.load -= se.weight;
    }
    reweight_entity_load_avg(q, se, weight);
    if (se.on_rq) q.load += se.weight;
}

// task_change_group_fair of a task not queued: its vruntime leaves the old group queue's virtual time
// (placed as a sleeper there first) and joins the new one's.
void cfs_class::detach_vruntime(runqueue& rq, cfs_rq& q, sched_entity& se) {
    if (!se.sum_exec_runtime) return; // a new task's vruntime is already relative
    place_entity(rq, q, se, false);
    se.vruntime -= q.min_vruntime;
}
void cfs_class::attach_vruntime(runqueue&, cfs_rq& q, sched_entity& se) {
    if (!se.sum_exec_runtime) return;
    se.vruntime += q.min_vruntime;
}

void cfs_class::migrate_task_rq(task& p, unsigned) {
    runqueue& rq = core_.rq(p.cpu);
    if (p.migrating) {
        // A queued task the balancer moves: its dequeue already made vruntime relative, and its
        // averages leave the old queue at once (detach_entity_cfs_rq).
        detach_entity_load_avg(cfs_rq_of(rq, p.se), p.se);
    } else {
        // A waking task leaves its queue's virtual time; enqueue adds the destination's min_vruntime.
        cfs_rq& q = cfs_rq_of(rq, p.se);
        if (p.state == task_state::sleeping) p.se.vruntime -= q.min_vruntime;
        remove_entity_load_avg(q, p.se);
    }
    p.se.exec_start = 0; // migrated: no longer cache hot
}

} // namespace warmsched::scheduler
