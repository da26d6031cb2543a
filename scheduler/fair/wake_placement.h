// Where a waking fair task runs: select_task_rq_fair's wakeup path (reference/scheduler/
// 03-wakeup-placement.md), as a design essay in code:
//
//   record_wakee ─► wake_wide? ──yes──────────────────────────────┐
//        (flips, decayed per second)   │no                         │
//                                      ▼                           ▼
//                wake_affine(this, prev) in the lowest      target = prev
//                WAKE_AFFINE domain spanning both:
//                  WA_IDLE: an idle waking CPU sharing the LLC (or prev if idle), a sync waker alone
//                  WA_WEIGHT: this_load + task < prev_load - task, with WA_BIAS's half margin
//                                      │ target
//                                      ▼
//   select_idle_sibling(prev, target): target idle? prev idle and cache affine? recent_used_cpu?
//        SMT: an idle sibling of prev when no core is fully idle; then select_idle_cpu over the
//        target's LLC -- a fully idle core while has_idle_cores, else the first idle CPU within a
//        scan budget (SIS_PROP: from the waker's average idle time and the scan cost; SIS_UTIL:
//        from the LLC's utilization) -- else target.
//
// The domains, the LLC-shared hints (has_idle_cores, nr_idle_scan) and sd_llc's avg_scan_cost are the
// sched-domain tree's. The CPUs the scan looks at are reported so that the kernel can read their
// run-queue lines through the cache model; the time that takes comes back as the scan cost SIS_PROP
// averages.
// Left out: asymmetric capacity, clusters (x86 clusters are single cores on the shipped platforms),
// per-CPU kthread stacking, core scheduling cookies.
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_features.h"
#include "scheduler/fair/fair_tunables.h"
#include "scheduler/topology/sched_domain_tree.h"

#include <vector>

namespace warmsched::scheduler {

class scheduler;

class wake_placement {
public:
    explicit wake_placement(scheduler& core);

    // select_task_rq_fair for a wakeup (WF_TTWU) from the CPU running the current scheduler call.
    // `probed` receives every CPU whose run queue was looked at beyond this CPU and prev.
    unsigned select(task& p, unsigned prev_cpu, unsigned wake_flags, std::vector<unsigned>& probed);
    // A CPU has just switched to its idle task: the idle-core hint and avg_idle bookkeeping.
    void cpu_enters_idle(unsigned cpu, nsec now);
    // An idle CPU is being woken (ttwu_do_wakeup): fold its idle period into avg_idle.
    void cpu_woken_from_idle(unsigned cpu, nsec now);
    // The time the waker spent probing (SIS_PROP's scan cost), measured by the kernel.
    void account_scan(unsigned this_cpu, nsec time);

    bool available_idle_cpu(unsigned cpu) const;
    bool sched_idle_cpu(unsigned cpu) const;
    unsigned llc_size(unsigned cpu) const;

private:
    void record_wakee(task& waker, const task& p, nsec now);
    bool wake_wide(const task& waker, const task& p, unsigned llc_size) const;
    int wake_affine(sched_domain& sd, task& p, const task& waker, unsigned this_cpu, unsigned prev,
                    bool sync);
    int wake_affine_idle(unsigned this_cpu, unsigned prev, bool sync) const;
    int wake_affine_weight(const task& p, const task& waker, unsigned this_cpu, unsigned prev, bool sync,
                           unsigned imbalance_pct) const;
    unsigned select_idle_sibling(task& p, unsigned prev, unsigned target, std::vector<unsigned>& probed);
    int select_idle_smt(const task& p, unsigned prev, std::vector<unsigned>& probed);
    int select_idle_cpu(const task& p, bool has_idle_core, unsigned target, std::vector<unsigned>& probed);
    void update_nr_idle_scan(unsigned target, nsec jiffy);
    nsec jiffies(nsec now) const;

    scheduler& core_;
    const sched_features& feat_;
    const fair_tunables& tun_;
    sched_domain_tree& domains_;
    std::vector<nsec> nr_idle_scan_stamp_; // per sd_llc_id: the jiffy nr_idle_scan was computed at
    std::vector<bool> skip_;               // select_idle_cpu's scratch: LLC CPUs of cores already searched
    bool smt_ = false;
};

} // namespace warmsched::scheduler
