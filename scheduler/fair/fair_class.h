// What the two fair classes share: the entity accounting both kernels do the same way (runtime into
// sum_exec_runtime, virtual time as delta * 1024 / weight with the kernel's inverse-weight rounding),
// queue counts, and CPU selection. CFS (v5.15) and EEVDF (v6.12) differ in how they place, pick and
// preempt, and implement those in cfs_class and eevdf_class.
//
// CPU selection: a wakeup goes through wake_placement (select_task_rq_fair's wakeup path); fork goes
// to the idlest allowed CPU (find_idlest_group through the sched domains is still to come), and load
// balancing is not modelled yet: `balance` does nothing.
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_class.h"
#include "scheduler/core/sched_features.h"
#include "scheduler/fair/fair_tunables.h"
#include "scheduler/fair/wake_placement.h"

namespace warmsched::scheduler {

class scheduler;

class fair_class : public sched_class {
public:
    explicit fair_class(scheduler& core);

    unsigned select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) override;
    bool balance(runqueue& rq, task* prev) override;
    bool has_runnable(const runqueue& rq) const override { return rq.cfs.nr_running > 0; }
    wake_placement& placement() { return placement_; }

    // calc_delta_fair: wall time `delta` as virtual time of `se` (delta * 1024 / weight).
    static std::int64_t calc_delta_fair(nsec delta, const sched_entity& se);
    // delta * weight / load, as __calc_delta scales a period by a share of a queue's load.
    static nsec scale_by_share(nsec delta, std::uint64_t weight, std::uint64_t load);

protected:
    // Charges curr the time since exec_start; returns it (0 if none).
    nsec update_curr_se(runqueue& rq, sched_entity& curr);
    void account_enqueue(cfs_rq& q, sched_entity& se) {
        q.load += se.weight;
        ++q.nr_running;
    }
    void account_dequeue(cfs_rq& q, sched_entity& se) {
        q.load -= se.weight;
        --q.nr_running;
    }
    // The least loaded allowed CPU: fewest queued tasks; then fewest attached (sleeping) tasks; then
    // on an idle core; then sharing the LLC with `near`; then the lowest number.
    unsigned find_idlest_cpu(const task& p, unsigned near) const;

    scheduler& core_;
    const sched_features& feat_;
    const fair_tunables& tun_;
    wake_placement placement_;
};

} // namespace warmsched::scheduler
