// EEVDF (v6.12) decisions; see eevdf_class.h.
#include "scheduler/fair/eevdf_class.h"

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/load_avg.h"

#include <algorithm>

namespace warmsched::scheduler {

namespace {
std::int64_t floor_div(std::int64_t a, std::int64_t b) { // rounds toward -infinity (b > 0)
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}
} // namespace

std::int64_t eevdf_class::avg_vruntime(const cfs_rq& q) {
    std::int64_t avg = q.avg_vruntime, load = q.avg_load;
    if (q.curr && q.curr->on_rq) {
        avg += (q.curr->vruntime - q.min_vruntime) * static_cast<std::int64_t>(q.curr->weight);
        load += q.curr->weight;
    }
    if (load) avg = floor_div(avg, load);
    return q.min_vruntime + avg;
}

bool eevdf_class::vruntime_eligible(const cfs_rq& q, std::int64_t vruntime) {
    std::int64_t avg = q.avg_vruntime, load = q.avg_load;
    if (q.curr && q.curr->on_rq) {
        avg += (q.curr->vruntime - q.min_vruntime) * static_cast<std::int64_t>(q.curr->weight);
        load += q.curr->weight;
    }
    return avg >= (vruntime - q.min_vruntime) * load;
}

bool eevdf_class::entity_eligible(const cfs_rq& q, const sched_entity& se) {
    return vruntime_eligible(q, se.vruntime);
}

void eevdf_class::update_min_vruntime(cfs_rq& q) {
    std::int64_t v = q.min_vruntime;
    sched_entity* curr = q.curr && q.curr->on_rq ? q.curr : nullptr;
    if (curr) v = curr->vruntime;
    std::int64_t tree_min;
    if (q.tree_min_vruntime(tree_min)) v = curr ? std::min(v, tree_min) : tree_min;
    q.advance_min_vruntime(v);
}

bool eevdf_class::update_deadline(sched_entity& se) const {
    if (se.vruntime < se.deadline) return false;
    if (!se.custom_slice) se.slice = tun_.base_slice_ns;
    se.deadline = se.vruntime + calc_delta_fair(se.slice, se);
    return true; // the request is fulfilled: schedule a new one
}

void eevdf_class::update_curr(runqueue& rq, cfs_rq& q) {
    sched_entity* curr = q.curr;
    if (!curr) return;
    const nsec delta = update_curr_se(rq, *curr);
    if (delta == 0) return;
    curr->vruntime += calc_delta_fair(delta, *curr);
    const bool resched = update_deadline(*curr);
    update_min_vruntime(q);
    account_cfs_rq_runtime(rq, *curr, delta);
    if (q.nr_running == 1) return;
    // did_preempt_short: protection cancelled by a shorter-slice wakee and curr no longer eligible.
    const bool preempt_short =
        feat_[feature::PREEMPT_SHORT] && curr->vlag != curr->deadline && !entity_eligible(q, *curr);
    if (resched || preempt_short) {
        core_.resched_curr(rq);
        clear_buddies(rq, q, *curr);
    }
}

void eevdf_class::update_entity_lag(const cfs_rq& q, sched_entity& se) const {
    const std::int64_t lag = avg_vruntime(q) - se.vruntime;
    const nsec tick = core_.config().tick_ns();
    const std::int64_t limit = calc_delta_fair(std::max<nsec>(2 * se.slice, tick), se);
    se.vlag = std::clamp(lag, -limit, limit);
}

void eevdf_class::place_entity(cfs_rq& q, sched_entity& se, unsigned flags) {
    const std::int64_t v_avg = avg_vruntime(q);
    if (!se.custom_slice) se.slice = tun_.base_slice_ns;
    std::int64_t vslice = calc_delta_fair(se.slice, se);
    std::int64_t lag = 0;
    if (feat_[feature::PLACE_LAG] && q.nr_running && se.vlag) {
        // Inflate the lag so that it survives this entity joining the average: lag * (W + w) / W.
        std::int64_t load = q.avg_load;
        if (q.curr && q.curr->on_rq) load += q.curr->weight;
        lag = se.vlag * (load + se.weight);
        if (load == 0) load = 1;
        lag = lag / load; // div_s64 truncates toward zero
    }
    se.vruntime = v_avg - lag;
    if (se.rel_deadline) {
        se.deadline += se.vruntime;
        se.rel_deadline = false;
        return;
    }
    if (feat_[feature::PLACE_DEADLINE_INITIAL] && (flags & ENQUEUE_INITIAL)) vslice /= 2;
    se.deadline = se.vruntime + vslice;
}

void eevdf_class::enqueue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) {
    const bool is_curr = q.curr == &se;
    if (is_curr) place_entity(q, se, flags);
    update_curr(rq, q);
    update_load_avg(q, rq.clock, se, LOAD_AVG_UPDATE_TG | LOAD_AVG_DO_ATTACH);
    se_update_runnable(se);
    update_cfs_group(rq, se);
    if (!is_curr) place_entity(q, se, flags);
    account_enqueue(rq, q, se);
    if (flags & ENQUEUE_MIGRATED) se.exec_start = 0;
    if (!is_curr) q.insert(&se, se.deadline);
    se.on_rq = true;
}

void eevdf_class::requeue_delayed_entity(runqueue& rq, cfs_rq& q, sched_entity& se) {
    if (feat_[feature::DELAY_ZERO]) {
        update_entity_lag(q, se);
        if (se.vlag > 0) {
            --q.nr_running;
            if (&se != q.curr) q.erase(&se);
            se.vlag = 0;
            place_entity(q, se, 0);
            if (&se != q.curr) q.insert(&se, se.deadline);
            ++q.nr_running;
        }
    }
    update_load_avg(q, rq.clock, se, 0);
    clear_delayed(rq, se);
}

void eevdf_class::set_delayed(runqueue& rq, sched_entity& se) {
    se.sched_delayed = true;
    if (!se.owner) return; // a delayed group entity has no task queued below it
    for (sched_entity* s = &se; s; s = s->parent) ++cfs_rq_of(rq, *s).h_nr_delayed;
}

void eevdf_class::clear_delayed(runqueue& rq, sched_entity& se) {
    se.sched_delayed = false;
    if (!se.owner) return;
    for (sched_entity* s = &se; s; s = s->parent) --cfs_rq_of(rq, *s).h_nr_delayed;
}

void eevdf_class::enqueue_task(runqueue& rq, task& p, unsigned flags) {
    if (flags & ENQUEUE_DELAYED) { // a delayed sleeper woken in place
        util_est_enqueue(rq, p);
        requeue_delayed_entity(rq, cfs_rq_of(rq, p.se), p.se);
        return;
    }
    if (groups_on_) set_task_rq(rq, p);
    check_enqueue_throttle(rq, p);
    util_est_enqueue(rq, p);
    p.on_rq = true;
    const unsigned idle = p.policy == sched_policy::idle ? 1 : 0;
    // enqueue_task_fair: the entity and each group entity not queued yet (a delayed one is requeued
    // in place), then the levels above; a group entity requests the shortest slice below it.
    std::uint64_t slice = 0;
    sched_entity* se = &p.se;
    for (; se; se = se->parent) {
        cfs_rq& q = cfs_rq_of(rq, *se);
        if (se->on_rq) {
            if (se->sched_delayed) requeue_delayed_entity(rq, q, *se);
            break;
        }
        if (slice) se->slice = se->custom_slice = slice;
        enqueue_entity(rq, q, *se, flags);
        slice = q.min_slice();
        ++q.h_nr_running;
        q.idle_h_nr_running += idle;
        if (q.throttled) return; // queued in a throttled hierarchy: not counted on the CPU
        flags = ENQUEUE_WAKEUP;
    }
    if (!update_levels_above(rq, se, 1, static_cast<int>(idle), &slice)) return;
    rq.add_nr_running(1);
    rq.idle_policy_running += idle;
}

bool eevdf_class::dequeue_entity(runqueue& rq, cfs_rq& q, sched_entity& se, unsigned flags) {
    const bool sleep = flags & DEQUEUE_SLEEP;
    update_curr(rq, q);
    if (!(flags & DEQUEUE_DELAYED)) {
        const bool delay = sleep && !(flags & DEQUEUE_SPECIAL);
        if (feat_[feature::DELAY_DEQUEUE] && delay && !entity_eligible(q, se)) {
            clear_buddies(rq, q, se);
            update_load_avg(q, rq.clock, se, 0);
            set_delayed(rq, se);
            return false;
        }
    }
    update_load_avg(q, rq.clock, se, LOAD_AVG_UPDATE_TG);
    se_update_runnable(se);
    clear_buddies(rq, q, se);
    update_entity_lag(q, se);
    if (feat_[feature::PLACE_REL_DEADLINE] && !sleep) {
        se.deadline -= se.vruntime;
        se.rel_deadline = true;
    }
    if (&se != q.curr) q.erase(&se);
    se.on_rq = false;
    account_dequeue(rq, q, se);
    update_cfs_group(rq, se);
    if ((flags & (DEQUEUE_SAVE | DEQUEUE_MOVE)) != DEQUEUE_SAVE) update_min_vruntime(q);
    if (flags & DEQUEUE_DELAYED) { // finish_delayed_dequeue_entity
        clear_delayed(rq, se);
        if (feat_[feature::DELAY_ZERO] && se.vlag > 0) se.vlag = 0;
    }
    return true;
}

int eevdf_class::dequeue_entities(runqueue& rq, sched_entity* se, unsigned flags) {
    const bool task_sleep = flags & DEQUEUE_SLEEP;
    task* p = se->owner;
    const unsigned h_nr = p ? 1 : 0;
    const unsigned idle = p && p->policy == sched_policy::idle ? 1 : 0;
    std::uint64_t slice = p ? 0 : se->my_q->min_slice();
    sched_entity* const first = se;
    for (; se; se = se->parent) {
        cfs_rq& q = cfs_rq_of(rq, *se);
        if (!dequeue_entity(rq, q, *se, flags)) {
            if (p && &p->se == se) return -1; // delayed: still queued and counted
            break;                            // a group entity delayed: the levels above stay
        }
        if (se == first && p) p->on_rq = false;
        q.h_nr_running -= h_nr;
        q.idle_h_nr_running -= idle;
        if (q.throttled) return 0; // above a throttled level the task was not counted
        if (q.load) {              // the parent stays: it has other entities queued
            slice = q.min_slice();
            se = se->parent;
            if (task_sleep && se && !q.throttle_count) set_next_buddy(rq, se);
            break;
        }
        flags |= DEQUEUE_SLEEP;
        flags &= ~(DEQUEUE_DELAYED | DEQUEUE_SPECIAL);
    }
    if (!update_levels_above(rq, se, -static_cast<int>(h_nr), -static_cast<int>(idle), &slice)) return 0;
    rq.sub_nr_running(h_nr);
    rq.idle_policy_running -= idle;
    return 1;
}

bool eevdf_class::dequeue_task(runqueue& rq, task& p, unsigned flags) {
    // Finishing a delayed dequeue (DEQUEUE_DELAYED): util_est already let the task go at its sleep.
    const bool finish_delayed = flags & DEQUEUE_DELAYED;
    if (!finish_delayed) util_est_dequeue(rq, p);
    const int dequeued = dequeue_entities(rq, &p.se, flags);
    if ((flags & DEQUEUE_SLEEP) && !finish_delayed) util_est_update(p);
    return dequeued >= 0;
}

void eevdf_class::yield_task(runqueue& rq) {
    if (rq.nr_running == 1) return;
    sched_entity& se = rq.curr->se;
    cfs_rq& q = cfs_rq_of(rq, se);
    clear_buddies(rq, q, se);
    update_curr(rq, q);
    se.deadline += calc_delta_fair(se.slice, se);
}

sched_entity* eevdf_class::pick_eevdf(cfs_rq& q) const {
    sched_entity* first = q.first();
    sched_entity* curr = q.curr;
    if (q.nr_running == 1) return curr && curr->on_rq ? curr : first;
    if (curr && (!curr->on_rq || !entity_eligible(q, *curr))) curr = nullptr;
    if (feat_[feature::RUN_TO_PARITY] && curr && curr->vlag == curr->deadline) return curr;
    // The heap search: the leftmost (earliest-deadline) entity whose vruntime is eligible.
    sched_entity* best = q.tree.first_eligible([&](std::int64_t v) { return vruntime_eligible(q, v); });
    if (!best || (curr && curr->deadline < best->deadline)) best = curr;
    return best;
}

bool eevdf_class::do_preempt_short(const cfs_rq& q, const sched_entity& pse, const sched_entity& se) const {
    if (!feat_[feature::PREEMPT_SHORT]) return false;
    if (pse.slice >= se.slice) return false;
    if (!entity_eligible(q, pse)) return false;
    if (pse.deadline < se.deadline) return true;
    return !entity_eligible(q, se);
}

void eevdf_class::check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags) {
    task& curr = *rq.curr;
    sched_entity* se = &curr.se;
    sched_entity* pse = &p.se;
    if (se == pse || ignore_wakeup(rq, p)) return;
    if (feat_[feature::NEXT_BUDDY] && !(wake_flags & WF_FORK) && !pse->sched_delayed) set_next_buddy(rq, pse);
    if (rq.need_resched) return;
    if (!feat_[feature::WAKEUP_PREEMPTION]) return;
    // Decide between the entities that share a queue: curr's and p's, or their groups'.
    find_matching_se(se, pse);
    const bool cse_idle = se->owner && se->owner->policy == sched_policy::idle;
    const bool pse_idle = pse->owner && pse->owner->policy == sched_policy::idle;
    if (cse_idle && !pse_idle) {
        core_.resched_curr(rq);
        return;
    }
    if (cse_idle != pse_idle) return;
    if (p.policy != sched_policy::normal) return;
    cfs_rq& q = cfs_rq_of(rq, *se);
    update_curr(rq, q);
    if (do_preempt_short(q, *pse, *se) && se->vlag == se->deadline) se->vlag = se->deadline + 1;
    if (pick_eevdf(q) == pse) core_.resched_curr(rq);
}

sched_entity* eevdf_class::pick_next_entity(runqueue& rq, cfs_rq& q) {
    if (feat_[feature::NEXT_BUDDY] && q.next && entity_eligible(q, *q.next)) return q.next;
    sched_entity* se = pick_eevdf(q);
    if (!se->sched_delayed) return se;
    // A delayed sleeper got picked: it has recovered its lag. Dequeue it for real.
    dequeue_entities(rq, se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
    return nullptr;
}

task* eevdf_class::pick_next_task(runqueue& rq, task*) {
    for (;;) { // down from the root; again from the root after dequeuing a delayed entity
        cfs_rq* q = &rq.cfs;
        if (q->nr_running == 0) return nullptr;
        sched_entity* se = nullptr;
        do {
            if (q->curr && q->curr->on_rq) update_curr(rq, *q);
            se = pick_next_entity(rq, *q);
            if (!se) break;
            q = se->my_q;
        } while (q);
        if (se) return se->owner;
    }
}

void eevdf_class::put_prev_task(runqueue& rq, task& p) {
    put_prev_chain(rq, p);
}

void eevdf_class::set_next_task(runqueue& rq, task& p) {
    set_next_chain(rq, p);
}

void eevdf_class::put_prev_entity(runqueue& rq, cfs_rq& q, sched_entity& se) {
    if (se.on_rq) {
        update_curr(rq, q);
        q.insert(&se, se.deadline);
        update_load_avg(q, rq.clock, se, 0);
    }
    q.curr = nullptr;
}

void eevdf_class::set_next_entity(runqueue& rq, cfs_rq& q, sched_entity& se) {
    clear_buddies(rq, q, se);
    if (se.on_rq) {
        q.erase(&se);
        update_load_avg(q, rq.clock, se, LOAD_AVG_UPDATE_TG);
        se.vlag = se.deadline; // the RUN_TO_PARITY marker
    }
    if (se.owner) task_became_curr(rq, se);
    se.exec_start = rq.clock;
    q.curr = &se;
    se.prev_sum_exec_runtime = se.sum_exec_runtime;
}

void eevdf_class::task_tick(runqueue& rq, task& p) {
    for (sched_entity* se = &p.se; se; se = se->parent) { // entity_tick at every level
        cfs_rq& q = cfs_rq_of(rq, *se);
        update_curr(rq, q);
        update_load_avg(q, rq.clock, *se, LOAD_AVG_UPDATE_TG);
        update_cfs_group(rq, *se);
    }
}

void eevdf_class::task_fork(runqueue& rq, task& p, task*) {
    if (groups_on_) set_task_rq(rq, p);
    p.se.vlag = 0;
    p.se.slice = default_slice(p.se);
}

void eevdf_class::switching_to(runqueue&, task& p) {
    if (!p.se.slice) p.se.slice = default_slice(p.se);
}

// v6.12 reweight_entity: the lag (V - v) and a relative deadline scale by old/new weight, so that the
// entity keeps its lag w * (V - v); a queued entity is placed again with it.
void eevdf_class::reweight_entity(runqueue& rq, cfs_rq& q, sched_entity& se, std::uint32_t weight) {
    const bool curr = q.curr == &se;
    if (se.on_rq) {
        update_curr(rq, q);
        update_entity_lag(q, se);
        se.deadline -= avg_vruntime(q);
        se.rel_deadline = true;
        if (!curr) q.erase(&se);
        q.load -= se.weight;
    }
    const std::int64_t old_w = se.weight, new_w = weight;
    se.vlag = se.vlag * old_w / new_w;
    if (se.rel_deadline) se.deadline = se.deadline * old_w / new_w;
    reweight_entity_load_avg(q, se, weight);
    if (se.on_rq) {
        q.load += se.weight;
        place_entity(q, se, 0);
        if (!curr) q.insert(&se, se.deadline);
        update_min_vruntime(q);
    }
}

void eevdf_class::migrate_task_rq(task& p, unsigned) {
    // Lag, not vruntime, carries the position across queues (a balancer move dequeued it without
    // DEQUEUE_SLEEP: lag and relative deadline are saved). A queued task's averages leave the old queue at
    // once; a waking task's at the old queue's next update.
    cfs_rq& q = cfs_rq_of(core_.rq(p.cpu), p.se);
    if (p.migrating)
        detach_entity_load_avg(q, p.se);
    else
        remove_entity_load_avg(q, p.se);
    p.se.exec_start = 0;
}

} // namespace warmsched::scheduler
