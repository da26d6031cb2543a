// Shared fair-class accounting and CPU selection; see fair_class.h.
#include "scheduler/fair/fair_class.h"

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/load_avg.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

namespace warmsched::scheduler {

fair_class::fair_class(scheduler& core)
    : core_(core), feat_(core.config().features), tun_(core.config().tunables), placement_(core), fork_(core),
      balancer_(core), triggers_(core, balancer_) {}

std::int64_t fair_class::calc_delta_fair(nsec delta, const sched_entity& se) {
    if (se.weight == nice_0_weight) return static_cast<std::int64_t>(delta);
    // __calc_delta(delta, NICE_0_LOAD, &se->load): delta * 1024 * inv_weight >> 32.
    const unsigned __int128 v = static_cast<unsigned __int128>(delta) * nice_0_weight * se.inv_weight;
    return static_cast<std::int64_t>(v >> 32);
}

nsec fair_class::scale_by_share(nsec delta, std::uint64_t weight, std::uint64_t load) {
    if (load == 0) return delta;
    return static_cast<nsec>(static_cast<unsigned __int128>(delta) * weight / load);
}

nsec fair_class::update_curr_se(runqueue& rq, sched_entity& curr) {
    if (rq.clock <= curr.exec_start) return 0;
    const nsec delta = rq.clock - curr.exec_start;
    curr.exec_start = rq.clock;
    curr.sum_exec_runtime += delta;
    if (curr.owner) curr.owner->stats.exec_max = std::max(curr.owner->stats.exec_max, delta);
    if (groups_on_ && curr.owner) core_.groups().charge_usage(*curr.owner, delta);
    return delta;
}

bool fair_class::core_bandwidth_active() const {
    return core_.bandwidth().active();
}

void fair_class::charge_bandwidth(runqueue& rq, task& p, nsec delta) {
    core_.bandwidth().account(rq, p, delta);
}

void fair_class::group_enqueued(runqueue& rq, const task& p) {
    if (core_.bandwidth().active()) core_.bandwidth().task_enqueued(rq, p);
}

void fair_class::group_dequeued(runqueue& rq, const task& p) {
    if (core_.bandwidth().active()) core_.bandwidth().task_dequeued(rq, p);
}

void fair_class::set_groups(bool enabled) {
    for (unsigned c = 0; c < core_.num_cpus(); ++c) {
        runqueue& rq = core_.rq(c);
        for (const auto& gs : rq.tg)
            if (gs) // tasks' entities may point at the old groups' queues
                throw std::logic_error("set_cgroups: the task groups were already used on CPU " +
                                       std::to_string(c));
        rq.tg.clear();
        rq.leaf_cfs_rqs.clear();
        if (enabled) rq.tg.resize(core_.groups().size());
    }
    groups_on_ = enabled;
    tg_load_avg_.assign(enabled ? core_.groups().size() : 0, 0);
}

group_sched& fair_class::tg_rq(runqueue& rq, group_id g) {
    if (rq.tg[g]) return *rq.tg[g];
    // init_tg_cfs_entry: the queue, and the entity queued on the parent's queue (the root's for a
    // top-level group), starting with the group's full shares and no load history.
    const task_group& tg = core_.groups()[g];
    group_sched* parent = tg.parent ? &tg_rq(rq, tg.parent) : nullptr;
    auto gs = std::make_unique<group_sched>();
    gs->q.tg = g;
    gs->q.se = &gs->se;
    gs->q.tg_load_avg = &tg_load_avg_[g];
    gs->q.tg_load_avg_ratelimit = feat_[feature::TG_LOAD_AVG_RATELIMIT] ? 1'000'000 : 0; // NSEC_PER_MSEC
    gs->se.my_q = &gs->q;
    gs->se.cfs_rq = parent ? &parent->q : nullptr;
    gs->se.parent = parent ? &parent->se : nullptr;
    gs->se.depth = tg.depth - 1;
    gs->se.weight = static_cast<std::uint32_t>(tg.shares);
    gs->se.inv_weight = inverse_weight(gs->se.weight);
    gs->se.slice = tun_.base_slice_ns;
    gs->se.avg = sched_avg{};
    // sync_throttle: a queue created under a throttled ancestor starts throttled with it (empty, so
    // with its PELT clock stopped in both models).
    if (core_.bandwidth().active()) {
        gs->q.throttle_count = core_.bandwidth().throttle_count(g, rq.cpu);
        if (gs->q.throttle_count) {
            gs->q.pelt_stopped = true;
            gs->q.throttled_clock_pelt = rq.clock;
        }
    }
    rq.tg[g] = std::move(gs);
    // the leaf list, deepest first (stable among equal depths: allocation order)
    cfs_rq* q = &rq.tg[g]->q;
    auto pos = std::find_if(rq.leaf_cfs_rqs.begin(), rq.leaf_cfs_rqs.end(),
                            [&](const cfs_rq* o) { return core_.groups()[o->tg].depth < tg.depth; });
    rq.leaf_cfs_rqs.insert(pos, q);
    return *rq.tg[g];
}

const group_sched* fair_class::group_rq(unsigned cpu, group_id g) const {
    const runqueue& rq = core_.rq(cpu);
    return g < rq.tg.size() ? rq.tg[g].get() : nullptr;
}

void fair_class::set_task_rq(runqueue& rq, task& p) {
    cfs_rq* q = p.cgroup && groups_on_ ? &tg_rq(rq, p.cgroup).q : nullptr;
    if (p.se.cfs_rq == q) return;
    if (p.se.avg.attached) { // still in the sums of the group queue it leaves (detach_entity_cfs_rq)
        cfs_rq& old_q = cfs_rq_of(rq, p.se);
        update_load_avg(old_q, rq.clock, p.se, 0);
        detach_entity_load_avg(old_q, p.se);
        update_tg_load_avg(old_q, rq.clock);
    }
    p.se.cfs_rq = q;
    p.se.parent = q ? q->se : nullptr;
    p.se.depth = q ? q->se->depth + 1 : 0;
}

std::uint32_t fair_class::calc_group_shares(const cfs_rq& gq) const {
    const std::int64_t shares = static_cast<std::int64_t>(core_.groups()[gq.tg].shares);
    const std::int64_t load = std::max<std::int64_t>(static_cast<std::int64_t>(gq.load),
                                                     static_cast<std::int64_t>(gq.avg.load_avg));
    const std::int64_t tg_weight = *gq.tg_load_avg - gq.tg_load_avg_contrib + load;
    std::int64_t w = shares * load;
    if (tg_weight) w /= tg_weight;
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(w, 2, shares)); // MIN_SHARES
}

bool fair_class::update_levels_above(runqueue& rq, sched_entity* se, int delta, int idle,
                                     std::uint64_t* slice) {
    for (; se; se = se->parent) {
        cfs_rq& q = cfs_rq_of(rq, *se);
        update_load_avg(q, rq.clock, *se, LOAD_AVG_UPDATE_TG);
        se_update_runnable(*se);
        update_cfs_group(rq, *se);
        if (slice) {
            if (*slice != ~0ull) {
                q.set_slice(se, *slice);
                se->custom_slice = *slice;
            }
            *slice = q.min_slice();
        }
        q.h_nr_running += static_cast<unsigned>(delta);
        q.idle_h_nr_running += static_cast<unsigned>(idle);
        if (q.throttled) return false;
    }
    return true;
}

void fair_class::update_cfs_group(runqueue& rq, sched_entity& se) {
    cfs_rq* gq = se.my_q;
    if (!gq || gq->throttle_count) return;
    if (feat_[feature::GROUP_EMPTY_KEEPS_WEIGHT] && !gq->load) return; // for delayed dequeue
    const std::uint32_t shares = calc_group_shares(*gq);
    if (feat_[feature::GROUP_REWEIGHT_ON_CHANGE] && shares == se.weight) return;
    reweight_entity(rq, cfs_rq_of(rq, se), se, shares);
}

void fair_class::find_matching_se(sched_entity*& se, sched_entity*& pse) {
    unsigned se_depth = se->depth, pse_depth = pse->depth;
    while (se_depth > pse_depth) --se_depth, se = se->parent;
    while (pse_depth > se_depth) --pse_depth, pse = pse->parent;
    while (!is_same_group(*se, *pse)) se = se->parent, pse = pse->parent;
}

void fair_class::set_next_buddy(runqueue& rq, sched_entity* se) {
    for (; se; se = se->parent) {
        if (!se->on_rq) return;
        cfs_rq_of(rq, *se).next = se;
    }
}
void fair_class::set_last_buddy(runqueue& rq, sched_entity* se) {
    for (; se; se = se->parent) {
        if (!se->on_rq) return;
        cfs_rq_of(rq, *se).last = se;
    }
}
void fair_class::set_skip_buddy(runqueue& rq, sched_entity* se) {
    for (; se; se = se->parent) cfs_rq_of(rq, *se).skip = se;
}

void fair_class::clear_buddies(runqueue& rq, cfs_rq& q, sched_entity& se) {
    // __clear_buddies_{last,next,skip}: up the chain while the entity is that level's buddy.
    const auto clear_up = [&](sched_entity* cfs_rq::*buddy) {
        for (sched_entity* s = &se; s; s = s->parent) {
            cfs_rq& l = s == &se ? q : cfs_rq_of(rq, *s);
            if (l.*buddy != s) break;
            l.*buddy = nullptr;
        }
    };
    if (q.last == &se) clear_up(&cfs_rq::last);
    if (q.next == &se) clear_up(&cfs_rq::next);
    if (q.skip == &se) clear_up(&cfs_rq::skip);
}

void fair_class::task_became_curr(runqueue& rq, sched_entity& se) {
    task& p = *se.owner;
    if (se.on_rq) rq.cfs_tasks.move_to_front(p); // the MRU end
    if (rq.cfs.load >= 2ull * se.weight)
        p.stats.slice_max = std::max(p.stats.slice_max, se.sum_exec_runtime - se.prev_sum_exec_runtime);
}

void fair_class::put_prev_chain(runqueue& rq, task& p) {
    for (sched_entity* se = &p.se; se; se = se->parent) put_prev_entity(rq, cfs_rq_of(rq, *se), *se);
}

void fair_class::set_next_chain(runqueue& rq, task& p) {
    for (sched_entity* se = &p.se; se; se = se->parent) set_next_entity(rq, cfs_rq_of(rq, *se), *se);
}

void fair_class::switch_tasks(runqueue& rq, task& prev, task& next) {
    sched_entity* se = &next.se;
    sched_entity* pse = &prev.se;
    while (!is_same_group(*se, *pse)) {
        const unsigned se_depth = se->depth, pse_depth = pse->depth;
        if (se_depth <= pse_depth) {
            put_prev_entity(rq, cfs_rq_of(rq, *pse), *pse);
            pse = pse->parent;
        }
        if (se_depth >= pse_depth) {
            set_next_entity(rq, cfs_rq_of(rq, *se), *se);
            se = se->parent;
        }
    }
    cfs_rq& q = cfs_rq_of(rq, *se);
    put_prev_entity(rq, q, *pse);
    set_next_entity(rq, q, *se);
}

void fair_class::move_task_group(runqueue& rq, task& p, group_id g) {
    // A delayed-dequeue sleeper (EEVDF) finishes its dequeue first: it moves as a sleeping task.
    if (p.on_rq && p.se.sched_delayed) dequeue_task(rq, p, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
    const bool queued = p.on_rq, running = rq.curr == &p;
    if (queued) dequeue_task(rq, p, DEQUEUE_SAVE | DEQUEUE_MOVE);
    if (running) put_prev_chain(rq, p);
    // task_change_group_fair: detach from the old group's queue, attach to the new one.
    if (!queued) detach_vruntime(rq, cfs_rq_of(rq, p.se), p.se);
    p.cgroup = g;
    set_task_rq(rq, p);
    cfs_rq& q = cfs_rq_of(rq, p.se);
    if (!p.se.avg.attached) {
        update_load_avg(q, rq.clock, p.se, LOAD_AVG_SKIP_AGE);
        attach_entity_load_avg(q, p.se);
        update_tg_load_avg(q, rq.clock);
    }
    if (!queued) attach_vruntime(rq, q, p.se);
    if (queued) enqueue_task(rq, p, ENQUEUE_RESTORE | ENQUEUE_MOVE);
    if (running) {
        set_next_chain(rq, p);
        core_.resched_curr(rq);
    }
}

void fair_class::pelt_clock_emptied(runqueue& rq, cfs_rq& q) {
    q.pelt_stopped = true;
    q.throttled_clock_pelt = rq.clock;
}

void fair_class::pelt_clock_first_entity(runqueue& rq, cfs_rq& q) {
    if (!core_.bandwidth().task_based()) return; // per-cfs_rq: stopped until the unthrottle
    q.throttled_clock_pelt_time += rq.clock - q.throttled_clock_pelt;
    q.pelt_stopped = false;
}

void fair_class::check_enqueue_throttle(runqueue& rq, const task& p) {
    if (groups_on_ && core_.bandwidth().active()) core_.bandwidth().check_enqueue_throttle(rq, p);
}

void fair_class::throttle_cfs_rq(runqueue& rq, cfs_rq& q) {
    // Dequeue q's entity and every ancestor it leaves empty; the levels above lose q's tasks.
    const unsigned task_delta = q.h_nr_running, idle_delta = q.idle_h_nr_running,
                   delayed_delta = q.h_nr_delayed;
    sched_entity* se = q.se;
    for (; se; se = se->parent) {
        cfs_rq& l = cfs_rq_of(rq, *se);
        if (!se->on_rq) return; // already off (an empty queue throttled at enqueue or put_prev)
        // DEQUEUE_SPECIAL: no delayed dequeue here; a delayed entity finishes its dequeue.
        dequeue_entity(rq, l, *se,
                       DEQUEUE_SLEEP | DEQUEUE_SPECIAL | (se->sched_delayed ? DEQUEUE_DELAYED : 0u));
        l.h_nr_running -= task_delta;
        l.idle_h_nr_running -= idle_delta;
        l.h_nr_delayed -= delayed_delta;
        if (l.load) {
            se = se->parent;
            break;
        }
    }
    for (; se; se = se->parent) {
        cfs_rq& l = cfs_rq_of(rq, *se);
        update_load_avg(l, rq.clock, *se, 0);
        se_update_runnable(*se);
        l.h_nr_running -= task_delta;
        l.idle_h_nr_running -= idle_delta;
        l.h_nr_delayed -= delayed_delta;
    }
    rq.sub_nr_running(task_delta);
    rq.idle_policy_running -= idle_delta;
}

void fair_class::unthrottle_cfs_rq(runqueue& rq, cfs_rq& q) {
    if (!q.load) return; // nothing queued: nothing to put back
    const unsigned task_delta = q.h_nr_running, idle_delta = q.idle_h_nr_running,
                   delayed_delta = q.h_nr_delayed;
    sched_entity* se = q.se;
    for (; se; se = se->parent) {
        cfs_rq& l = cfs_rq_of(rq, *se);
        if (se->sched_delayed) // finish a delayed dequeue first
            dequeue_entity(rq, l, *se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
        else if (se->on_rq)
            break;
        enqueue_entity(rq, l, *se, ENQUEUE_WAKEUP);
        l.h_nr_running += task_delta;
        l.idle_h_nr_running += idle_delta;
        l.h_nr_delayed += delayed_delta;
        if (l.throttled) return; // an ancestor is throttled too
    }
    for (; se; se = se->parent) {
        cfs_rq& l = cfs_rq_of(rq, *se);
        update_load_avg(l, rq.clock, *se, LOAD_AVG_UPDATE_TG);
        se_update_runnable(*se);
        l.h_nr_running += task_delta;
        l.idle_h_nr_running += idle_delta;
        l.h_nr_delayed += delayed_delta;
        if (l.throttled) return;
    }
    rq.add_nr_running(task_delta);
    rq.idle_policy_running += idle_delta;
    if (rq.curr == rq.idle && rq.cfs.nr_running) core_.resched_curr(rq);
}

bool fair_class::ignore_wakeup(const runqueue& rq, const task& p) const {
    return groups_on_ && core_.bandwidth().active() && core_.bandwidth().ignore_wakeup(p, rq.cpu);
}

unsigned fair_class::select_fallback_rq(const task& p, unsigned prev_cpu) const {
    const cpu_layout& l = core_.layout();
    for (unsigned c = 0; c < core_.num_cpus(); ++c)
        if (l.node_of[c] == l.node_of[prev_cpu] && p.allowed_on(c)) return c;
    for (unsigned c = 0; c < core_.num_cpus(); ++c)
        if (p.allowed_on(c)) return c;
    return prev_cpu;
}

unsigned fair_class::select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) {
    unsigned cpu = prev_cpu;
    if (wake_flags & (WF_FORK | WF_EXEC)) {
        cpu = fork_.select(p, prev_cpu, wake_flags);
    } else {
        unsigned allowed = 0;
        for (unsigned c = 0; c < core_.num_cpus() && allowed < 2; ++c) allowed += p.allowed_on(c) ? 1 : 0;
        if (allowed > 1) cpu = placement_.select(p, prev_cpu, wake_flags, core_.probed());
    }
    return p.allowed_on(cpu) ? cpu : select_fallback_rq(p, prev_cpu);
}

bool fair_class::balance(runqueue& rq, task*) {
    // balance_fair: nothing to pull while a task of this class or a higher one can run here.
    if (rq.cfs.nr_running || core_.runnable_above(rq, *this)) return true;
    return triggers_.newidle_balance(rq, rq.clock) != 0;
}

void fair_class::switched_from(runqueue& rq, task& p) {
    // switched_from_fair -> detach_task_cfs_rq. A task not queued has a vruntime in its queue's virtual
    // time (vruntime_normalized: a queued one's dequeue made it relative): it leaves it, placed as a
    // sleeper first (CFS; EEVDF keeps its lag instead). Its averages leave the queue's sums now
    // (detach_entity_cfs_rq) instead of decaying there as blocked load of a task that is not fair.
    cfs_rq& q = cfs_rq_of(rq, p.se);
    if (!p.on_rq) detach_vruntime(rq, q, p.se);
    if (p.se.avg.attached) {
        update_load_avg(q, rq.clock, p.se, 0);
        detach_entity_load_avg(q, p.se);
        update_tg_load_avg(q, rq.clock);
    }
    // v6.12: a delayed-dequeue sleeper is still on the fair queue; its dequeue ends here, as a sleep.
    if (p.on_rq && p.se.sched_delayed) dequeue_task(rq, p, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
}

void fair_class::switched_to(runqueue& rq, task& p) {
    // switched_to_fair -> attach_task_cfs_rq: the averages join the queue's sums (the enqueue of a
    // queued task may have attached them already), a sleeper's vruntime its virtual time. Then a queued
    // task joining from another class preempts like a wakeup; a running one lost a higher class's
    // priority, so the CPU picks again. (It may have moved CPUs outside the class: its group's queue is
    // the one on this CPU.)
    if (groups_on_) set_task_rq(rq, p);
    cfs_rq& q = cfs_rq_of(rq, p.se);
    if (!p.se.avg.attached) {
        update_load_avg(q, rq.clock, p.se, 0);
        attach_entity_load_avg(q, p.se);
        update_tg_load_avg(q, rq.clock);
    }
    if (!p.on_rq) attach_vruntime(rq, q, p.se);
    if (!p.on_rq) return;
    if (rq.curr == &p)
        core_.resched_curr(rq);
    else
        core_.check_preempt_curr(rq, p, 0);
}

void fair_class::prio_changed(runqueue& rq, task& p, int old_prio) {
    // prio_changed_fair: a running task whose nice rose reschedules; a queued one may preempt.
    if (!p.on_rq) return;
    if (rq.curr == &p) {
        if (p.prio() > old_prio) core_.resched_curr(rq);
    } else {
        core_.check_preempt_curr(rq, p, 0);
    }
}

} // namespace warmsched::scheduler
