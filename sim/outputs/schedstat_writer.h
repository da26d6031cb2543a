// /proc/schedstat and the per-task /proc/<pid>/sched and /proc/<pid>/schedstat files, printed from the
// scheduler's schedstat counters in the layouts kernel/sched/stats.c and kernel/sched/debug.c use, so
// that tools written for the real files (schedstat parsers, perf sched stats-like scripts) read them.
// Version 15 (Linux v5.15) and version 17 (domain names, lb_imbalance split by migration type) are
// written whichever scheduler model ran; the counters are the same. Left out: the version-16 layout (17
// minus the names and the split), /proc/<pid>/sched fields the model does not keep (iowait, block and
// sleep sums, NUMA and PELT sums other than the averages) and the `timestamp` line's INITIAL_JIFFIES
// offset (jiffies count from the start of the run).
#pragma once

#include "scheduler/core/scheduler.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::workloads {
class sim_kernel;
}

namespace warmsched::sim {

// A cpumask as the kernel's %*pb prints it: hex in comma-separated 32-bit groups, most significant
// first, `nr_cpu_ids` bits wide (the first group only as many digits as its bits need).
std::string cpumask_hex(const scheduler::cpumask& m, unsigned nr_cpu_ids);

// /proc/schedstat in `version` 15 or 17 at scheduler time `now` (ns; the timestamp line is in jiffies).
void write_proc_schedstat(std::ostream& out, const scheduler::scheduler& s, unsigned version,
                          scheduler::nsec now);

// /proc/<pid>/schedstat: sum_exec_runtime, run_delay (ns) and pcount on one line.
void write_proc_pid_schedstat(std::ostream& out, const scheduler::task& t);

// /proc/<pid>/sched: the header line and the schedstat fields, in debug.c's order and layout
// (`%-45s:%21Ld` for counts, `%-45s:%14Ld.%06ld` for times in ms). `nr_threads`: tasks in its tgid.
void write_proc_pid_sched(std::ostream& out, const scheduler::task& t, unsigned nr_threads);

// /proc/schedstat in the layouts asked for (15, 16, 17) at one moment (the start of the measured
// interval).
struct schedstat_snapshot {
    std::map<unsigned, std::string> text; // by version
};
schedstat_snapshot take_schedstat(const scheduler::scheduler& s, scheduler::nsec now,
                                  const std::vector<unsigned>& versions);

// DIR/schedstat/: vN-start.txt (from `start`) and vN-end.txt (now) for each version of `start`, and for
// every task of the run (exited ones too) <pid>/sched and <pid>/schedstat.
void write_schedstat_dir(const std::string& dir, const schedstat_snapshot& start,
                         const workloads::sim_kernel& k);

} // namespace warmsched::sim
