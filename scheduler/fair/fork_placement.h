// Where a new task (fork, WF_FORK) or an exec'ing task (WF_EXEC) runs: select_task_rq_fair's slow path,
// find_idlest_cpu (sched_balance_find_dst_cpu in v6.10+), from reference/scheduler/03-wakeup-placement.md
// "Slow path: fork and exec":
//
//   sd = the highest domain of this CPU with SD_BALANCE_FORK (EXEC), climbing while the flag holds
//   loop: group = find_idlest_group(sd)    -- the least busy group (stats as if p were elsewhere),
//                                             unless the local group is as good (NUMA: allowed imbalance)
//         none -> sd = sd.child
//         cpu = find_idlest_group_cpu(group) -- a SCHED_IDLE CPU; else the most recently idled CPU
//                                             (every idle CPU is in the same C-state here); else the
//                                             least loaded
//         sd = the highest flagged domain of cpu below sd's span
//
// The NUMA rule differs: v5.15 keeps the child on the local node while local running + 1 < 25% of the
// node's CPUs (the form after "sched/fair: Improve consistency of allowed NUMA balance calculations",
// which reference/scheduler/03 describes); v6.12 while local running + 1 <= imb_numa_nr and the two
// groups' idle counts differ by at most 2 (NUMA_IMBALANCE_MIN). NUMA balancing's preferred node is not
// modelled. select() serves both flags: wake_up_new_task (fork) and sched_exec (exec).
#pragma once

#include "scheduler/fair/group_stats.h"

namespace warmsched::scheduler {

class fork_placement {
public:
    explicit fork_placement(scheduler& core) : core_(core) {}

    // select_task_rq_fair for WF_FORK or WF_EXEC from the CPU running the current scheduler call.
    unsigned select(const task& p, unsigned prev_cpu, unsigned wake_flags);
    // The steps, public for tests.
    unsigned find_idlest_cpu(sched_domain* sd, const task& p, unsigned cpu, unsigned prev_cpu,
                             unsigned sd_flag);
    const sched_group* find_idlest_group(const sched_domain& sd, const task& p, unsigned this_cpu);
    unsigned find_idlest_group_cpu(const sched_group& group, const task& p, unsigned this_cpu) const;

private:
    scheduler& core_;
};

} // namespace warmsched::scheduler
