// The machine the twin's QEMU guest gets for a platform: QEMU's -smp sockets/dies/cores/threads, its
// NUMA nodes with the platform's distance table, and which model CPU each guest CPU stands for.
//
// QEMU numbers a guest's CPUs in APIC-ID order (socket, die, core, thread: SMT siblings adjacent), while
// the platform keeps the real machine's Linux numbering (siblings last on most of them), so guest CPU g
// is model CPU model_cpu[g]. QEMU 7.2's x86 CPUs share their L3 per die and their L2 per core, so a
// platform maps to QEMU's levels as: sockets = the first level, dies = LLCs per socket, cores = cores per
// LLC, threads = SMT threads. Levels between the socket and the LLC that are not NUMA nodes (Genoa's and
// Milan's quadrants) and a die level under a socket-wide LLC (Emerald Rapids) have no QEMU counterpart:
// `differences` says so. Linux builds no sched domain from them either.
//
// Big platforms run scaled down: scale_overrides() gives the `-p topology...` overrides that shrink a
// platform to at most N CPUs; the model runs the same overrides, so both sides have the same machine.
#pragma once

#include "platforms/platform_params.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::twin {

struct guest_machine {
    unsigned sockets = 1, dies = 1, cores = 1, threads = 1; // -smp; dies = LLCs per socket
    unsigned num_cpus() const { return sockets * dies * cores * threads; }
    std::vector<std::vector<unsigned>> node_cpus;  // guest CPUs of each NUMA node
    std::vector<std::vector<unsigned>> distances;  // the platform's node distance table
    std::vector<unsigned> model_cpu;               // guest CPU -> the model's CPU number
    std::vector<unsigned> guest_cpu;               // model CPU -> guest CPU
    std::vector<std::string> differences;          // how the guest differs from the platform
};

// Throws config_error (key "platform") where QEMU cannot express the platform.
guest_machine make_guest_machine(const platform::platform_params& p);

// The overrides that shrink `p` to at most `max_cpus` CPUs (empty if it fits), and a line saying what was
// cut. Order: cores per LLC down to 2, then the levels between socket and core innermost first down to 1
// (so NUMA nodes, the outer levels, stay longest), then sockets down to 1, then cores to 1, then SMT off.
// The instances kept are the first of each level; an explicit NUMA distance table is cut to their rows.
struct scaling {
    std::vector<std::string> overrides; // topology.levels.N.count=K, topology.threads_per_core=1
    std::string description;            // "zen3-5950x scaled to 8 of 32 CPUs: ccd 2, core 8->2, ..."
};
scaling scale_overrides(const platform::platform_params& p, unsigned max_cpus);

// QEMU's -smp, -object memory-backend-ram and -numa arguments; `memory_mib` is split over the nodes.
std::vector<std::string> qemu_topology_args(const guest_machine& g, std::uint64_t memory_mib);

// "0-3,8": a sorted CPU list as Linux prints it.
std::string cpu_list(const std::vector<unsigned>& cpus);

} // namespace warmsched::twin
