// The statistics of one sched group as load balancing and fork/exec placement read them (struct
// sg_lb_stats of kernel/sched/fair.c) and how a group is classified (group_classify), from
// reference/scheduler/04-load-balance.md "load_balance" steps 3-4:
//
//   load = sum cpu_load   util = sum cpu_util   runnable = sum cpu_runnable   nr = sum nr_running
//   overloaded  nr > weight and (cap*100 < util*pct or cap*pct < runnable*100)
//   imbalanced  pinned tasks kept the child level from balancing (sgc->imbalance)
//   smt_balance (v6.6+) an SMT group with more than one task, seen by an idle CPU
//   misfit      (v6.12, symmetric CPUs) a lone task on a CPU whose capacity RT/IRQ work reduced
//   fully_busy  no spare capacity: nr >= weight and (cap*pct < runnable*100 or cap*100 <= util*pct)
//   has_spare   otherwise
//
// The load-balance pass fills these in load_balance.cpp (it needs the pass's environment); the version
// here is update_sg_wakeup_stats, which counts a group as if the placed task were not on its CPU.
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/topology/sched_domain.h"

namespace warmsched::scheduler {

class scheduler;

// enum group_type, ordered by pulling priority: a higher type is the busier group. smt_balance exists
// from v6.6 on; v5.15 never produces it. asym_packing needs ITMT, which no modelled platform has.
enum class group_type : unsigned {
    has_spare,
    fully_busy,
    misfit_task,
    smt_balance,
    asym_packing,
    imbalanced,
    overloaded,
};
const char* to_string(group_type t);

struct sg_lb_stats {
    unsigned long avg_load = 0; // group_load * 1024 / capacity (computed for overloaded groups)
    unsigned long group_load = 0, group_capacity = 0, group_util = 0, group_runnable = 0;
    unsigned sum_nr_running = 0;   // tasks of every class
    unsigned sum_h_nr_running = 0; // fair tasks
    unsigned idle_cpus = 0, group_weight = 0;
    group_type type = group_type::has_spare;
    bool group_smt_balance = false;
    unsigned long group_misfit_task_load = 0;
};

bool group_has_capacity(unsigned imbalance_pct, const sg_lb_stats& sgs);
bool group_is_overloaded(unsigned imbalance_pct, const sg_lb_stats& sgs);
group_type group_classify(unsigned imbalance_pct, const sched_group& group, const sg_lb_stats& sgs);
// check_cpu_capacity: rq's capacity is noticeably reduced by RT/IRQ work (by more than imbalance_pct).
inline bool check_cpu_capacity(const runqueue& rq, const sched_domain& sd) {
    return rq.cpu_capacity * sd.imbalance_pct < SCHED_CAPACITY_SCALE * 100;
}
// update_sg_wakeup_stats: `group`'s statistics as if `p` were not on its CPU (fork and exec placement).
void update_sg_wakeup_stats(const scheduler& core, const sched_domain& sd, const sched_group& group,
                            const task& p, sg_lb_stats& sgs);

} // namespace warmsched::scheduler
