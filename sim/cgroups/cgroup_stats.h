// cpu.stat of every group at the end of a run, in the places users look for it:
//   - cgroup/<path>/cpu.stat in the results directory (cgroup/cpu.stat for the root), in the cgroup v2
//     file's layout: "usage_usec N", user_usec, system_usec, nr_periods, nr_throttled, throttled_usec,
//     nr_bursts, burst_usec, one per line, times truncated to whole microseconds as the kernel prints them;
//     beside it cgroup.threads, the pids of the group's own tasks still alive at the end, one per line;
//   - a short table in the run summary: the top-level groups and the groups with a quota (at most 12
//     rows; the rest summed on one line), so a 200-leaf tree does not print 255 lines;
//   - stats.txt / stats.json lines kernel.cgroup.<path>.<cpu.stat key> for every group.
// The counters are the scheduler's (scheduler::cpu_stat). Left out: cpu.stat.local, cpu.pressure, the
// v6.x core_sched.force_idle_usec line (no core scheduling here).
#pragma once

#include "base/stats/stats_group.h"
#include "scheduler/group/cgroup_tree.h"
#include "workloads/kernel/sim_kernel.h"

#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

struct cgroup_report {
    scheduler::cgroup_tree tree;
    std::vector<scheduler::cgroup_cpu_stat> stats; // by group_id
    std::vector<std::vector<int>> threads;         // by group_id: pids of its live tasks (cgroup.threads)

    // Every group's cpu.stat now. Where the scheduler leaves user_usec and system_usec at 0, usage is
    // split between them in the ratio of the user and kernel time of the group's tasks (those of its
    // subtree), as the kernel's cputime_adjust scales sampled utime/stime to the precise runtime. `earlier`:
    // the same groups read before in this run (a measurement window's start); as cputime_adjust keeps
    // prev_cputime, neither user nor system time then goes below what that read gave.
    static cgroup_report of(const workloads::sim_kernel& k, const scheduler::cgroup_tree& tree,
                            const cgroup_report* earlier = nullptr);
};

// The text of one cpu.stat file.
void write_cpu_stat(std::ostream& out, const scheduler::cgroup_cpu_stat& s);
// out_dir/cgroup/<path>/cpu.stat (out_dir/cgroup/cpu.stat for the root), and cgroup.threads beside it.
std::string cpu_stat_path(const std::string& out_dir, const std::string& group_path);
// After a warm-up, `at_start` (the groups when the measured window opened) goes to cpu.stat.start beside
// each cpu.stat, as schedstat/ has vN-start.txt: cpu.stat itself stays the kernel's file, since the group
// was created.
void write_cpu_stat_files(const std::string& out_dir, const cgroup_report& r,
                          const cgroup_report* at_start = nullptr);
// Every group's cpu.stat as stats, into the kernel's group: kernel.cgroup.<path>.usage_usec, ...
void add_cgroup_stats(stats::group& kernel, const cgroup_report& r);
// The run summary's table, read from those stats (`kernel`: the registry's kernel group; the tree gives
// the rows' cpu.max); `sim_s`: the run's simulated time (for CPUs used).
void print_cgroup_summary(std::ostream& out, const scheduler::cgroup_tree& tree, const stats::group& kernel,
                          double sim_s);

} // namespace warmsched::sim
