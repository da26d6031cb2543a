// Shared fair-class accounting and CPU selection; see fair_class.h.
#include "scheduler/fair/fair_class.h"

#include "scheduler/core/scheduler.h"

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
    core_.shares().task_dequeued(rq.cpu, p);
    if (core_.bandwidth().active()) core_.bandwidth().task_dequeued(rq, p);
}

void fair_class::group_weight_on_enqueue(runqueue& rq, task& p) {
    if (!groups_on_) return;
    core_.shares().task_enqueued(rq.cpu, p);
    const std::uint32_t w = core_.shares().task_weight(rq.cpu, p);
    if (w != p.se.weight) reweight_task(rq, p, w);
}

void fair_class::refresh_group_weights(runqueue& rq) {
    if (!groups_on_) return;
    core_.shares().refresh(rq.cpu);
    for (task* p = rq.cfs_tasks.head; p; p = p->mru_next) {
        if (!p->cgroup) continue;
        const std::uint32_t w = core_.shares().task_weight(rq.cpu, *p);
        if (w != p->se.weight) reweight_task(rq, *p, w);
    }
}

bool fair_class::parked_on_enqueue(runqueue& rq, task& p, unsigned flags) {
    return groups_on_ && core_.bandwidth().active() && core_.bandwidth().park_on_enqueue(rq, p, flags);
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
    if (rq.cfs.nr_running) return true;
    return triggers_.newidle_balance(rq, rq.clock) != 0;
}

} // namespace warmsched::scheduler
