// The counters the twin compares, read the same way from both sides: from /proc/schedstat snapshots
// (versions 15 and 17, as Linux and the model write them) and from an ftrace text trace (sched_switch,
// sched_waking, sched_wakeup(_new), sched_migrate_task, sched_process_fork), which the guest records
// with tracefs and the model writes as trace.txt.
//
// The trace gives what /proc loses when tasks exit: per task its CPU time, voluntary and involuntary
// switches (a sched_switch whose prev_state is R or R+ is involuntary, as the kernel counts nivcsw),
// migrations and wakeups. Which tasks are the workload's: in the guest, the descendants of the processes
// twin_runner forked; in the model, every task (the model has no kernel threads), or under LAUNCH_FORK_EXEC
// the descendants of what its launcher ("sh") forked.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace warmsched::twin {

// Load balancing by idle type, in the order of the model's run summary.
enum idle_type { lb_idle = 0, lb_busy = 1, lb_newidle = 2 };

struct domain_level_counters {
    std::string name; // SMT, CLS, MC, DIE/PKG, NODE, NUMA
    std::array<std::uint64_t, 3> lb_count{}, lb_balanced{}, lb_failed{}, lb_gained{};
    std::uint64_t alb_count = 0, alb_pushed = 0;
    std::uint64_t ttwu_wake_remote = 0, ttwu_move_affine = 0, ttwu_move_balance = 0;
};

struct schedstat_counters {
    unsigned version = 0, cpus = 0;
    std::uint64_t sched_count = 0, sched_goidle = 0, ttwu_count = 0, ttwu_local = 0;
    std::uint64_t rq_cpu_time_ns = 0, run_delay_ns = 0, pcount = 0;
    std::vector<domain_level_counters> levels; // summed over CPUs, by level name, bottom-up
};

// `level_name(cpu, index)` names a version-15 domain line (which carries no name); version 17 names its
// own. Throws std::runtime_error for a file that is not /proc/schedstat.
schedstat_counters parse_schedstat(const std::string& text,
                                   const std::function<std::string(unsigned, unsigned)>& level_name);
// end - start, level by level.
schedstat_counters schedstat_delta(const schedstat_counters& end, const schedstat_counters& start);

struct task_counters {
    std::string comm;
    long root = 0; // the workload root it descends from (twin_runner's child in the guest; a task with
                   // no fork event in the model)
    std::uint64_t runtime_ns = 0;
    std::uint64_t nvcsw = 0, nivcsw = 0;
    std::uint64_t migrations = 0;
    std::uint64_t wakeups = 0, wakeups_remote = 0; // remote: woken onto another CPU than the waker's
    std::uint64_t wakeups_idle = 0;     // woken onto a CPU that was running its idle task
    // Woken from a CPU other than the one it last ran on (sched_waking's target_cpu): the wakeups where
    // wake_affine chooses between the two. Of those, the ones placed on the waker's CPU and the ones left
    // on the task's previous CPU (the rest went to a third CPU, an idle one near either).
    std::uint64_t wakeups_away = 0, away_to_waker = 0, away_to_prev = 0;
    // Involuntary switches of this task whose successor was woken onto the CPU since the CPU's previous
    // switch (a wakeup preemption); the other involuntary ones are the tick's, a balance's, a higher class's.
    std::uint64_t nivcsw_wakeup = 0;
    std::uint64_t wakeup_preempts = 0;  // switched in, just woken, by preempting a running task
    // Traced prios (a task starts at 120 and is made RT by sched_setscheduler; on PREEMPT_RT lock
    // owners are boosted for a while): the task is RT if most of its events show a prio below 100.
    std::uint64_t prio_events = 0, rt_prio_events = 0;
    void saw_prio(long prio) {
        ++prio_events;
        if (prio >= 0 && prio < 100) ++rt_prio_events;
    }
    bool rt() const { return 2 * rt_prio_events > prio_events; }
};

struct trace_counters {
    std::map<long, task_counters> tasks; // the workload's tasks by pid
    std::uint64_t first_ns = 0, last_ns = 0;
    std::uint64_t events = 0;
    task_counters total() const;
    // The sum over the tasks of one class: RT (prio below 100) or not.
    task_counters total_of(bool rt) const;
    bool has_rt() const;
};

// `root_parent_comm`: a workload root is a task forked by a process of this comm ("twin_runner" in the
// guest); empty: every task with a pid > 0 is the workload's (the model).
trace_counters parse_trace(const std::string& path, const std::string& root_parent_comm);

} // namespace warmsched::twin
