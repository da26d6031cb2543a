// A benchmark workload run on the simulated kernel, as its real tool behaves: start() creates its
// tasks and kernel objects before the run, report() prints what the real tool prints at the end.
#pragma once

#include "scheduler/group/cgroup_tree.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
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
    // The tasks it creates over the whole run (at the start and by forking), for the pid_max check
    // (pid_max.h); 0 when it makes only a handful.
    virtual std::uint64_t tasks_needed() const { return 0; }
    // Did it run to completion?
    virtual bool finished() const = 0;
    virtual void report(std::ostream& out) const = 0;
    // Why the workload never ends by itself (rt-app with no duration and a thread looping forever: the
    // real one runs until Ctrl+C), or "" if it ends. A run needs an end: the experiment's duration.
    virtual std::string runs_until_stopped() const { return {}; }
    // About when it ends by its own options (schbench -r, tbench's warmup and -t, cyclictest -D, rt-app's
    // duration), in simulated ns from the start, for the progress line's time left; 0 when it ends
    // with its work (hackbench's loops). An estimate: its start-up is not counted.
    virtual std::uint64_t expected_end_ns() const { return 0; }
    // Why it can never go on, found during the run (rt-app: every thread blocked for good on its mutexes,
    // conditions and barriers: "rt-app: FILE: every thread is blocked at ..."), or "" while it can. The run
    // then stops with this line, writes no results and exits with status 2, as for a bad input: the
    // real tool would hang there.
    virtual std::string blocked_for_good() const { return {}; }
    // Writes the tool's own output files (rt-app's per-thread logs, ...) into the run's results directory.
    virtual void write_files(const std::string& dir) const { (void)dir; }
    // cgroup v2 paths its own configuration moves tasks into (rt-app's "taskgroup"), each with where it
    // is given ("rt-app: t.json: tasks.t.taskgroup"): the run checks them against the experiment's
    // hierarchy, then hands the hierarchy to use_cgroups() before start().
    virtual std::vector<std::pair<std::string, std::string>> cgroups_named() const { return {}; }
    virtual void use_cgroups(const scheduler::cgroup_tree& tree) { (void)tree; }
};

} // namespace warmsched::workloads
