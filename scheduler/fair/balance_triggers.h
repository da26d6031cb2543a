// When load balancing runs (reference/scheduler/04-load-balance.md "Triggers"):
//
//   tick on a busy CPU ── nohz_balancer_kick: due, and this rq has >= 2 tasks, or a fair task on a CPU of
//        │                reduced capacity, or the LLC has > 1 busy CPU ──► kick the first idle CPU (IPI)
//        └── jiffies >= rq.next_balance ──► SCHED_SOFTIRQ: update_blocked_averages, rebalance_domains
//   rebalance_domains(rq, CPU_IDLE | CPU_NOT_IDLE): bottom-up, per domain every balance_interval ms
//        (x busy_factor when busy), load_balance when due, stop climbing when should_we_balance says no;
//        decays max_newidle_lb_cost ~1% per second
//   newidle (the fair pick found nothing): only if the root domain is overloaded and avg_idle is long
//        enough (v5.15: >= migration_cost; v6.12: >= the base domain's max_newidle_lb_cost); bottom-up
//        while avg_idle covers the cost so far plus the level's max_newidle_lb_cost; stop on a pull
//   NOHZ idle balance, on the kicked CPU's IPI: for every idle CPU whose next_balance is due,
//        rebalance_domains(CPU_IDLE) on its behalf; refresh blocked load (every 32 ms)
//
// NOHZ state: a CPU joins nohz.idle_cpus_mask (and leaves its LLC's nr_busy_cpus) when it switches to
// idle -- the simulated kernel stops the tick at once -- and leaves it at its first busy tick.
// nohz.needs_update's NOHZ_NEXT_KICK is replaced by taking the entering CPU's next_balance into
// nohz.next_balance directly. SD_SERIALIZE's global trylock always succeeds: a pass takes no simulated
// time while it runs, so two never overlap.
//
// Cost: every load_balance() pass costs lb_pass_cost_ns + lb_rq_cost_ns per run queue it reads
// (fair_tunables); newidle's max_newidle_lb_cost and the rq's max_idle_balance_cost are kept from those
// costs, and the simulated kernel charges them, plus `migrate` per task moved, as CPU time of the CPU
// that ran the pass (scheduler::take_balance_work).
#pragma once

#include "scheduler/fair/load_balance.h"

#include <cstdint>
#include <vector>

namespace warmsched::scheduler {

// NOHZ kick flags.
enum : unsigned {
    NOHZ_BALANCE_KICK = 0x1,
    NOHZ_STATS_KICK = 0x2,
    NOHZ_KICK_MASK = NOHZ_BALANCE_KICK | NOHZ_STATS_KICK,
};

class balance_triggers {
public:
    balance_triggers(scheduler& core, load_balancer& lb);

    // The scheduler tick's trigger_load_balance: NOHZ kick, then the periodic balance if due.
    void trigger_load_balance(runqueue& rq, nsec now);
    // rebalance_domains for rq's CPU (which may be an idle CPU the NOHZ balancer stands in for).
    void rebalance_domains(runqueue& rq, cpu_idle_type idle, nsec now);
    // newidle_balance (sched_balance_newidle): > 0 if a fair task is now queued on rq.
    int newidle_balance(runqueue& rq, nsec now);
    // The CPU switched to its idle task (its tick stops): nohz_balance_enter_idle.
    void nohz_balance_enter_idle(unsigned cpu);
    // The IPI of a NOHZ kick on `cpu` (nohz_csd_func and its softirq): balance for the idle CPUs.
    void nohz_csd(unsigned cpu, nsec now);

    // Introspection for tests.
    bool nohz_idle(unsigned cpu) const { return (idle_mask_[cpu >> 6] >> (cpu & 63)) & 1; }
    unsigned nohz_nr_cpus() const { return nohz_nr_cpus_; }
    nsec nohz_next_balance() const { return nohz_next_balance_; }
    // get_sd_balance_interval, in jiffies.
    nsec balance_interval(const sched_domain& sd, bool busy) const;

private:
    nsec jiffies(nsec now) const { return core_.config().jiffies(now); }
    nsec msecs_to_jiffies(nsec ms) const;
    void update_next_balance(const sched_domain& sd, nsec& next_balance) const;
    bool update_newidle_cost(sched_domain& sd, nsec cost, nsec now);
    void nohz_balancer_kick(runqueue& rq, nsec now);
    void nohz_balance_exit_idle(runqueue& rq);
    void kick_ilb(unsigned flags, nsec now);
    int find_new_ilb() const;
    bool update_nohz_stats(runqueue& rq, nsec now);
    void nohz_idle_balance(runqueue& this_rq, unsigned flags, nsec now);
    void set_llc_busy(unsigned cpu, bool busy);

    scheduler& core_;
    load_balancer& lb_;
    nsec max_load_balance_interval_; // jiffies: HZ * ncpus / 10
    // struct nohz
    std::vector<std::uint64_t> idle_mask_;
    unsigned nohz_nr_cpus_ = 0;
    nsec nohz_next_balance_ = 0, nohz_next_blocked_ = 0; // jiffies
    bool nohz_has_blocked_ = false;
    std::vector<unsigned> scratch_; // the idle CPUs one NOHZ balance visits
};

} // namespace warmsched::scheduler
