// sd_init() parameters and the degenerate-domain tests of kernel/sched/topology.c; see sched_domain.h.
#include "scheduler/topology/sched_domain.h"

namespace warmsched::scheduler {

std::array<cpu_idle_type, CPU_MAX_IDLE_TYPES> schedstat_idle_order(kernel_version k) {
    if (k == kernel_version::cfs_v5_15) return {CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE};
    return {CPU_NOT_IDLE, CPU_IDLE, CPU_NEWLY_IDLE};
}

sd_parameters sd_init_parameters(unsigned topology_flags, unsigned weight, unsigned numa_distance) {
    sd_parameters p{};
    p.min_interval = weight;
    p.max_interval = 2 * weight;
    p.busy_factor = 16;
    p.imbalance_pct = 117;
    p.cache_nice_tries = 0;
    p.flags = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING |
              topology_flags;
    // "Convert topological properties into behaviour."
    if (p.flags & SD_SHARE_CPUCAPACITY) {
        p.imbalance_pct = 110;
    } else if (p.flags & SD_SHARE_LLC) {
        p.imbalance_pct = 117;
        p.cache_nice_tries = 1;
    } else if (p.flags & SD_NUMA) {
        p.cache_nice_tries = 2;
        p.flags &= ~SD_PREFER_SIBLING;
        p.flags |= SD_SERIALIZE;
        if (numa_distance > node_reclaim_distance)
            p.flags &= ~(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE);
    } else {
        p.cache_nice_tries = 1;
    }
    return p;
}

bool sd_degenerate(unsigned weight, unsigned flags, unsigned nr_groups) {
    if (weight == 1) return true;
    // These flags need at least two groups.
    if ((flags & sd_degenerate_groups_mask()) && nr_groups > 1) return false;
    // These do not use groups.
    if (flags & SD_WAKE_AFFINE) return false;
    return true;
}

bool sd_parent_degenerate(unsigned child_flags, bool same_span, unsigned parent_weight, unsigned parent_flags,
                          unsigned parent_nr_groups) {
    if (sd_degenerate(parent_weight, parent_flags, parent_nr_groups)) return true;
    if (!same_span) return false;
    unsigned pflags = parent_flags;
    if (parent_nr_groups == 1) pflags &= ~sd_degenerate_groups_mask();
    return (~child_flags & pflags) == 0;
}

} // namespace warmsched::scheduler
