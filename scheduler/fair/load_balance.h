// One load-balance pass (load_balance, sched_balance_rq in v6.10+) of kernel/sched/fair.c, from
// reference/scheduler/04-load-balance.md "load_balance(this_cpu, sd, idle)": this CPU pulls work from the
// busiest group of one of its sched domains, or asks the busiest CPU's stopper to push its running task.
//
//   load_balance(this_cpu, sd, idle)                          lb_count[idle]++
//     should_we_balance? ── no (another CPU of the local group balances this level) ──► stop the climb
//     find_busiest_group:  per group: load, util, runnable, nr, h_nr, idle CPUs, capacity ──► classify
//        busiest = the highest type (ties by avg_load, idle CPUs, task count)       none ──► lb_nobusyg
//        balanced? (local busier; both overloaded within imbalance_pct; not overloaded and nothing to
//        gain for a busy or a not-idle-enough CPU) ──► lb_balanced, balance_interval *= 2
//        calculate_imbalance ──► migration type (load | util | task | misfit) and amount
//     find_busiest_queue:  the rq with the most load/capacity | util | tasks | misfit    none ──► lb_nobusyq
//     detach_tasks:  walk busiest's cfs_tasks from the least recently run end (at most nr_migrate):
//        can_migrate_task?  affinity (SOME_PINNED; remember a local-group CPU as new_dst: DST_PINNED)
//                           running? cache hot (< migration_cost ago, a buddy) unless failed > nice tries
//        take it if it fits the imbalance, else rotate it to the MRU end
//     attach_tasks: enqueue on this CPU, preemption check                          lb_gained += n
//     DST_PINNED and imbalance left ──► retry from the same busiest to new_dst
//     SOME_PINNED and imbalance left ──► parent's local group is "imbalanced" (group_imbalanced)
//     ALL_PINNED ──► drop that CPU from the span and redo
//     nothing moved: lb_failed, nr_balance_failed++ (not newidle) ──► need_active_balance?
//        (task balance failing past cache_nice_tries + 2, or a lone task on a CPU whose capacity
//         RT/IRQ work reduced) ──► busiest.active_balance, push_cpu = this CPU, resched busiest
//
// The stopper (active_load_balance_cpu_stop) runs on the busiest CPU inside its next schedule(): the
// running task has been switched out, so detach_one_task may take it (LBF_ACTIVE_LB skips hotness).
//
// v5.15 and v6.12 differ where the reference marks it, each difference a version change of
// core/sched_features.h that can be switched on its own: LB_SMT_BALANCE, LB_SIBLING_IMBALANCE,
// LB_REDUCED_CAPACITY_MISFIT, LB_MISFIT_KEEP_FIRST, LB_MISFIT_NO_BACKOFF, LB_FULLY_BUSY_SMT,
// LB_PREFER_SIBLING_BUSIEST, LB_RUNNABLE_BOOST, LB_IDLE_CORE_FIRST, NEWIDLE_BAIL_OUT and NUMA_IMB_PER_LLC
// (v5.15: local running + 1 < weight/4 after halving; v6.12: local running + 1 <= imb_numa_nr before
// halving). CACHE_HOT_BUDDY counts the last buddy too, which only v5.15 has. Not modelled: asym packing and asymmetric capacities (no ITMT or hybrid platforms), NUMA
// balancing (fbq types, migrate_degrades_locality), throttled groups, per-CPU kthreads, core cookies.
// A sched_delayed (EEVDF delayed-dequeue) sleeper is never moved.
#pragma once

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/group_stats.h"

#include <vector>

namespace warmsched::scheduler {

enum class migration_type { load, util, task, misfit };

// lb_env flags.
enum : unsigned {
    LBF_ALL_PINNED = 0x01,
    LBF_NEED_BREAK = 0x02,
    LBF_DST_PINNED = 0x04,
    LBF_SOME_PINNED = 0x08,
    LBF_ACTIVE_LB = 0x10,
};

// struct lb_env: one pass's state.
struct lb_env {
    sched_domain* sd = nullptr;
    unsigned src_cpu = 0, dst_cpu = 0, new_dst_cpu = 0;
    const cpumask* dst_grpmask = nullptr; // the local group's balance mask
    cpu_idle_type idle = CPU_NOT_IDLE;
    long imbalance = 0;
    std::vector<unsigned> dropped; // CPUs taken out of env->cpus (the span) during the pass
    unsigned flags = 0, loop = 0, loop_break = 0, loop_max = 0;
    migration_type type = migration_type::load;
    std::vector<task*> tasks; // detached, to attach
    bool in_cpus(unsigned cpu) const;
};

// struct sd_lb_stats: the domain's statistics.
struct sd_lb_stats {
    const sched_group* busiest = nullptr;
    const sched_group* local = nullptr;
    unsigned long total_load = 0, total_capacity = 0, avg_load = 0;
    bool prefer_sibling = false;
    sg_lb_stats busiest_stat, local_stat;
};

class load_balancer {
public:
    explicit load_balancer(scheduler& core);

    // load_balance(): pulls tasks from the busiest group of `sd` to this_cpu; returns how many moved.
    // Clears `continue_balancing` when should_we_balance() leaves this level to another CPU. The pass's
    // cost is charged to the CPU running it (scheduler::calling_cpu) and kept in last_cost().
    unsigned load_balance(unsigned this_cpu, sched_domain& sd, cpu_idle_type idle, bool& continue_balancing,
                          nsec now);
    // The stopper of `cpu` (its running task already switched out) pushes one task to push_cpu.
    void active_load_balance_cpu_stop(unsigned cpu, nsec now);
    // What the balancer reports migrations as (set by the trigger running the pass).
    void set_cause(migration_cause c) { cause_ = c; }
    nsec last_cost() const { return last_cost_; }
    // update_group_capacity(): the local group's capacity at sd (the CPU's own when sd is the base).
    void update_group_capacity(sched_domain& sd, unsigned cpu, nsec jiffies);

    // The steps, public for tests.
    bool should_we_balance(const lb_env& env) const;
    const sched_group* find_busiest_group(lb_env& env, sd_lb_stats& sds);
    runqueue* find_busiest_queue(lb_env& env, const sched_group& group);
    bool can_migrate_task(task& p, lb_env& env);
    bool task_hot(const task& p, const lb_env& env) const;
    bool need_active_balance(const lb_env& env) const;

private:
    void update_sd_lb_stats(lb_env& env, sd_lb_stats& sds);
    void update_sg_lb_stats(lb_env& env, const sd_lb_stats& sds, const sched_group& group, sg_lb_stats& sgs,
                            bool& sg_overloaded);
    bool update_sd_pick_busiest(const sd_lb_stats& sds, const sched_group& sg, const sg_lb_stats& sgs) const;
    void calculate_imbalance(lb_env& env, sd_lb_stats& sds);
    long sibling_imbalance(const lb_env& env, const sd_lb_stats& sds, const sg_lb_stats& busiest,
                           const sg_lb_stats& local) const;
    unsigned detach_tasks(lb_env& env, runqueue& src);
    void detach_task(task& p, lb_env& env);
    void attach_tasks(lb_env& env, nsec now);
    bool idle_cpu(unsigned cpu) const { return core_.rq(cpu).is_idle(); }

    scheduler& core_;
    const sched_features& feat_;
    const fair_tunables& tun_;
    migration_cause cause_ = migration_cause::periodic_balance;
    unsigned rqs_examined_ = 0; // run queues read by the current pass (its cost)
    nsec now_ = 0;              // the time of the current pass
    nsec last_cost_ = 0;
};

} // namespace warmsched::scheduler
