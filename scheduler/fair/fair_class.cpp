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
    return delta;
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
