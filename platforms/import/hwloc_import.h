// Reads a machine through libhwloc: an XML file as `lstopo --of xml` writes it (hwloc 2.x format; the
// 3.0 format of hwloc's development tree is refused by the 2.9 library Debian ships), XML text, or this
// machine's own discovery. Takes packages, dies, cores, PUs, NUMA nodes with the NUMALatency distance
// matrix, data/unified caches (size, ways, line, Inclusive info) and the CPUVendor / CPUModel /
// CPUFamilyNumber / CPUModelNumber infos. hwloc's Group objects, I/O devices and memory attributes are
// left out (Linux builds no sched domain from them).
#pragma once

#include "platforms/import/machine_inventory.h"

#include <string>

namespace warmsched::platform::import {

// Throws config_error "SOURCE: what is wrong" when hwloc cannot load the input or it has no CPUs.
machine_inventory read_hwloc_xml_file(const std::string& path);
machine_inventory read_hwloc_xml_text(const std::string& xml, const std::string& source);
machine_inventory read_hwloc_this_machine();

} // namespace warmsched::platform::import
