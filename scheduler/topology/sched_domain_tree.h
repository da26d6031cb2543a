// Every CPU's sched domains, built as kernel/sched/topology.c's build_sched_domains() builds them on x86
// for the modelled kernel: the topology table (SMT, CLS from v5.16, MC, PKG -- DIE in v5.15 -- unless a
// socket holds several nodes, NODE, one NUMA level per further distance), each CPU's chain stopping at
// the first level that spans the machine; sd_init() flags and parameters; the groups of
// build_sched_groups() and, on NUMA levels, build_overlap_sched_groups() with balance masks; imb_numa_nr
// (v6.12); then cpu_attach_domain()'s removal of degenerate domains (per CPU, with the SD_PREFER_SIBLING
// hand-down) and update_top_cache_domain()'s per-CPU shortcuts (sd_llc, sd_llc_size, sd_llc_id,
// sd_share_id, sd_numa). Domains, groups, group capacities and LLC-shared state live in contiguous
// arrays; a CPU's domains are adjacent, bottom-up, and every accessor is O(1) or walks one CPU's chain.
// Left out: partial cpu_maps (isolcpus, cpusets: one root domain spans all CPUs), hotplug rebuilds,
// asymmetric capacities, ITMT (SD_ASYM_PACKING), relax_domain_level.
#pragma once

#include "platforms/topology.h"
#include "scheduler/core/sched_features.h"
#include "scheduler/topology/sched_domain.h"

#include <deque>
#include <vector>

namespace warmsched::scheduler {

class sched_domain_tree {
public:
    // `distances`: the NUMA distance table (nodes x nodes), as platform::numa_distances gives it.
    // The version changes CLUSTER_LEVEL, NUMA_IMB_PER_LLC and HIGHEST_FLAG_SHARED_CHILD of `features`
    // shape it; its kernel names the levels (DIE or PKG). The second form takes a kernel's defaults.
    sched_domain_tree(const platform::topology& t, const std::vector<std::vector<unsigned>>& distances,
                      const sched_features& features);
    sched_domain_tree(const platform::topology& t, const std::vector<std::vector<unsigned>>& distances,
                      kernel_version k)
        : sched_domain_tree(t, distances, sched_features(k)) {}
    sched_domain_tree(const sched_domain_tree&) = delete;
    sched_domain_tree& operator=(const sched_domain_tree&) = delete;
    sched_domain_tree(sched_domain_tree&&) = default; // the arrays' storage moves with them
    sched_domain_tree& operator=(sched_domain_tree&&) = default;

    kernel_version kernel() const { return kernel_; }
    unsigned num_cpus() const { return static_cast<unsigned>(first_.size()) - 1; }

    // The domains of `cpu`, bottom-up (rq->sd first); empty only on a one-CPU machine.
    object_range<sched_domain> domains(unsigned cpu) {
        return {domains_.data() + first_[cpu], domains_.data() + first_[cpu + 1]};
    }
    object_range<const sched_domain> domains(unsigned cpu) const {
        return {domains_.data() + first_[cpu], domains_.data() + first_[cpu + 1]};
    }
    sched_domain* base(unsigned cpu) {
        return first_[cpu] == first_[cpu + 1] ? nullptr : &domains_[first_[cpu]];
    }
    // Every domain of every CPU, CPU by CPU.
    const std::vector<sched_domain>& all_domains() const { return domains_; }

    // highest_flag_domain: the highest domain of `cpu` with `flag`, climbing while the flag holds (for
    // SHARED_CHILD flags; other flags: the highest domain that has it). lowest_flag_domain: the lowest.
    sched_domain* highest_flag_domain(unsigned cpu, unsigned flag);
    sched_domain* lowest_flag_domain(unsigned cpu, unsigned flag);

    // update_top_cache_domain(): the LLC domain (highest with SD_SHARE_LLC), its weight (1 without one),
    // its first CPU (this CPU without one); sd_share_id is the first CPU of the lowest SD_CLUSTER domain,
    // else sd_llc_id; sd_numa the lowest SD_NUMA domain.
    sched_domain* sd_llc(unsigned cpu) const { return sd_llc_[cpu]; }
    unsigned sd_llc_size(unsigned cpu) const { return sd_llc_size_[cpu]; }
    unsigned sd_llc_id(unsigned cpu) const { return sd_llc_id_[cpu]; }
    unsigned sd_share_id(unsigned cpu) const { return sd_share_id_[cpu]; }
    sched_domain_shared* sd_llc_shared(unsigned cpu) const {
        return sd_llc_[cpu] ? sd_llc_[cpu]->shared : nullptr;
    }
    sched_domain* sd_numa(unsigned cpu) const { return sd_numa_[cpu]; }

    bool cpus_share_cache(unsigned a, unsigned b) const { return a == b || sd_llc_id_[a] == sd_llc_id_[b]; }
    // cpus_share_resources (v6.12): the same cluster where there are clusters, else the same LLC.
    bool cpus_share_resources(unsigned a, unsigned b) const {
        return a == b || sd_share_id_[a] == sd_share_id_[b];
    }

    // "SMT 2, MC 16, PKG 192, NUMA 384": CPU 0's domains with their span weights.
    std::string describe(unsigned cpu = 0) const;

private:
    kernel_version kernel_;
    bool numa_imb_per_llc_, highest_flag_shared_child_, cluster_level_;
    std::deque<cpumask> masks_; // interned spans and balance masks (stable addresses)
    std::vector<sched_domain> domains_;
    std::vector<unsigned> first_; // domains of CPU c: [first_[c], first_[c + 1])
    std::vector<sched_group> groups_;
    std::vector<sched_group_capacity> capacities_;
    std::vector<sched_domain_shared> shared_;
    std::vector<sched_domain*> sd_llc_, sd_numa_;
    std::vector<unsigned> sd_llc_size_, sd_llc_id_, sd_share_id_;

    friend struct tree_builder;
};

} // namespace warmsched::scheduler
