// PELT on the fair queues; see load_avg.h.
#include "scheduler/fair/load_avg.h"

#include <algorithm>
#include <cstdlib>

namespace warmsched::scheduler {

namespace {
// A task is runnable while queued and not a delayed sleeper; a group entity counts its queue's
// runnable tasks (se->runnable_weight).
unsigned se_runnable(const sched_entity& se) {
    if (se.my_q) return se.runnable_weight;
    return se.on_rq && !se.sched_delayed ? 1 : 0;
}

void update_se(nsec now, const cfs_rq& q, sched_entity& se) {
    if (pelt_update_sum(now, se.avg, se.on_rq ? 1 : 0, se_runnable(se), q.curr == &se))
        pelt_update_avg(se.avg, se.weight);
}

void enqueue_load(cfs_rq& q, const sched_entity& se) {
    q.avg.load_avg += se.avg.load_avg;
    q.avg.load_sum += se.weight * se.avg.load_sum;
}
void dequeue_load(cfs_rq& q, const sched_entity& se) {
    q.avg.load_avg -= std::min(q.avg.load_avg, se.avg.load_avg);
    q.avg.load_sum -= std::min(q.avg.load_sum, se.weight * se.avg.load_sum);
    // keep the sum consistent with the average (the kernel clamps the same way)
    q.avg.load_sum = std::max(q.avg.load_sum, q.avg.load_avg * load_avg_period);
}
template <class T> void sub_positive(T& v, T d) {
    v -= std::min(v, d);
}
// add_positive: v += d, not below zero.
void add_positive(std::uint64_t& v, std::int64_t d) {
    if (d < 0 && static_cast<std::uint64_t>(-d) > v)
        v = 0;
    else
        v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v) + d);
}

// add_tg_cfs_propagate: a change of `runnable_sum` in q for its group entity to pick up.
void add_tg_cfs_propagate(cfs_rq& q, std::int64_t runnable_sum) {
    q.propagate = true;
    q.prop_runnable_sum += runnable_sum;
}

// update_tg_cfs_util/runnable/load: the group entity `se` of `gq` takes the group queue's utilization
// and runnable average, and a load sum estimated from the runnable sum propagated up to it; its queue
// `q` follows.
// update_tg_cfs_util and update_tg_cfs_runnable: one average (and its sum) of sched_avg.
void update_tg_cfs_avg(cfs_rq& q, sched_entity& se, const cfs_rq& gq, std::uint64_t sched_avg::*avg,
                       std::uint64_t sched_avg::*sum) {
    const std::int64_t delta_avg =
        static_cast<std::int64_t>(gq.avg.*avg) - static_cast<std::int64_t>(se.avg.*avg);
    if (!delta_avg) return;
    const std::uint64_t divider = pelt_divider(q.avg);
    se.avg.*avg = gq.avg.*avg;
    const std::uint64_t new_sum = se.avg.*avg * divider;
    const std::int64_t delta_sum =
        static_cast<std::int64_t>(new_sum) - static_cast<std::int64_t>(se.avg.*sum);
    se.avg.*sum = new_sum;
    add_positive(q.avg.*avg, delta_avg);
    add_positive(q.avg.*sum, delta_sum);
    q.avg.*sum = std::max(q.avg.*sum, q.avg.*avg * load_avg_period);
}
void update_tg_cfs_load(cfs_rq& q, sched_entity& se, cfs_rq& gq) {
    std::int64_t runnable_sum = gq.prop_runnable_sum;
    if (!runnable_sum) return;
    gq.prop_runnable_sum = 0;
    const std::int64_t divider = static_cast<std::int64_t>(pelt_divider(q.avg));
    if (runnable_sum >= 0) {
        // Until the CPU is saturated, running == runnable: add it, clipped at the maximum sum.
        runnable_sum += static_cast<std::int64_t>(se.avg.load_sum);
        runnable_sum = std::min(runnable_sum, divider);
    } else {
        // Assume the group's tasks are equally runnable; never inflate the entity's sum.
        std::int64_t load_sum = 0;
        if (gq.load) load_sum = static_cast<std::int64_t>(gq.avg.load_sum / gq.load);
        runnable_sum = std::min(static_cast<std::int64_t>(se.avg.load_sum), load_sum);
    }
    const std::int64_t running_sum = static_cast<std::int64_t>(se.avg.util_sum >> 10);
    runnable_sum = std::max(runnable_sum, running_sum);
    const std::int64_t load_sum = static_cast<std::int64_t>(se.weight) * runnable_sum;
    const std::int64_t load_avg = load_sum / divider;
    const std::int64_t delta_avg = load_avg - static_cast<std::int64_t>(se.avg.load_avg);
    if (!delta_avg) return;
    const std::int64_t delta_sum = load_sum - static_cast<std::int64_t>(se.weight * se.avg.load_sum);
    se.avg.load_sum = static_cast<std::uint64_t>(runnable_sum);
    se.avg.load_avg = static_cast<std::uint64_t>(load_avg);
    add_positive(q.avg.load_avg, delta_avg);
    add_positive(q.avg.load_sum, delta_sum);
    q.avg.load_sum = std::max(q.avg.load_sum, q.avg.load_avg * load_avg_period);
}

// propagate_entity_load_avg: a group entity whose queue changed by attach/detach takes the change.
bool propagate_entity_load_avg(cfs_rq& q, sched_entity& se) {
    cfs_rq* gq = se.my_q;
    if (!gq || !gq->propagate) return false;
    gq->propagate = false;
    add_tg_cfs_propagate(q, gq->prop_runnable_sum);
    update_tg_cfs_avg(q, se, *gq, &sched_avg::util_avg, &sched_avg::util_sum);
    update_tg_cfs_avg(q, se, *gq, &sched_avg::runnable_avg, &sched_avg::runnable_sum);
    update_tg_cfs_load(q, se, *gq);
    return true;
}

} // namespace

// update_tg_load_avg: a group queue's contribution to tg->load_avg follows its load_avg once it has
// drifted by more than 1/64 (and, in v6.12, at most once per millisecond). Nothing for the root.
void update_tg_load_avg(cfs_rq& q, nsec now) {
    if (!q.tg_load_avg) return;
    if (q.tg_load_avg_ratelimit && q.last_update_tg_load_avg != cfs_rq::never_updated &&
        now - q.last_update_tg_load_avg < q.tg_load_avg_ratelimit)
        return;
    const std::int64_t delta = static_cast<std::int64_t>(q.avg.load_avg) - q.tg_load_avg_contrib;
    if (std::llabs(delta) > q.tg_load_avg_contrib / 64) {
        *q.tg_load_avg += delta;
        q.tg_load_avg_contrib = static_cast<std::int64_t>(q.avg.load_avg);
        q.last_update_tg_load_avg = now;
    }
}

namespace {
// update_cfs_rq_load_avg at the queue's PELT clock `now`.
bool decay_cfs_rq(cfs_rq& q, nsec now) {
    bool decayed = false;
    if (q.removed.nr) {
        const std::uint64_t divider = pelt_divider(q.avg);
        sub_positive(q.avg.util_avg, q.removed.util_avg);
        sub_positive(q.avg.util_sum, q.removed.util_avg * divider);
        q.avg.util_sum = std::max(q.avg.util_sum, q.avg.util_avg * load_avg_period);
        sub_positive(q.avg.load_avg, q.removed.load_avg);
        sub_positive(q.avg.load_sum, q.removed.load_avg * divider);
        q.avg.load_sum = std::max(q.avg.load_sum, q.avg.load_avg * load_avg_period);
        sub_positive(q.avg.runnable_avg, q.removed.runnable_avg);
        sub_positive(q.avg.runnable_sum, q.removed.runnable_avg * divider);
        q.avg.runnable_sum = std::max(q.avg.runnable_sum, q.avg.runnable_avg * load_avg_period);
        add_tg_cfs_propagate(q, -static_cast<std::int64_t>((q.removed.runnable_avg * divider) >> 10));
        q.removed = {};
        decayed = true;
    }
    const unsigned runnable = q.h_nr_running - std::min(q.h_nr_running, q.h_nr_delayed);
    if (pelt_update_sum(now, q.avg, q.load, runnable, q.curr != nullptr)) {
        pelt_update_avg(q.avg, 1);
        decayed = true;
    }
    return decayed;
}
} // namespace

bool update_cfs_rq_load_avg(cfs_rq& q, nsec now) {
    return decay_cfs_rq(q, q.clock_pelt(now));
}

void attach_entity_load_avg(cfs_rq& q, sched_entity& se) {
    const std::uint64_t divider = pelt_divider(q.avg);
    se.avg.last_update_time = q.avg.last_update_time;
    se.avg.attached = true;
    se.avg.period_contrib = q.avg.period_contrib;
    se.avg.util_sum = se.avg.util_avg * divider;
    se.avg.runnable_sum = se.avg.runnable_avg * divider;
    se.avg.load_sum = se.weight ? se.avg.load_avg * divider / se.weight : 0;
    enqueue_load(q, se);
    q.avg.util_avg += se.avg.util_avg;
    q.avg.util_sum += se.avg.util_sum;
    q.avg.runnable_avg += se.avg.runnable_avg;
    q.avg.runnable_sum += se.avg.runnable_sum;
    add_tg_cfs_propagate(q, static_cast<std::int64_t>(se.avg.load_sum));
}

void reweight_entity_load_avg(cfs_rq& q, sched_entity& se, std::uint32_t weight) {
    const std::uint64_t old = se.weight ? se.weight : 1;
    if (se.avg.attached) {
        dequeue_load(q, se);
        se.avg.load_avg = se.avg.load_sum * weight / pelt_divider(se.avg);
    } else {
        se.avg.load_avg = se.avg.load_avg * weight / old; // not on a queue's sums yet (a new task)
    }
    se.weight = weight;
    se.inv_weight = inverse_weight(weight);
    if (se.avg.attached) enqueue_load(q, se);
}

void detach_entity_load_avg(cfs_rq& q, sched_entity& se) {
    se.avg.attached = false;
    dequeue_load(q, se);
    sub_positive(q.avg.util_avg, se.avg.util_avg);
    sub_positive(q.avg.util_sum, se.avg.util_sum);
    q.avg.util_sum = std::max(q.avg.util_sum, q.avg.util_avg * load_avg_period);
    sub_positive(q.avg.runnable_avg, se.avg.runnable_avg);
    sub_positive(q.avg.runnable_sum, se.avg.runnable_sum);
    q.avg.runnable_sum = std::max(q.avg.runnable_sum, q.avg.runnable_avg * load_avg_period);
    add_tg_cfs_propagate(q, -static_cast<std::int64_t>(se.avg.load_sum));
}

void update_load_avg(cfs_rq& q, nsec now, sched_entity& se, unsigned flags) {
    const nsec pelt_now = q.clock_pelt(now);
    if (se.avg.attached && !(flags & LOAD_AVG_SKIP_AGE)) update_se(pelt_now, q, se);
    bool decayed = decay_cfs_rq(q, pelt_now);
    decayed |= propagate_entity_load_avg(q, se);
    if (!se.avg.attached && (flags & LOAD_AVG_DO_ATTACH)) {
        attach_entity_load_avg(q, se);
        update_tg_load_avg(q, now);
    } else if (flags & LOAD_AVG_DO_DETACH) {
        detach_entity_load_avg(q, se);
        update_tg_load_avg(q, now);
    } else if (decayed && (flags & LOAD_AVG_UPDATE_TG)) {
        update_tg_load_avg(q, now);
    }
}

void remove_entity_load_avg(cfs_rq& q, sched_entity& se) {
    // sync_entity_load_avg: age the entity to the queue's last update, without the queue's lock.
    if (se.avg.attached && pelt_update_sum(q.avg.last_update_time, se.avg, 0, 0, false))
        pelt_update_avg(se.avg, se.weight);
    ++q.removed.nr;
    q.removed.util_avg += se.avg.util_avg;
    q.removed.load_avg += se.avg.load_avg;
    q.removed.runnable_avg += se.avg.runnable_avg;
    se.avg.attached = false;
}

// The runqueue overloads: the entity's queue on that CPU.
void update_load_avg(runqueue& rq, sched_entity& se, unsigned flags) {
    update_load_avg(cfs_rq_of(rq, se), rq.clock, se, flags);
}
bool update_cfs_rq_load_avg(runqueue& rq, nsec now) {
    return update_cfs_rq_load_avg(rq.cfs, now);
}
void remove_entity_load_avg(runqueue& rq, sched_entity& se) {
    remove_entity_load_avg(cfs_rq_of(rq, se), se);
}
void detach_entity_load_avg(runqueue& rq, sched_entity& se) {
    detach_entity_load_avg(cfs_rq_of(rq, se), se);
}
void reweight_entity_load_avg(runqueue& rq, sched_entity& se, std::uint32_t weight) {
    reweight_entity_load_avg(cfs_rq_of(rq, se), se, weight);
}
void attach_entity_load_avg(runqueue& rq, sched_entity& se) {
    attach_entity_load_avg(cfs_rq_of(rq, se), se);
}
void post_init_entity_util_avg(runqueue& rq, sched_entity& se) {
    post_init_entity_util_avg(cfs_rq_of(rq, se), se);
}

void init_entity_runnable_average(sched_entity& se) {
    se.avg = sched_avg{};
    se.avg.load_avg = se.weight;
}

void post_init_entity_util_avg(cfs_rq& q, sched_entity& se) {
    const long long cap = (1024 - static_cast<long long>(q.avg.util_avg)) / 2;
    if (cap > 0) {
        if (q.avg.util_avg != 0) {
            se.avg.util_avg = q.avg.util_avg * se.weight / (q.avg.load_avg + 1);
            se.avg.util_avg = std::min<std::uint64_t>(se.avg.util_avg, static_cast<std::uint64_t>(cap));
        } else {
            se.avg.util_avg = static_cast<std::uint64_t>(cap);
        }
    }
    se.avg.runnable_avg = se.avg.util_avg;
}

std::uint64_t task_util(const task& p) {
    return p.se.avg.util_avg;
}
std::uint64_t task_util_est(const task& p) {
    return std::max(p.se.avg.util_est_ewma, p.se.avg.util_est_enqueued);
}

void util_est_enqueue(runqueue& rq, const task& p) {
    rq.cfs.util_est_enqueued += task_util_est(p);
}
void util_est_dequeue(runqueue& rq, const task& p) {
    sub_positive(rq.cfs.util_est_enqueued, task_util_est(p));
}

void util_est_update(task& p) {
    sched_avg& a = p.se.avg;
    const std::uint64_t dequeued = task_util(p);
    a.util_est_enqueued = dequeued;
    if (a.util_est_ewma <= dequeued) { // utilization went up: follow at once
        a.util_est_ewma = dequeued;
        return;
    }
    a.util_est_ewma -= (a.util_est_ewma - dequeued) / 4; // EWMA with weight 1/4
}

void update_blocked_averages(runqueue& rq, nsec now) {
    now = std::max(now, rq.clock);
    // __update_blocked_fair: the group queues bottom-up, each group entity in its parent queue after
    // its own queue, then the root. A queue with nothing left to decay is skipped (the kernel takes it
    // off the leaf list).
    for (cfs_rq* q : rq.leaf_cfs_rqs) {
        if (!q->load && !q->avg.load_sum && !q->avg.util_sum && !q->avg.runnable_sum && !q->propagate)
            continue;
        if (update_cfs_rq_load_avg(*q, now)) update_tg_load_avg(*q, now);
        sched_entity& se = *q->se;
        if (se.avg.attached) update_load_avg(cfs_rq_of(rq, se), now, se, LOAD_AVG_UPDATE_TG);
    }
    update_cfs_rq_load_avg(rq, now);
}

std::uint64_t cpu_util(const runqueue& rq, std::uint64_t capacity) {
    return std::min(std::max(rq.cfs.avg.util_avg, rq.cfs.util_est_enqueued), capacity);
}

// update_cfs_rq_h_load: the root queue's load, scaled down the hierarchy by each group entity's share
// of its parent queue's load (computed afresh; the kernel caches it per queue for a jiffy).
std::uint64_t cfs_rq_h_load(const runqueue& rq, const cfs_rq& q) {
    if (!q.se) return rq.cfs.avg.load_avg;
    const cfs_rq& parent = cfs_rq_of(rq, *q.se);
    return cfs_rq_h_load(rq, parent) * q.se->avg.load_avg / (parent.avg.load_avg + 1);
}

std::uint64_t task_h_load(const runqueue& rq, const task& p) {
    const cfs_rq& q = cfs_rq_of(rq, p.se);
    return p.se.avg.load_avg * cfs_rq_h_load(rq, q) / (q.avg.load_avg + 1);
}

} // namespace warmsched::scheduler
