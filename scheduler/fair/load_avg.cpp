// PELT on the fair queues; see load_avg.h.
#include "scheduler/fair/load_avg.h"

#include <algorithm>

namespace warmsched::scheduler {

namespace {
bool se_runnable(const sched_entity& se) {
    return se.on_rq && !se.sched_delayed;
}

void update_se(nsec now, const cfs_rq& q, sched_entity& se) {
    if (pelt_update_sum(now, se.avg, se.on_rq ? 1 : 0, se_runnable(se) ? 1 : 0, q.curr == &se))
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
} // namespace

bool update_cfs_rq_load_avg(cfs_rq& q, nsec now) {
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
}

void update_load_avg(cfs_rq& q, nsec now, sched_entity& se, unsigned flags) {
    if (se.avg.attached && !(flags & LOAD_AVG_SKIP_AGE)) update_se(now, q, se);
    update_cfs_rq_load_avg(q, now);
    if (!se.avg.attached && (flags & LOAD_AVG_DO_ATTACH)) {
        attach_entity_load_avg(q, se);
    } else if (flags & LOAD_AVG_DO_DETACH) {
        detach_entity_load_avg(q, se);
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

// The runqueue overloads: the entity's queue on that CPU (the root queue until per-group queues exist).
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
    update_cfs_rq_load_avg(rq, std::max(now, rq.clock));
}

std::uint64_t cpu_util(const runqueue& rq, std::uint64_t capacity) {
    return std::min(std::max(rq.cfs.avg.util_avg, rq.cfs.util_est_enqueued), capacity);
}

std::uint64_t task_h_load(const runqueue& rq, const task& p) {
    const std::uint64_t h_load = rq.cfs.avg.load_avg; // root queue: h_load is its load
    return p.se.avg.load_avg * h_load / (rq.cfs.avg.load_avg + 1);
}

} // namespace warmsched::scheduler
