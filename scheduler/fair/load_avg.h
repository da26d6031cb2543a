// How the fair class keeps PELT on its queues (the load-tracking glue of kernel/sched/fair.c): an
// entity's averages are brought up to date at enqueue, dequeue, pick, put and tick; a queue's averages
// are the sums of its entities', including sleeping ones whose contribution decays in place; an entity
// that migrates is removed from its old queue's sums and attached to the new queue's; a new task starts
// with its full weight as load and a share of the queue's utilization. util_est keeps each task's
// utilization at its last sleep (EWMA 1/4, jumping up at once) and a queue's sum of its queued tasks'.
// The balancer and wakeup placement read cpu_load, cpu_util, cpu_runnable and task_h_load. Under
// cgroups every group queue keeps its own sums; its group entity's averages follow them through load
// propagation (update_tg_cfs_util/runnable/load), each queue's load_avg is its contribution to the
// group's tg->load_avg (calc_group_shares), and a task's h_load is its share of the root load down its
// chain; a queue below a throttle keeps its PELT clock stopped (cfs_rq::clock_pelt; per-cfs_rq model:
// from the throttle, task-based model: while it is empty).
// Left out: h_load is computed afresh, not cached per jiffy.
#pragma once

#include "scheduler/core/runqueue.h"

namespace warmsched::scheduler {

enum : unsigned {
    LOAD_AVG_UPDATE_TG = 0x1, // refresh the queue's contribution to its group's load_avg
    LOAD_AVG_SKIP_AGE = 0x2,
    LOAD_AVG_DO_ATTACH = 0x4,
    LOAD_AVG_DO_DETACH = 0x8,
};

// Each function acts on the cfs_rq it is given (the kernel's signatures); `now` is that queue's clock
// (its run queue's). The runqueue overloads act on cfs_rq_of(se) at rq.clock.
//
// update_load_avg(cfs_rq, se, flags) at the queue's clock.
void update_load_avg(cfs_rq& q, nsec now, sched_entity& se, unsigned flags);
void update_load_avg(runqueue& rq, sched_entity& se, unsigned flags);
// update_cfs_rq_load_avg: folds in removed entities and decays the queue's sums; true if changed.
bool update_cfs_rq_load_avg(cfs_rq& q, nsec now);
bool update_cfs_rq_load_avg(runqueue& rq, nsec now);
// A task leaving `rq` for another CPU while not queued (wakeup migration): its averages, synced to
// the queue's last update, are subtracted at the queue's next update; it re-attaches where enqueued.
void remove_entity_load_avg(cfs_rq& q, sched_entity& se);
void remove_entity_load_avg(runqueue& rq, sched_entity& se);
// A queued task moved by the balancer: detach from its queue now / attach to the new one.
void detach_entity_load_avg(cfs_rq& q, sched_entity& se);
void detach_entity_load_avg(runqueue& rq, sched_entity& se);
// reweight_entity's PELT part: se takes `weight` (and its inverse); its load average is rescaled from
// its load sum and, while attached, its queue's sums follow.
void reweight_entity_load_avg(cfs_rq& q, sched_entity& se, std::uint32_t weight);
void reweight_entity_load_avg(runqueue& rq, sched_entity& se, std::uint32_t weight);
void attach_entity_load_avg(cfs_rq& q, sched_entity& se);
void attach_entity_load_avg(runqueue& rq, sched_entity& se);
// update_tg_load_avg: a group queue's contribution to its group's load_avg (nothing for the root).
void update_tg_load_avg(cfs_rq& q, nsec now);
// A new task (fork): load = weight; then, on the queue it will run on, util = the queue's util
// share by weight, capped at half the spare capacity.
void init_entity_runnable_average(sched_entity& se);
void post_init_entity_util_avg(cfs_rq& q, sched_entity& se);
void post_init_entity_util_avg(runqueue& rq, sched_entity& se);
// util_est (the root queue's, as in the kernel) of a task entering / leaving the queue, and its update when
// it goes to sleep.
void util_est_enqueue(runqueue& rq, const task& p);
void util_est_dequeue(runqueue& rq, const task& p);
void util_est_update(task& p);
// update_blocked_averages for one CPU: decay the sleeping load of its group queues (bottom-up, with
// their entities) and of its root queue to `now`.
void update_blocked_averages(runqueue& rq, nsec now);

// Balancer and placement inputs.
inline std::uint64_t cpu_load(const runqueue& rq) {
    return rq.cfs.avg.load_avg;
}
inline std::uint64_t cpu_runnable(const runqueue& rq) {
    return rq.cfs.avg.runnable_avg;
}
std::uint64_t cpu_util(const runqueue& rq, std::uint64_t capacity = 1024);
std::uint64_t task_util(const task& p);
std::uint64_t task_util_est(const task& p);
std::uint64_t task_h_load(const runqueue& rq, const task& p);

} // namespace warmsched::scheduler
