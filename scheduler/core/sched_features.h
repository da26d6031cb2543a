// Scheduler feature flags, as the kernel's kernel/sched/features.h lists them: one X-macro entry per
// flag with its default in each modelled kernel -- CFS as in v5.15 and EEVDF as in v6.12 -- or "absent"
// where that kernel has no such flag. The two optional out-of-tree CFS patches of
// reference/scheduler/01-fair-cfs.md are flags too, off by default. The wakeup-placement flags of
// 03-wakeup-placement.md follow (SIS_UTIL is the late 5.15.y backport, off in v5.15.0), then the
// balancing flag of 04-load-balance.md (LB_MIN), then the RT flags of 05-rt.md
// (and the model flags that switch RT placement back to its older mechanisms).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace warmsched::scheduler {

enum class kernel_version { cfs_v5_15, eevdf_v6_12 };

// X(NAME, v5.15 default, v6.12 default, description); defaults are on, off or absent.
// The run's flags: the kernel's own sched_features (and model flags), then the version changes.
#define WARMSCHED_SCHED_FEATURES(X) WARMSCHED_KERNEL_FEATURES(X) WARMSCHED_VERSION_CHANGES(X)

#define WARMSCHED_KERNEL_FEATURES(X)                                                                         \
    X(GENTLE_FAIR_SLEEPERS, on, absent, "a waking sleeper gets at most half of sched_latency of credit")     \
    X(START_DEBIT, on, absent, "a forked task starts one vslice behind min_vruntime")                        \
    X(NEXT_BUDDY, off, off, "prefer the last woken task at the next pick")                                   \
    X(LAST_BUDDY, on, absent, "prefer the preempted task at the next pick, for cache locality")              \
    X(CACHE_HOT_BUDDY, on, on, "a buddy is cache hot for load balancing")                                    \
    X(WAKEUP_PREEMPTION, on, on, "a wakeup may preempt the current task")                                    \
    X(HRTICK, off, off, "end slices with a high-resolution timer instead of the tick")                       \
    X(ALT_PERIOD, on, absent, "the period counts the CPU's h_nr_running")                                    \
    X(BASE_SLICE, on, absent, "a slice is at least min_granularity")                                         \
    X(SCALE_WAKEUP_GRAN, off, absent,                                                                        \
      "optional patch: larger wakeup granularity before min_granularity ran")                                \
    X(WAKEE_FLIPS_COUPLE, off, absent, "optional patch: couple wakee flips with heavy wakers in wake_wide")  \
    X(PLACE_LAG, absent, on, "an enqueued entity keeps the lag it had when it left")                         \
    X(PLACE_DEADLINE_INITIAL, absent, on, "a new task starts with half a slice")                             \
    X(PLACE_REL_DEADLINE, absent, on, "a migrated entity keeps its relative deadline")                       \
    X(RUN_TO_PARITY, absent, on, "the current task keeps the CPU until its deadline while eligible")         \
    X(PREEMPT_SHORT, absent, on, "a wakee with a shorter slice may cancel the current task's protection")    \
    X(DELAY_DEQUEUE, absent, on, "an ineligible sleeper stays queued until its lag recovers")                \
    X(DELAY_ZERO, absent, on, "positive lag of a delayed-dequeued task is clipped to 0")                     \
    X(WA_IDLE, on, on, "wake_affine: prefer an idle waking or previous CPU")                                 \
    X(WA_WEIGHT, on, on, "wake_affine: compare the two CPUs' loads")                                         \
    X(WA_BIAS, on, on, "wake_affine: half the imbalance margin in favour of the previous CPU")               \
    X(SIS_PROP, on, absent, "select_idle_cpu scans in proportion to the average idle time")                  \
    X(SIS_UTIL, off, on, "select_idle_cpu scans in proportion to the LLC's spare utilization")               \
    X(TTWU_QUEUE, on, on, "wake a task on another LLC or an idle CPU through its wake list and an IPI")      \
    X(LB_MIN, off, off, "load balancing skips tasks of load below 16 until a balance attempt has failed")    \
    X(NO_CROSS_LLC_BALANCE, off, off,                                                                        \
      "model flag (diagnostic): no periodic, newidle or NOHZ load balancing at domain levels above the LLC " \
      "(wakeup, fork and exec placement across LLCs are unaffected)")                                        \
    X(LAUNCH_FORK_EXEC, off, off,                                                                            \
      "model flag: the workloads' first tasks start as a shell starts them: a launcher task on CPU 0 forks " \
      "each in turn (fork balancing places it) and the child execs the workload (exec balancing) (off: "     \
      "each is queued at 0 s on its first allowed CPU)")                                                     \
    X(TASK_BASED_THROTTLE, off, off,                                                                         \
      "v6.18 CFS bandwidth throttle: a throttled group's tasks run on in the kernel and leave one by one "   \
      "at their return to user mode onto a limbo list (off: the per-cfs_rq model of v5.15/v6.12)")           \
    X(THROTTLED_LB_PAIR, on, on,                                                                             \
      "CFS bandwidth: load balancing does not move a task whose group is throttled on the source or the "    \
      "destination CPU (removed by patch 5 of the v6.18 task-based series)")                                 \
    X(LB_THROTTLED_DEST, off, off,                                                                           \
      "CFS bandwidth (v6.18 follow-up): load balancing does not move a task to a CPU where its group is "    \
      "throttled")                                                                                           \
    X(RT_RUNTIME_SHARE, off, off, "a throttling CPU borrows unused RT runtime from the other CPUs")          \
    X(RT_PUSH_IPI, on, on,                                                                                   \
      "a CPU whose RT priority drops sends an IPI to the overloaded CPUs, which push, instead of pulling")   \
    X(RT_WAKE_PREROUTE, on, on,                                                                              \
      "model flag: a woken RT task that would not preempt its CPU's RT task goes to find_lowest_rq's CPU "   \
      "(off: it queues on its previous CPU, as before RT wakeup balancing in v2.6.25)")                      \
    X(RT_TOPOLOGY_PREF, on, on,                                                                              \
      "model flag: find_lowest_rq prefers the task's CPU, the waker, then the nearest domain (off: the "     \
      "first CPU of the lowest cpupri level)")                                                               \
    X(RT_CPUPRI, on, on,                                                                                     \
      "model flag: find_lowest_rq takes the lowest CPUs from cpupri's per-priority masks (off: a linear "    \
      "scan reads every allowed run queue's best RT priority, as v2.6.25's find_lowest_cpus did)")           \
    X(RT_OVERLOAD_PUSH, on, on,                                                                              \
      "model flag: push and pull act on overloaded run queues, those with a movable queued RT task (the "    \
      "rto mask) (off: on any run queue with more than one RT task, found by reading every run queue)")

// The code changes between the two modelled kernels, one entry each: off in v5.15, on in v6.12, and
// each can be switched on its own in either kernel (kernel.features.NAME). They are not sched_features
// of the kernel (no debugfs switch; the twin does not write them): the kernel changed its code, and the
// mainline release that first has the change is in the description. What stays keyed on the kernel
// version itself: the fair class (CFS or EEVDF, with their own feature flags above), and names and
// formats -- the DIE/PKG level name, SD_SHARE_PKG_RESOURCES/SD_SHARE_LLC, the idle types of
// /proc/schedstat -- which change what the outputs say, not what the scheduler does.
#define WARMSCHED_VERSION_CHANGES(X)                                                                         \
    X(CLUSTER_LEVEL, off, on,                                                                                \
      "v5.16: the topology has a CLS level of the CPUs sharing an L2 or tags (on platforms with clusters)")  \
    X(FAIR_SERVER, off, on,                                                                                  \
      "v6.12: fair tasks get 50 ms in every 1 s ahead of RT tasks from the fair deadline server "            \
      "(dl_server; v5.15: only RT throttling leaves them time)")                                             \
    X(TTWU_QUEUE_IDLE, off, on,                                                                              \
      "v6.0: a wakeup to an idle CPU of the waker's LLC also goes through its wake list (v5.15: only "       \
      "wakeups across LLCs)")                                                                                \
    X(ASYNC_UNTHROTTLE, off, on,                                                                             \
      "v6.3: CFS bandwidth distribution unthrottles other CPUs' queues through an IPI to each (v5.15: the "  \
      "distributing CPU unthrottles them all itself)")                                                       \
    X(TG_LOAD_AVG_RATELIMIT, off, on,                                                                        \
      "v6.7: a CPU publishes its share of tg->load_avg at most once per ms (v5.15: at every change)")        \
    X(GROUP_EMPTY_KEEPS_WEIGHT, off, on,                                                                     \
      "v6.13, in 6.12.y stable (delayed dequeue): an emptied group's entity keeps its weight (v5.15: it is " \
      "reweighted to "                                                                                       \
      "the shares of an empty queue)")                                                                       \
    X(GROUP_REWEIGHT_ON_CHANGE, off, on,                                                                     \
      "v6.7: update_cfs_group reweights a group entity only when its shares changed (v5.15: always)")        \
    X(NUMA_IMB_PER_LLC, off, on,                                                                             \
      "v5.18: the NUMA imbalance allowed at fork and in balancing is sd->imb_numa_nr, from the number of "   \
      "LLCs a node spans, applied before the imbalance is halved (v5.15: up to 25 percent of the group's "   \
      "CPUs, after halving)")                                                                                \
    X(HIGHEST_FLAG_SHARED_CHILD, off, on,                                                                    \
      "v6.5: highest_flag_domain() climbs past a domain without the flag unless the flag is SHARED_CHILD "   \
      "(v5.15: it stops at the first domain without it)")                                                    \
    X(NEWIDLE_COST_WAIT_DECAY, off, on,                                                                      \
      "v5.16: a new newidle-cost maximum waits a second before it decays, and rebalance_domains decays per " \
      "domain visit (v5.15: decay once a second whatever the maximum did)")                                  \
    X(NEWIDLE_SKIP_BY_LB_COST, off, on,                                                                      \
      "v5.16: newidle balancing is skipped when the CPU's average idle time is below the base domain's "     \
      "newidle cost (v5.15: below sched_migration_cost)")                                                    \
    X(NEWIDLE_NEXT_BALANCE_FIRST, off, on,                                                                   \
      "v5.16: newidle balancing updates next_balance from each domain before its cost check (v5.15: "        \
      "after the domain's balance, or at the domain where it stops)")                                        \
    X(NEWIDLE_BAIL_OUT, off, on,                                                                             \
      "v6.0: newidle balancing gives up in should_we_balance when a task arrived on the CPU meanwhile, and " \
      "its walk stops when that said to stop (v5.15: the walk stops when the CPU has a task)")               \
    X(LB_REDUCED_CAPACITY_MISFIT, off, on,                                                                   \
      "v6.0: on symmetric CPUs, an idle CPU sees a lone task on a CPU whose capacity RT or IRQ work "        \
      "reduces as a misfit")                                                                                 \
    X(LB_MISFIT_KEEP_FIRST, off, on,                                                                         \
      "v6.9: of two groups with equally large misfit tasks the first found stays busiest (v5.15: the "       \
      "last)")                                                                                               \
    X(LB_MISFIT_NO_BACKOFF, off, on,                                                                         \
      "v6.10: a failed misfit migration neither counts in nr_balance_failed nor doubles the balance "        \
      "interval")                                                                                            \
    X(LB_FULLY_BUSY_SMT, off, on,                                                                            \
      "v6.5: among fully busy groups the last found is busiest unless the busiest so far is an SMT group "   \
      "(v5.15: the first found)")                                                                            \
    X(LB_SMT_BALANCE, off, on,                                                                               \
      "v6.6: an SMT group with more than one task is group_smt_balance for an idle CPU, a lone task is "     \
      "not pulled off an SMT core to leave it idle, and SMT groups are preferred as busiest")                \
    X(LB_PREFER_SIBLING_BUSIEST, off, on,                                                                    \
      "v6.5: prefer_sibling is read from the busiest group's child domain (v5.15: this CPU's child)")        \
    X(LB_SIBLING_IMBALANCE, off, on,                                                                         \
      "v6.6: with prefer_sibling the imbalance is sibling_imbalance(), the task counts scaled by the "       \
      "groups' sizes (v5.15: the difference of the task counts)")                                            \
    X(LB_RUNNABLE_BOOST, off, on,                                                                            \
      "v6.5: a util migration takes the CPU with the largest runnable-boosted utilization "                  \
      "(cpu_util_cfs_boost; v5.15: cpu_util)")                                                               \
    X(LB_IDLE_CORE_FIRST, off, on,                                                                           \
      "v6.6: above the SMT level, an idle CPU whose sibling is busy balances only if no CPU of the group "   \
      "sits on a fully idle core")

enum class feature {
#define WARMSCHED_FEATURE_ENUM(name, cfs, eevdf, doc) name,
    WARMSCHED_SCHED_FEATURES(WARMSCHED_FEATURE_ENUM)
#undef WARMSCHED_FEATURE_ENUM
        count
};

// The flags of one run: start from a kernel's defaults, then set by name (config, --feature).
class sched_features {
public:
    explicit sched_features(kernel_version k);

    bool operator[](feature f) const { return on_[static_cast<int>(f)]; }
    bool exists(feature f) const { return exists_[static_cast<int>(f)]; }
    // Sets NAME (e.g. "RUN_TO_PARITY") on or off. Returns an empty string, or why it cannot be set.
    std::string set(const std::string& name, bool on);

    static const char* name(feature f);
    static const char* description(feature f);
    // A change of the kernel's code between v5.15 and v6.12 (WARMSCHED_VERSION_CHANGES), not a flag the
    // kernel has.
    static bool version_change(feature f);
    kernel_version kernel() const { return kernel_; }
    // The flags that exist in this kernel, in list order.
    std::vector<feature> available() const;

private:
    std::array<bool, static_cast<int>(feature::count)> on_{}, exists_{};
    kernel_version kernel_;
};

const char* to_string(kernel_version k); // "cfs" (v5.15) or "eevdf" (v6.12)

} // namespace warmsched::scheduler
