// `warmsched topology`: the machine tree printed the way lstopo prints it (packages, groups/dies, caches,
// cores, PUs with their Linux CPU numbers), the NUMA distance table as numactl -H prints it, and the
// scheduler domains Linux would build.
#pragma once

#include "platforms/platform_params.h"

#include <ostream>

namespace warmsched::sim {

void print_topology(std::ostream& out, const platform::platform_params& p);
// One line for `warmsched platforms`: name, CPUs, LLCs, NUMA nodes, description.
void print_platform_line(std::ostream& out, const platform::platform_params& p);

} // namespace warmsched::sim
