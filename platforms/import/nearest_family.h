// The shipped platform closest to an imported CPU, and the values an import takes from it: everything no
// input gives (clocks when unknown, CPI, memory-level parallelism, cache latencies, DRAM latency and
// bandwidth, the interconnect). The choice goes by CPUID vendor, family and model, or by the model
// string when the input has no CPUID numbers, and picks the shipped NUMA variant (NPS/SNC) with the
// same nodes per socket:
//   AMD Zen 4/5 (family 0x19 models 0x10-0x1f, 0x60-0x7f, 0xa0-0xaf; family 0x1a)   -> genoa-9654-*
//   AMD Zen 1/2/3 server (EPYC, or more than one socket)                            -> milan-77*3-2s*
//   AMD Zen 1/2/3 desktop                                                           -> zen3-5950x
//   Intel Core 2 (family 6 models 15, 22, 23, 29)                                   -> clovertown-e5335-2s
//   Intel Skylake-SP and later Xeon (models 85, 106, 108, 143, 173, 174, 207)      -> emr-8580-2s*
//   other Intel Xeon, or any other CPU on more than one socket                      -> haswell-e5-2690v3-2s
//   anything else (desktop Intel, unknown vendors)                                  -> haswell-i7-4790
// The two Haswell files are the documented default for CPUs no rule names.
#pragma once

#include "platforms/import/machine_inventory.h"
#include "platforms/platform_params.h"

#include <string>
#include <vector>

namespace warmsched::platform::import {

struct family_choice {
    std::string platform; // shipped platform name
    std::string reason;   // why, for the file's header ("AMD family 0x17 (Zen/Zen 2), EPYC")
};

family_choice nearest_family(const machine_inventory& inv, unsigned sockets, unsigned nodes_per_socket);

// The family's values as an import uses them. Texts are the family file's own ("46cycles", "19ns"), so a
// latency in cycles stays in cycles at the imported clock.
struct family_values {
    family_choice choice;
    std::string frequency;        // core.frequency as written
    double frequency_hz = 0;
    double base_cpi = 1, smt_throughput = 1;
    unsigned max_outstanding_misses = 10, stream_outstanding_misses = 10;
    std::string atomic_latency;   // "0ns" when the family leaves it out
    struct cache {
        std::string latency, peer_snoop_latency; // texts; peer_snoop "" when absent
        unsigned associativity = 8;
        std::string inclusion;                   // inclusive, non_inclusive, victim
    };
    std::vector<cache> caches;                   // the family's levels, closest first
    std::string memory_latency;                  // text
    double memory_bandwidth_per_core = 0;        // bytes/s: a node's DRAM bandwidth over its cores
    std::string directory_latency;               // text
    // The interconnect, measured on the family's fabric (picoseconds, bytes/s).
    double llc_link_latency_ps = 0, llc_link_bandwidth = 0, llc_link_reverse_bandwidth = 0;
    double local_memory_ps = 0;      // one way, an LLC to its own node's memory (mean over controllers)
    double cross_node_llc_ps = 0;    // LLC to LLC in another node of the same socket; 0: no such pair
    double cross_node_bandwidth = 0; // the narrowest link between them (LLC links excepted)
    double cross_socket_llc_ps = 0;  // LLC to LLC in another socket; 0: one socket
    double cross_socket_bandwidth = 0;
};

family_values family_values_of(const family_choice& choice);

} // namespace warmsched::platform::import
