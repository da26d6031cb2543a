// Where a waking or new RT task goes (select_task_rq_rt) and where an RT task could run at a lower
// priority than anything there (find_lowest_rq), over cpupri's levels and the sched-domain tree.
//
//   wakee p, previous CPU `cpu` running curr
//        |
//        +-- curr is RT and (curr.prio <= p.prio or curr is pinned)?  -- no -->  stay on `cpu`
//        |                                                                   (p preempts curr there)
//        v yes
//   find_lowest_rq(p):  lowest_mask = cpupri_find(p)  (lowest level below p's, within p's affinity)
//        1. p's CPU in the mask                     -> it (cache hot)
//        2. walk p's CPU's domains bottom-up; at each SD_WAKE_AFFINE domain:
//             this_cpu (the waker) in span and mask -> this_cpu
//             else mask ∩ span non-empty            -> a CPU of it (rotating)
//        3. this_cpu if in the mask, else any CPU of the mask
//   used only if p.prio < target's highest RT prio.
//
// Idle CPUs and CPUs running fair work share cpupri level 0, so topology, not idleness, decides among
// them. The model flags RT_WAKE_PREROUTE (off: stay on the previous CPU) and RT_TOPOLOGY_PREF (off: the
// first CPU of the lowest level) switch back to the older behaviours, and RT_CPUPRI (off) replaces cpupri
// by v2.6.25's find_lowest_cpus: a walk over p's allowed CPUs in order reading each run queue's best RT
// priority, which stops at the first CPU with no RT task (then the only candidate) and otherwise keeps the
// CPUs at the lowest RT priority below p's. Every run queue of another CPU that placement reads (the
// scan's, and the chosen target's, whose priority is checked) is listed in the scheduler's rt_rq_reads,
// and the simulated kernel reads those lines through the caches: the scan costs what its misses cost.
// cpupri's own vectors are not read through the caches. Left out: asymmetric-capacity fitness (uclamp),
// migration-disabled tasks.
#pragma once

#include "scheduler/rt/cpupri.h"
#include "scheduler/task/task.h"

namespace warmsched::scheduler {

class scheduler;

class rt_placement {
public:
    rt_placement(scheduler& core, const cpupri& cp) : core_(core), cpupri_(cp) {}

    // select_task_rq_rt for WF_TTWU / WF_FORK; other callers keep `cpu`.
    unsigned select(task& p, unsigned cpu, unsigned wake_flags);
    // find_lowest_rq: a CPU for p running only lower-priority work, or -1; `this_cpu` is the CPU whose
    // code searches (the waker or the pushing CPU).
    int find_lowest_rq(const task& p, unsigned this_cpu);
    // The lowest-priority CPUs below p's that p may run on (cpupri_find, or the linear scan without
    // RT_CPUPRI); empty if none. `this_cpu` is the CPU whose code reads the run queues.
    std::vector<unsigned> lowest_mask(const task& p, unsigned this_cpu);

private:
    // v2.6.25's find_lowest_cpus (see above).
    std::vector<unsigned> linear_scan(const task& p, unsigned this_cpu);

    scheduler& core_;
    const cpupri& cpupri_;
    unsigned distribute_prev_ = 0; // any_and_distribute's rotation
};

// nr_cpus_allowed, up to 2 (enough to tell a pinned task).
unsigned allowed_up_to_two(const task& p, unsigned ncpus);

} // namespace warmsched::scheduler
