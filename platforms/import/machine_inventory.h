// What an importer read about a real machine, before anything is derived from it: the CPU sets of its
// packages, dies, cores and NUMA nodes, every instance of its data and unified caches, the NUMA distance
// table and the CPU's identity. It is the neutral form the three readers (hwloc, sysfs, lscpu) produce
// and machine_shape turns into grouping levels. CPUs are Linux CPU numbers (hwloc's PU os_index). Left
// out: instruction caches, TLBs, I/O devices, memory sizes, and anything timed (no input gives latencies).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::platform::import {

using cpu_set = std::vector<unsigned>; // sorted Linux CPU numbers

struct inventory_cache {
    unsigned level = 0;          // 1, 2, 3 ...
    std::uint64_t size = 0;      // bytes, of one instance
    unsigned associativity = 0;  // ways; 0 when the input does not say (or the cache is fully associative)
    unsigned line_size = 0;      // bytes; 0 when the input does not say
    int inclusive = -1;          // 1 inclusive of the levels above, 0 not, -1 the input does not say
    cpu_set cpus;                // the CPUs sharing this instance
};

struct inventory_node {
    unsigned os_index = 0; // Linux node number (the distance table's index)
    cpu_set cpus;
};

struct machine_inventory {
    std::string source;     // the input as the user named it, for messages ("this machine's /sys")
    std::string reader;     // "hwloc", "sysfs" or "lscpu"
    std::string vendor;     // CPUID vendor (GenuineIntel, AuthenticAMD) or empty
    std::string model_name; // CPU model string, trimmed
    int family = -1;        // CPUID family and model; -1 when unknown
    int model = -1;
    double max_frequency_hz = 0; // the highest clock the input states (cpufreq, lscpu max MHz); 0 unknown
    std::vector<cpu_set> packages, dies, cores; // dies may be empty (the input has none)
    std::vector<inventory_node> nodes;          // may be empty: one node holding every CPU
    // Indexed like `nodes`; empty when the input has no table.
    std::vector<std::vector<unsigned>> distances;
    std::vector<inventory_cache> caches; // every instance of every data or unified level
};

} // namespace warmsched::platform::import
