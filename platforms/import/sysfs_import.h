// Reads a machine from Linux's sysfs under a root directory ("/" for this machine, or a saved copy of
// one): ROOT/sys/devices/system/cpu/cpuN/{topology,cache/indexK,cpufreq}, ROOT/sys/devices/system/node/
// nodeN/{cpulist,distance} and, for the CPU's identity, ROOT/proc/cpuinfo. Only online CPUs count. Left
// out: cpuidle states, memory sizes, instruction caches, and the cluster level (x86 derives it from the
// L2, which is read).
#pragma once

#include "platforms/import/machine_inventory.h"

#include <string>

namespace warmsched::platform::import {

// Throws config_error "ROOT: what is wrong" when the tree lacks what a machine needs (CPUs, topology).
machine_inventory read_sysfs(const std::string& root);

// Linux cpulist notation ("0-3,8-11") as CPU numbers; false when `text` is not one.
bool parse_cpulist(const std::string& text, cpu_set& out);

} // namespace warmsched::platform::import
