// Fork and exec placement; see fork_placement.h.
#include "scheduler/fair/fork_placement.h"

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/load_avg.h"

#include <climits>
#include <cstdlib>

namespace warmsched::scheduler {

namespace {
constexpr long numa_imbalance_min = 2; // NUMA_IMBALANCE_MIN

bool intersects_allowed(const cpumask& span, const task& p) {
    if (p.allowed.empty()) return true;
    for (unsigned c : span)
        if (p.allowed_on(c)) return true;
    return false;
}

// update_pick_idlest: is `sgs` a better group to place a task in than the idlest so far?
bool update_pick_idlest(const sched_group* idlest, const sg_lb_stats& idlest_sgs, const sched_group& group,
                        const sg_lb_stats& sgs) {
    if (sgs.type < idlest_sgs.type) return true;
    if (sgs.type > idlest_sgs.type) return false;
    switch (sgs.type) {
    case group_type::overloaded:
    case group_type::fully_busy:
        return idlest_sgs.avg_load > sgs.avg_load; // the lowest avg_load
    case group_type::imbalanced:
    case group_type::asym_packing:
    case group_type::smt_balance:
        return false; // not used in the slow wakeup path
    case group_type::misfit_task:
        return !idlest || idlest->sgc->max_capacity < group.sgc->max_capacity;
    case group_type::has_spare:
        if (idlest_sgs.idle_cpus > sgs.idle_cpus) return false; // the most idle CPUs
        if (idlest_sgs.idle_cpus == sgs.idle_cpus && idlest_sgs.group_util <= sgs.group_util)
            return false; // then the lowest utilization
        return true;
    }
    return false;
}
} // namespace

unsigned fork_placement::select(const task& p, unsigned prev_cpu, unsigned wake_flags) {
    const unsigned sd_flag = (wake_flags & WF_FORK) ? SD_BALANCE_FORK : SD_BALANCE_EXEC;
    const unsigned cpu = static_cast<unsigned>(core_.calling_cpu());
    sched_domain* sd = nullptr; // the domain walk: the highest level with the flag (want_affine is 0)
    for (sched_domain& d : core_.domains().domains(cpu)) {
        if (!(d.flags & sd_flag)) break;
        sd = &d;
    }
    if (!sd) return prev_cpu;
    return find_idlest_cpu(sd, p, cpu, prev_cpu, sd_flag);
}

unsigned fork_placement::find_idlest_cpu(sched_domain* sd, const task& p, unsigned cpu, unsigned prev_cpu,
                                         unsigned sd_flag) {
    unsigned new_cpu = cpu;
    if (!intersects_allowed(sd->span(), p)) return prev_cpu;
    while (sd) {
        if (!(sd->flags & sd_flag)) {
            sd = sd->child;
            continue;
        }
        const sched_group* group = find_idlest_group(*sd, p, cpu);
        if (!group) {
            sd = sd->child;
            continue;
        }
        new_cpu = find_idlest_group_cpu(*group, p, cpu);
        if (new_cpu == cpu) { // try a lower level of this CPU
            sd = sd->child;
            continue;
        }
        // Now balance at a lower level of new_cpu.
        cpu = new_cpu;
        const unsigned weight = sd->span_weight;
        sd = nullptr;
        for (sched_domain& tmp : core_.domains().domains(cpu)) {
            if (weight <= tmp.span_weight) break;
            if (tmp.flags & sd_flag) sd = &tmp;
        }
    }
    return new_cpu;
}

const sched_group* fork_placement::find_idlest_group(const sched_domain& sd, const task& p,
                                                     unsigned this_cpu) {
    const sched_group* idlest = nullptr;
    const sched_group* local = nullptr;
    sg_lb_stats local_sgs, idlest_sgs, sgs;
    idlest_sgs.avg_load = UINT_MAX;
    idlest_sgs.type = group_type::overloaded;
    for (const sched_group& group : sd.group_list()) {
        if (!intersects_allowed(group.span(), p)) continue;
        const bool local_group = group.contains(this_cpu);
        if (local_group) {
            local = &group;
            update_sg_wakeup_stats(core_, sd, group, p, local_sgs);
            continue;
        }
        update_sg_wakeup_stats(core_, sd, group, p, sgs);
        if (update_pick_idlest(idlest, idlest_sgs, group, sgs)) {
            idlest = &group;
            idlest_sgs = sgs;
        }
    }
    if (!idlest) return nullptr;
    if (!local) return idlest; // the local group is not allowed
    if (local_sgs.type < idlest_sgs.type) return nullptr;
    if (local_sgs.type > idlest_sgs.type) return idlest;
    switch (local_sgs.type) {
    case group_type::overloaded:
    case group_type::fully_busy: {
        const unsigned long imbalance = SCHED_CAPACITY_SCALE * (sd.imbalance_pct - 100) / 100;
        // Across NUMA nodes, the remote node gets the margin added: stay unless it is clearly idler.
        if (sd.has(SD_NUMA) && idlest_sgs.avg_load + imbalance >= local_sgs.avg_load) return nullptr;
        if (idlest_sgs.avg_load >= local_sgs.avg_load + imbalance) return nullptr;
        if (100 * local_sgs.avg_load <= sd.imbalance_pct * idlest_sgs.avg_load) return nullptr;
        break;
    }
    case group_type::imbalanced:
    case group_type::asym_packing:
    case group_type::smt_balance:
        return nullptr;
    case group_type::misfit_task:
        if (local->sgc->max_capacity >= idlest->sgc->max_capacity) return nullptr;
        break;
    case group_type::has_spare:
        if (sd.has(SD_NUMA)) {
            // Keep the task near its parent while the local node stays lightly loaded.
            const unsigned dst_running = local_sgs.sum_nr_running + 1;
            if (!core_.config().features[feature::NUMA_IMB_PER_LLC]) {
                if (dst_running < (local_sgs.group_weight >> 2)) return nullptr; // allow_numa_imbalance
            } else {
                unsigned imb_numa_nr = sd.imb_numa_nr;
                if (!p.allowed.empty()) { // pinned to a subset: no more than it may use locally
                    unsigned n = 0;
                    for (unsigned c : local->span()) n += p.allowed_on(c) ? 1 : 0;
                    imb_numa_nr = std::min(n, imb_numa_nr);
                }
                long imbalance = std::labs(static_cast<long>(local_sgs.idle_cpus) -
                                           static_cast<long>(idlest_sgs.idle_cpus));
                if (dst_running <= imb_numa_nr && imbalance <= numa_imbalance_min) imbalance = 0;
                if (imbalance == 0) return nullptr; // adjust_numa_imbalance
            }
        }
        if (local_sgs.idle_cpus >= idlest_sgs.idle_cpus) return nullptr;
        break;
    }
    return idlest;
}

unsigned fork_placement::find_idlest_group_cpu(const sched_group& group, const task& p,
                                               unsigned this_cpu) const {
    if (group.weight() == 1) return group.span().first();
    unsigned long min_load = ULONG_MAX;
    nsec latest_idle_timestamp = 0;
    unsigned least_loaded_cpu = this_cpu;
    int shallowest_idle_cpu = -1;
    for (unsigned i : group.span()) {
        if (!p.allowed_on(i)) continue;
        const runqueue& rq = core_.rq(i);
        if (rq.nr_running > 0 && rq.nr_running == rq.idle_policy_running) return i; // sched_idle_cpu
        if (rq.is_idle()) {
            // Every idle CPU is in the same (shallowest) state here: the first one, then any idled
            // more recently (a warmer cache).
            if (shallowest_idle_cpu < 0 || rq.idle_stamp > latest_idle_timestamp) {
                latest_idle_timestamp = rq.idle_stamp;
                shallowest_idle_cpu = static_cast<int>(i);
            }
        } else if (shallowest_idle_cpu < 0) {
            const unsigned long load = cpu_load(rq);
            if (load < min_load) {
                min_load = load;
                least_loaded_cpu = i;
            }
        }
    }
    return shallowest_idle_cpu >= 0 ? static_cast<unsigned>(shallowest_idle_cpu) : least_loaded_cpu;
}

} // namespace warmsched::scheduler
