// The whole simulated machine, elaborated from a platform description: one hart per Linux CPU, one core
// per physical core, one LLC per LLC domain, the fabric, and a directory plus memory controller per
// memory-controller stop, with every socket bound. Module names mirror the platform tree
// (system.cpu12, system.core6, system.llc0, system.fabric, system.home1, system.mem1), and so do stats.
//
// Set sampling 1-in-N (for very large platforms): every cache keeps only the sets whose index is a
// multiple of N, and only the lines that map to them (line address a multiple of N) travel through the
// hierarchy -- so each simulated set sees exactly the traffic it would see in the full machine. Link and
// memory bandwidths are scaled by 1/N to match the sampled traffic. An access to any other line takes
// the latency and source of its hart's latest simulated access. Cache statistics count sampled lines.
#pragma once

#include "models/cache/llc.h"
#include "models/coherence/directory.h"
#include "models/cpu/core.h"
#include "models/cpu/hart.h"
#include "models/fabric/fabric.h"
#include "models/memory/address_map.h"
#include "models/memory/memory_controller.h"
#include "platforms/fabric_graph.h"
#include "platforms/platform_params.h"
#include "platforms/topology.h"

#include <memory>
#include <systemc>
#include <vector>

namespace warmsched::models {

struct machine_options {
    std::uint64_t seed = 1;      // seeds every random choice of the hardware model (random replacement)
    ps_t quantum_ps = 1'000'000; // temporal-decoupling quantum of the harts (1 us)
    unsigned set_sampling = 1;   // simulate 1 in N cache sets (a power of two dividing every level's sets)
};

class machine : public sc_core::sc_module {
public:
    machine(const sc_core::sc_module_name& name, const platform::platform_params& p,
            const machine_options& o);

    const platform::platform_params& platform() const { return p_; }
    const platform::topology& topo() const { return topo_; }
    const platform::fabric_graph& graph() const { return graph_; }
    address_map& addresses() { return addresses_; }

    unsigned num_cpus() const { return topo_.num_cpus(); }
    hart& cpu(unsigned linux_cpu) { return *harts_[linux_cpu]; }
    core& core_at(unsigned i) { return *cores_[i]; }
    llc& llc_at(unsigned i) { return *llcs_[i]; }
    directory& home_at(unsigned i) { return *homes_[i]; }
    memory_controller& memory_at(unsigned i) { return *memories_[i]; }
    fabric& interconnect() { return *fabric_; }
    // The steady link and memory traffic of fast-forwarded compute (per hart).
    flow_meter& flows() { return flows_; }
    unsigned num_cores() const { return static_cast<unsigned>(cores_.size()); }
    unsigned num_llcs() const { return static_cast<unsigned>(llcs_.size()); }
    unsigned num_homes() const { return static_cast<unsigned>(homes_.size()); }
    // The models' stats groups under `system` (the machine's own group), named as the modules are:
    // cpuN (harts), coreN with its private levels, llcN, homeN (directories), memN.
    void add_stats(stats::group& system) const;
    unsigned line_size() const { return p_.caches.front().line_size; }
    // Connects (nullptr: disconnects) an observer of misses and evictions to every hart, core and LLC.
    void set_access_observer(access_observer* o);
    // The host work of every model so far (models/common/host_visits.h), for the benchmarks.
    host_visits visits() const;

private:
    platform::platform_params p_;
    platform::topology topo_;
    platform::fabric_graph graph_;
    address_map addresses_;
    std::vector<std::unique_ptr<hart>> harts_;
    std::vector<std::unique_ptr<core>> cores_;
    std::vector<std::unique_ptr<llc>> llcs_;
    std::unique_ptr<fabric> fabric_;
    std::vector<std::unique_ptr<directory>> homes_;
    std::vector<std::unique_ptr<memory_controller>> memories_;
    flow_meter flows_;
};

} // namespace warmsched::models
