// One runtime sched domain, as the kernel keeps one struct sched_domain per CPU per level
// (include/linux/sched/topology.h, kernel/sched/topology.c): its span, flags and balancing parameters as
// sd_init() sets them, the balancing state load_balance() and rebalance_domains() update, its sched
// groups (struct sched_group with the shared struct sched_group_capacity), the LLC-wide
// sched_domain_shared of SD_SHARE_LLC levels, and the per-domain schedstat counters of /proc/schedstat.
// Plain data: sched_domain_tree builds and owns it. Left out: the root domain, cpusets and
// relax_domain_level (one domain tree spans every CPU), CPU hotplug, asymmetric CPU capacities and
// ITMT's asym_prefer_cpu (every x86 CPU modelled here has capacity 1024), RT/IRQ pressure on capacity
// (capacity_of = 1024 until a caller lowers it).
#pragma once

#include "scheduler/topology/cpumask.h"
#include "scheduler/topology/sd_flags.h"

#include <array>
#include <cstdint>
#include <string>

namespace warmsched::scheduler {

using nsec = std::uint64_t; // scheduler clock, ns (the same alias as scheduler/task/task.h)

constexpr unsigned long SCHED_CAPACITY_SCALE = 1024; // arch_scale_cpu_capacity of every x86 CPU, SMT too
constexpr unsigned node_reclaim_distance = 30;       // NUMA levels beyond it lose FORK/EXEC/WAKE_AFFINE

// Balance types, in v5.15's enum order. v6.12 renumbered them (__CPU_NOT_IDLE = 0), which only changes the
// column order of /proc/schedstat: see schedstat_idle_order.
enum cpu_idle_type : unsigned { CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE, CPU_MAX_IDLE_TYPES };
// The idle types in the order /proc/schedstat prints them: version 15 (v5.15) idle, busy, newidle;
// version 16 (v6.12) busy, idle, newidle.
std::array<cpu_idle_type, CPU_MAX_IDLE_TYPES> schedstat_idle_order(kernel_version k);

// A pointer range over contiguous objects (a CPU's domains, a domain's groups).
template <class T> struct object_range {
    T* first = nullptr;
    T* last = nullptr;
    T* begin() const { return first; }
    T* end() const { return last; }
    std::size_t size() const { return static_cast<std::size_t>(last - first); }
    bool empty() const { return first == last; }
    T& operator[](std::size_t i) const { return first[i]; }
    T& front() const { return *first; }
    T& back() const { return last[-1]; }
};

// struct sched_group_capacity: shared by every group with the same CPUs at a level (keyed, as in the
// kernel, by the level and the group's balance CPU), so an update by one CPU is seen by all.
struct sched_group_capacity {
    unsigned long capacity = 0; // sum of capacity_of() of the group's CPUs
    unsigned long min_capacity = 0, max_capacity = 0;
    nsec next_update = 0; // update_group_capacity() again after this
    int imbalance = 0;    // group_imbalanced: pinned tasks kept the child level from balancing
    unsigned id = 0;      // the CPU the kernel allocated it for (sched_domain_debug prints it)
};

// struct sched_group: the CPUs of one child domain (or one CPU at the lowest level).
struct sched_group {
    const cpumask* cpus = nullptr;         // sched_group_span
    const cpumask* balance_mask = nullptr; // group_balance_mask: the CPUs that reach this group from below
    unsigned group_weight = 0;
    unsigned cores = 0; // SMT cores among the CPUs (v6.6+, sibling_imbalance)
    unsigned flags = 0; // the child domain's flags (sched_group::flags, v6.2+)
    sched_group_capacity* sgc = nullptr;

    const cpumask& span() const { return *cpus; }
    bool contains(unsigned cpu) const { return cpus->test(cpu); }
    unsigned weight() const { return group_weight; }
    unsigned balance_cpu() const { return balance_mask->first(); } // group_balance_cpu
    unsigned long capacity() const { return sgc->capacity; }
};

// struct sched_domain_shared: one per SD_SHARE_LLC domain span (per level), shared by its CPUs.
struct sched_domain_shared {
    unsigned nr_busy_cpus = 0; // starts at the span weight, as sd_init() sets it
    bool has_idle_cores = false;
    unsigned nr_idle_scan = 0; // SIS_UTIL
};

// The per-domain lines of /proc/schedstat (CONFIG_SCHEDSTATS), indexed by cpu_idle_type.
struct sched_domain_stats {
    using per_idle = std::array<std::uint64_t, CPU_MAX_IDLE_TYPES>;
    per_idle lb_count{}, lb_balanced{}, lb_failed{};
    per_idle lb_imbalance{}; // sum of the computed imbalances (the one column v5.15 and v6.12 print)
    // The same sum split by migration type, as the later schedstat format 17 prints it.
    per_idle lb_imbalance_load{}, lb_imbalance_util{}, lb_imbalance_task{}, lb_imbalance_misfit{};
    per_idle lb_gained{}, lb_hot_gained{}, lb_nobusyq{}, lb_nobusyg{};
    std::uint64_t alb_count = 0, alb_failed = 0, alb_pushed = 0;
    std::uint64_t sbe_count = 0, sbe_balanced = 0, sbe_pushed = 0; // printed, never counted by the kernel
    std::uint64_t sbf_count = 0, sbf_balanced = 0, sbf_pushed = 0; // ditto
    std::uint64_t ttwu_wake_remote = 0, ttwu_move_affine = 0, ttwu_move_balance = 0;
};

struct sched_domain {
    sched_domain* parent = nullptr; // nullptr at the top
    sched_domain* child = nullptr;  // nullptr at the base (rq->sd)
    sched_group* groups = nullptr;  // the local group (this CPU's), then the others in kernel list order
    unsigned nr_groups = 0;

    // Parameters (sd_init).
    unsigned min_interval = 0; // ms: the span weight
    unsigned max_interval = 0; // ms: twice the span weight
    unsigned busy_factor = 16; // the interval is this much longer while the CPU is busy
    unsigned imbalance_pct = 117;
    unsigned cache_nice_tries = 0; // nr_balance_failed must exceed it before cache-hot tasks move
    unsigned imb_numa_nr = 0;      // v5.18+: tasks allowed to stay imbalanced across NUMA (0 in v5.15)
    unsigned flags = 0;            // sd_flag bits

    // Balancing state.
    unsigned nr_balance_failed = 0;
    unsigned balance_interval = 0; // ms, starts at min_interval
    nsec last_balance = 0;
    nsec max_newidle_lb_cost = 0;
    nsec last_decay_max_lb_cost = 0; // v6.12 (v5.15 keeps next_decay = last + 1 s)
    nsec avg_scan_cost = 0;          // v5.15 SIS_PROP, kept on sd_llc: EWMA of select_idle_cpu scans

    // Identity.
    unsigned cpu = 0;           // the CPU this domain belongs to
    int level = 0;              // sd->level: the topology level's index before degenerate levels went
    const char* name = "";      // SMT, CLS, MC, PKG (DIE in v5.15), NODE, NUMA
    unsigned numa_distance = 0; // NODE/NUMA levels: the node distance this level reaches
    unsigned span_weight = 0;
    const cpumask* cpus = nullptr; // sched_domain_span

    sched_domain_shared* shared = nullptr; // SD_SHARE_LLC levels
    sched_domain_stats stats;

    const cpumask& span() const { return *cpus; }
    bool contains(unsigned c) const { return cpus->test(c); }
    bool has(unsigned flag_mask) const { return (flags & flag_mask) != 0; }
    object_range<sched_group> group_list() const { return {groups, groups + nr_groups}; }
};

// What sd_init() sets for a domain of `weight` CPUs whose topology level contributes `topology_flags`
// (cpu_smt_flags: SHARE_CPUCAPACITY|SHARE_LLC; cluster: CLUSTER|SHARE_LLC; core: SHARE_LLC; PKG and NODE:
// none; NUMA: SD_NUMA) and, for a NUMA level, reaches nodes up to `numa_distance`.
struct sd_parameters {
    unsigned flags, imbalance_pct, cache_nice_tries, busy_factor, min_interval, max_interval;
};
sd_parameters sd_init_parameters(unsigned topology_flags, unsigned weight, unsigned numa_distance);

// sd_degenerate(): a domain of one CPU, or with one group and no flag that works without groups.
bool sd_degenerate(unsigned weight, unsigned flags, unsigned nr_groups);
// sd_parent_degenerate(): the parent is degenerate, or spans the same CPUs as its child and adds no flag
// (counting only the flags that need groups when the parent has more than one group).
bool sd_parent_degenerate(unsigned child_flags, bool same_span, unsigned parent_weight, unsigned parent_flags,
                          unsigned parent_nr_groups);

} // namespace warmsched::scheduler
