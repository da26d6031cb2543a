// A workload command line written exactly as the real tool is invoked -- "hackbench -p -g 10",
// "perf bench sched messaging -g 4", "perf bench sched pipe -l 10000", optionally behind
// "taskset -c 0-3" -- turned into a workload and the CPUs it may use. Bad options throw usage_error
// with the real tool's message.
#pragma once

#include "workloads/cli/option_parser.h"
#include "workloads/cli/workload_params.h"
#include "workloads/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

struct workload_command {
    std::unique_ptr<workload> w;
    std::vector<bool> allowed; // empty: every CPU
    workload_params params;    // its parameters beyond the command line, as resolved (defaults included)
};

// `params`: the workload's parameters from the experiment file (workload_params.h); a key the workload
// does not know is a usage_error.
workload_command parse_command_line(const std::vector<std::string>& argv, unsigned ncpus,
                                    workload_params params = {});
// Splits a command line at blanks, honouring '...' and "..." quoting.
std::vector<std::string> split_command_line(const std::string& line);
// "0-3,8" or "0-7:2" (util-linux cpulist: ranges with a stride) -> a mask of ncpus; false if malformed or
// out of range.
bool parse_cpu_list(const std::string& text, unsigned ncpus, std::vector<bool>& mask);

} // namespace warmsched::workloads
