// Reads a machine from util-linux lscpu's JSON: one or more documents in one file, e.g.
//   { lscpu -J; lscpu -J -e; lscpu -J -C; } > machine.json
// `lscpu -J` (required) gives the CPU's identity, the counts (sockets, cores per socket, threads per core),
// the NUMA nodes' CPU lists, the cache sizes with their instance counts and the max clock. `lscpu -J -e`
// adds each CPU's socket, core, node and cache ids (the real sharing and numbering); `lscpu -J -C` adds
// each cache's ways and line size. With the summary alone, the Linux x86 numbering (first threads of
// all cores, then their siblings; cores in socket order) is assumed and cache instances are taken to be
// consecutive cores. lscpu gives no NUMA distance table.
#pragma once

#include "platforms/import/machine_inventory.h"

#include <string>

namespace warmsched::platform::import {

// `text`: the JSON documents; `source` names them in errors ("FILE: what is wrong").
machine_inventory read_lscpu_json(const std::string& text, const std::string& source);

} // namespace warmsched::platform::import
