// A benchmark workload run on the simulated kernel, as its real tool behaves: start() creates its
// tasks and kernel objects before the run, report() prints what the real tool prints at the end.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace warmsched::workloads {

class sim_kernel;

class workload {
public:
    virtual ~workload() = default;
    // The command line it was made from, for reports.
    virtual std::string command() const = 0;
    // Creates the tasks; `allowed`: the CPUs its tasks may run on (taskset), empty for all.
    virtual void start(sim_kernel& k, const std::vector<bool>& allowed) = 0;
    // Did it run to completion?
    virtual bool finished() const = 0;
    virtual void report(std::ostream& out) const = 0;
    // Writes the tool's own output files (rt-app's per-thread logs, ...) into the run's results directory.
    virtual void write_files(const std::string& dir) const { (void)dir; }
};

} // namespace warmsched::workloads
