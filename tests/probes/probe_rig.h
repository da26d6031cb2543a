// Runs probes on a shipped platform in a test (one machine per test process).
#pragma once

#include "models/common/run_simulation.h"
#include "models/system/machine.h"
#include "platforms/platform_loader.h"
#include "workloads/probes/probe_program.h"

#include <systemc>

namespace warmsched::test {

struct probe_rig {
    models::machine m;
    explicit probe_rig(const std::string& platform, models::machine_options o = {})
        : m("system", platform::load_platform(platform), o) {}
    template <class Probe> void run(Probe& p) {
        workloads::spawn_program("probe", [&p] { p.run(); });
        models::run_simulation();
    }
    double cycles_ns(double cycles) const { return cycles / m.platform().core.frequency_hz * 1e9; }
};

} // namespace warmsched::test
