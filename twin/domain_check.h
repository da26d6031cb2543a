// The real kernel as the check on the topology code: the sched domains the guest kernel built (names
// and flags from debugfs /sys/kernel/debug/sched/domains/cpu*/domain*, spans from the sched_verbose
// boot log), its LLC sharing (cache/index*/shared_cpu_list) and NUMA nodes, against what the model
// derives from the same platform (scheduler/topology/sched_domain_tree.h), CPU by CPU, with the model's
// CPU numbers translated into the guest's (guest_machine.h).
#pragma once

#include "platforms/platform_params.h"
#include "scheduler/core/scheduler.h"
#include "twin/guest_machine.h"

#include <ostream>
#include <string>
#include <vector>

namespace warmsched::twin {

struct domain_view {
    std::string name;
    std::vector<unsigned> span; // guest CPU numbers
    std::vector<std::string> flags;
};

struct topology_comparison {
    std::vector<std::vector<domain_view>> guest, model; // per guest CPU, bottom-up
    std::vector<std::string> differences;              // empty: identical
};

// Reads `twin_dir`'s domains.txt, dmesg.txt and cpus.txt. Throws std::runtime_error if they are missing.
topology_comparison compare_topology(const std::string& twin_dir, const platform::platform_params& p,
                                     const guest_machine& g, scheduler::kernel_version k);

// "sched domains, guest vs model:" then one line per level of CPU 0, and the differences (or "identical").
void print_topology_comparison(std::ostream& out, const topology_comparison& c);

} // namespace warmsched::twin
