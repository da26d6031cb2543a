// The model's side of a twin comparison, shared by the QEMU twin (twin_run.h) and the native one
// (native_twin.h): `warmsched run` of the same experiment in a child process (SystemC elaborates one
// design per process), with the ftrace text trace on, and its counters read back the way the real side's
// are (kernel_counters.h).
#pragma once

#include "sim/experiment.h"
#include "twin/twin_report.h"

#include <string>
#include <vector>

namespace warmsched::twin {

// argv of `warmsched run EXPERIMENT --out RUN_DIR -p OVERRIDE... [--cgroup G] [-- COMMAND]`; `dilation`
// other than 1 adds platform.time_dilation.
std::vector<std::string> model_run_argv(const std::string& experiment_file, const std::string& run_dir,
                                        const std::vector<std::string>& overrides,
                                        const sim::command_workload& command, double dilation = 1.0);

// The counters of a finished model run in `dir` (trace.txt, schedstat/v17-*.txt) and what its tools
// printed (`output`: the run's stdout). Throws twin_failure for a run whose files are missing.
side_counters read_model_side(const sim::experiment& e, const std::string& dir, const std::string& output);

// The model's output up to its run summary: what the tools printed.
std::string tool_part(const std::string& model_output);

} // namespace warmsched::twin
