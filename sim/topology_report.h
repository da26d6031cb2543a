// `warmsched topology`: the machine tree printed the way lstopo prints it (packages, groups/dies, caches,
// cores, PUs with their Linux CPU numbers), the NUMA distance table as numactl -H prints it, and the
// scheduler domains Linux would build: a summary line, then CPU 0's domains one per line with what
// /sys/kernel/debug/sched/domains/cpu0/domainN holds (name, flags, imbalance_pct, cache_nice_tries,
// busy_factor, min/max_interval) plus the span, the groups and, where set, imb_numa_nr.
#pragma once

#include "platforms/platform_params.h"
#include "scheduler/core/sched_features.h"

#include <ostream>

namespace warmsched::scheduler {
class sched_domain_tree;
}

namespace warmsched::sim {

void print_topology(std::ostream& out, const platform::platform_params& p,
                    scheduler::kernel_version k = scheduler::kernel_version::eevdf_v6_12);
// The domains of `cpu`, one line each (the lines print_topology prints for CPU 0).
void print_domains(std::ostream& out, const scheduler::sched_domain_tree& tree, unsigned cpu);
// One line for `warmsched platforms`: name, CPUs, LLCs, NUMA nodes, description.
void print_platform_line(std::ostream& out, const platform::platform_params& p);

} // namespace warmsched::sim
