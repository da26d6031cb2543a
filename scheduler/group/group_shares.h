// Group weights (cpu.weight) in the fair class, flattened: each CPU keeps, per task group active on it,
// the load of the group's queue there (the weights of its queued tasks and of its child groups'
// entities) and the weight of the group's entity, calc_group_shares of kernel/sched/fair.c:
//
//   load_i = cfs_rq_i.load.weight      tg_weight = tg.load_avg - contrib_i + load_i
//   w_se_i = clamp(shares * load_i / tg_weight, 2, shares)
//
// with tg.load_avg the sum of the CPUs' contributions, each refreshed only when it drifted by more
// than 1/64. The fair queue itself stays flat (one per CPU): a task of a group is queued with its
// hierarchical weight, w_task * prod over its levels of (w_se / load), which gives each group, and each
// task within it, the share of the CPU the kernel's hierarchy gives in steady state (h_load: the
// balancer sees the same loads). Weights are recomputed along the task's chain at its enqueue and
// dequeue (update_cfs_group), and for the CPU's queued tasks at the tick.
//
// Modelled differently: load_i is the instantaneous load.weight, not max(load.weight, load_avg) (no
// PELT per group cfs_rq), so a group whose tasks sleep briefly loses its contribution at once; the
// order in which a group's tasks run within their share follows the flat queue (their own vruntime or
// deadline scaled by the hierarchical weight) rather than a pick that walks down group entities.
#pragma once

#include "scheduler/group/task_groups.h"
#include "scheduler/task/task.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace warmsched::scheduler {

// A group's cfs_rq and entity on one CPU (only the weights).
struct group_rq_weights {
    std::uint64_t load = 0;      // sum of the weights queued directly in the group on this CPU
    unsigned nr = 0;             // entities queued directly in it (tasks and child groups)
    std::uint32_t se_weight = 0; // the group entity's weight (calc_group_shares)
    std::int64_t contrib = 0;    // tg_load_avg_contrib
};

class group_shares {
public:
    explicit group_shares(const task_groups& groups) : groups_(groups) {}
    void build(unsigned ncpus);

    // p joins / leaves `cpu`'s fair queue: its levels' loads and the group entities' weights.
    void task_enqueued(unsigned cpu, const task& p);
    void task_dequeued(unsigned cpu, const task& p);
    // Recomputes the weights of every group active on `cpu` (deepest first), as at the tick.
    void refresh(unsigned cpu);
    // p's hierarchical weight on `cpu` (p counted there).
    std::uint32_t task_weight(unsigned cpu, const task& p) const;
    // The state of group g on `cpu` (nullptr if never active there), and tg.load_avg.
    const group_rq_weights* on(unsigned cpu, group_id g) const;
    std::int64_t tg_load_avg(group_id g) const { return load_avg_[g]; }

    static std::uint32_t own_weight(const task& p);

private:
    std::uint32_t calc_group_shares(group_id g, group_rq_weights& gr);
    // Adds `task_load` at p's group and propagates entity weight changes to the root.
    void update_chain(unsigned cpu, const task& p, bool enqueue);

    const task_groups& groups_;
    std::vector<std::unordered_map<group_id, group_rq_weights>> cpus_; // lazily filled per CPU
    std::vector<std::int64_t> load_avg_;                               // tg.load_avg per group
};

} // namespace warmsched::scheduler
