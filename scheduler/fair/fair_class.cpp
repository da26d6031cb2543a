// Shared fair-class accounting and CPU selection; see fair_class.h.
#include "scheduler/fair/fair_class.h"

#include "scheduler/core/scheduler.h"

#include <tuple>

namespace warmsched::scheduler {

fair_class::fair_class(scheduler& core)
    : core_(core), feat_(core.config().features), tun_(core.config().tunables), placement_(core) {}

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

unsigned fair_class::find_idlest_cpu(const task& p, unsigned near) const {
    const cpu_layout& l = core_.layout();
    unsigned best = near;
    std::tuple<unsigned, unsigned, int, int, unsigned> best_key{~0u, 0, 0, 0, 0};
    for (unsigned c = 0; c < core_.num_cpus(); ++c) {
        if (!p.allowed_on(c)) continue;
        bool idle_core = true;
        for (unsigned s : l.siblings[c]) idle_core = idle_core && core_.rq(s).is_idle();
        const std::tuple<unsigned, unsigned, int, int, unsigned> key{
            core_.rq(c).nr_running, core_.rq(c).nr_attached, idle_core ? 0 : 1,
            l.share_cache(c, near) ? 0 : 1, c};
        if (key < best_key) best_key = key, best = c;
    }
    return best;
}

unsigned fair_class::select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) {
    if (wake_flags & WF_FORK) return find_idlest_cpu(p, prev_cpu);
    unsigned allowed = 0;
    for (unsigned c = 0; c < core_.num_cpus() && allowed < 2; ++c) allowed += p.allowed_on(c) ? 1 : 0;
    unsigned cpu = prev_cpu;
    if (allowed > 1) cpu = placement_.select(p, prev_cpu, wake_flags, core_.probed());
    return p.allowed_on(cpu) ? cpu : find_idlest_cpu(p, prev_cpu); // select_fallback_rq
}

bool fair_class::balance(runqueue&, task*) {
    return false;
}

} // namespace warmsched::scheduler
