// A tiny platform for unit tests of the hardware model: 1 socket, 2 LLC domains ("ccx") of 2 cores,
// SMT2 (8 CPUs), caches small enough that evictions are easy to provoke, one memory controller.
// CPUs 0-3 are the first threads of cores 0-3, CPUs 4-7 their siblings; cores 0-1 share llc0.
#pragma once

#include "models/common/run_simulation.h"
#include "models/system/machine.h"
#include "platforms/config/config_node.h"
#include "platforms/platform_loader.h"
#include "workloads/probes/probe_program.h"

#include <string>

namespace warmsched::test {

inline std::string mini_platform_yaml(const std::string& inclusion = "victim") {
    return R"(name: mini
topology:
  levels:
    - {name: socket, count: 1}
    - {name: ccx, count: 2}
    - {name: core, count: 2}
  threads_per_core: 2
core:
  frequency: 1GHz
  max_outstanding_misses: 4
  atomic_latency: 10cycles
caches:
  - {name: l1d, shared_by: core, size: 256B, associativity: 2, latency: 1cycles}
  - {name: l2, shared_by: core, size: 1KiB, associativity: 4, latency: 4cycles}
  - {name: l3, shared_by: ccx, size: 4KiB, associativity: 4, latency: 20cycles, inclusion: )" +
           inclusion + R"(, peer_snoop_latency: 5cycles}
memory:
  controllers_per: socket
  latency: 50ns
  bandwidth: 6.4GB/s
numa:
  node_per: socket
fabric:
  directory_latency: 2ns
  stops:
    - {name: hub, per: socket}
  links:
    - {from: hub, to: llc, latency: 10ns, bandwidth: 64GB/s}
    - {from: hub, to: memory, latency: 5ns, bandwidth: 64GB/s}
)";
}

inline platform::platform_params mini_platform(const std::string& inclusion = "victim") {
    return platform::read_platform(config::load_yaml_text(mini_platform_yaml(inclusion), "mini.yaml"));
}

// The mini machine with a program run on it: run() spawns the body as a SystemC thread and simulates.
struct mini_rig {
    models::machine m;
    explicit mini_rig(const std::string& inclusion = "victim") : m("system", mini_platform(inclusion), {}) {}
    template <class F> void run(F body) {
        workloads::spawn_program("test", body);
        models::run_simulation();
    }
    // State of `line` in level `lv` of `core` (invalid when absent).
    models::line_state state(unsigned core, unsigned lv, std::uint64_t line) {
        const auto& t = m.core_at(core).level_tags(lv);
        const int w = t.find(line);
        return w < 0 ? models::line_state::invalid : t.state(line, w);
    }
};

} // namespace warmsched::test
