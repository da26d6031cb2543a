// Group statistics and classification; see group_stats.h.
#include "scheduler/fair/group_stats.h"

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/load_avg.h"

#include <algorithm>

namespace warmsched::scheduler {

const char* to_string(group_type t) {
    switch (t) {
    case group_type::has_spare:
        return "has_spare";
    case group_type::fully_busy:
        return "fully_busy";
    case group_type::misfit_task:
        return "misfit_task";
    case group_type::smt_balance:
        return "smt_balance";
    case group_type::asym_packing:
        return "asym_packing";
    case group_type::imbalanced:
        return "imbalanced";
    case group_type::overloaded:
        return "overloaded";
    }
    return "?";
}

bool group_has_capacity(unsigned pct, const sg_lb_stats& sgs) {
    if (sgs.sum_nr_running < sgs.group_weight) return true;
    if (sgs.group_capacity * pct < sgs.group_runnable * 100) return false;
    return sgs.group_capacity * 100 > sgs.group_util * pct;
}

bool group_is_overloaded(unsigned pct, const sg_lb_stats& sgs) {
    if (sgs.sum_nr_running <= sgs.group_weight) return false;
    if (sgs.group_capacity * 100 < sgs.group_util * pct) return true;
    return sgs.group_capacity * pct < sgs.group_runnable * 100;
}

group_type group_classify(unsigned pct, const sched_group& group, const sg_lb_stats& sgs) {
    if (group_is_overloaded(pct, sgs)) return group_type::overloaded;
    if (group.sgc->imbalance) return group_type::imbalanced;
    if (sgs.group_smt_balance) return group_type::smt_balance;
    if (sgs.group_misfit_task_load) return group_type::misfit_task;
    if (!group_has_capacity(pct, sgs)) return group_type::fully_busy;
    return group_type::has_spare;
}

namespace {
template <class T> T sub_positive(T v, T d) {
    return v - std::min(v, d);
}
} // namespace

void update_sg_wakeup_stats(const scheduler& core, const sched_domain& sd, const sched_group& group,
                            const task& p, sg_lb_stats& sgs) {
    sgs = sg_lb_stats{};
    for (unsigned i : group.span()) {
        const runqueue& rq = core.rq(i);
        // cpu_load_without() and friends: p's own contribution leaves its CPU's sums.
        const bool p_here = i == p.cpu && p.se.avg.attached;
        const unsigned local = p_here && p.on_rq ? 1 : 0; // task_running_on_cpu
        std::uint64_t load = cpu_load(rq), util = cpu_util(rq), runnable = cpu_runnable(rq);
        if (p_here) {
            load = sub_positive<std::uint64_t>(rq.cfs.avg.load_avg, task_h_load(rq, p));
            runnable = sub_positive<std::uint64_t>(rq.cfs.avg.runnable_avg, p.se.avg.runnable_avg);
            std::uint64_t u = sub_positive<std::uint64_t>(rq.cfs.avg.util_avg, p.se.avg.util_avg);
            std::uint64_t est = rq.cfs.util_est_enqueued;
            if (p.on_rq) est = sub_positive<std::uint64_t>(est, task_util_est(p));
            util = std::min<std::uint64_t>(std::max(u, est), SCHED_CAPACITY_SCALE);
        }
        sgs.group_load += load;
        sgs.group_util += util;
        sgs.group_runnable += runnable;
        sgs.sum_h_nr_running += rq.cfs.h_nr_running - local;
        const unsigned nr = rq.nr_running - local;
        sgs.sum_nr_running += nr;
        // idle_cpu_without(): nothing else queued and curr is idle (or p itself).
        if (nr == 0 && (rq.curr == rq.idle || rq.curr == &p)) ++sgs.idle_cpus;
    }
    sgs.group_capacity = group.capacity();
    sgs.group_weight = group.weight();
    sgs.type = group_classify(sd.imbalance_pct, group, sgs);
    if (sgs.type == group_type::fully_busy || sgs.type == group_type::overloaded)
        sgs.avg_load = sgs.group_load * SCHED_CAPACITY_SCALE / sgs.group_capacity;
}

} // namespace warmsched::scheduler
