// The `kernel:` section of an experiment: which kernel's scheduler (cfs = v5.15, eevdf = v6.12), the
// tick rate, feature flags by name and tunables by their debugfs names -- every one written into the
// resolved configuration with the value the run uses.
//
//   kernel:
//     version: eevdf
//     hz: 250
//     features: {RUN_TO_PARITY: off}
//     sysctl: {base_slice_ns: 3000000}
#pragma once

#include "platforms/config/config_reader.h"
#include "scheduler/core/scheduler.h"

namespace warmsched::sim {

scheduler::sched_config read_kernel_config(config::config_reader& r, unsigned ncpus);

} // namespace warmsched::sim
