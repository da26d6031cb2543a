// The machine tree derived from a platform description: how many sockets, groups, cores and hardware
// threads there are, which Linux CPU number each hardware thread gets, and which instance of every
// grouping level (and so which cache, LLC, NUMA node and memory controller) each core belongs to.
// Grouping levels are named by the platform; "machine" is the implicit root and "core" the leaf level.
#pragma once

#include "platforms/platform_params.h"

#include <string>
#include <vector>

namespace warmsched::platform {

class topology {
public:
    explicit topology(const platform_params& p); // p must be validated

    unsigned num_cpus() const { return num_cores_ * threads_per_core_; }
    unsigned num_cores() const { return num_cores_; }
    unsigned threads_per_core() const { return threads_per_core_; }

    // Grouping levels: "machine", the platform's level names, "core".
    bool has_group(const std::string& name) const;
    // Depth: machine = 0, first level = 1, ..., core = number of levels. Larger is finer.
    int depth(const std::string& name) const;
    unsigned group_count(const std::string& name) const;
    unsigned group_of_core(const std::string& name, unsigned core) const;
    std::vector<unsigned> cores_of_group(const std::string& name, unsigned group) const;
    const std::vector<std::string>& level_names() const { return names_; } // without machine, with core last

    // Linux CPU numbering.
    unsigned cpu_of(unsigned core, unsigned thread) const {
        return cpu_of_[core * threads_per_core_ + thread];
    }
    unsigned core_of_cpu(unsigned cpu) const { return core_of_cpu_[cpu]; }
    unsigned thread_of_cpu(unsigned cpu) const { return thread_of_cpu_[cpu]; }
    std::vector<unsigned> cpus_of_cores(const std::vector<unsigned>& cores) const; // sorted

    // Caches: the sharing domain of each configured level, the LLC being the last level.
    unsigned num_cache_levels() const { return static_cast<unsigned>(cache_groups_.size()); }
    const std::string& cache_group(unsigned level) const { return cache_groups_[level]; }
    unsigned llc_level() const { return num_cache_levels() - 1; }
    unsigned num_llcs() const { return group_count(cache_groups_.back()); }
    unsigned llc_of_core(unsigned core) const { return group_of_core(cache_groups_.back(), core); }
    // Private levels are those shared_by "core" (the L1 and, on most platforms, the L2).
    unsigned num_private_levels() const { return num_private_levels_; }

    unsigned num_sockets() const { return group_count(names_.front()); }
    unsigned socket_of_core(unsigned core) const { return group_of_core(names_.front(), core); }

    unsigned num_nodes() const { return group_count(node_group_); }
    unsigned node_of_core(unsigned core) const { return group_of_core(node_group_, core); }
    const std::string& node_group() const { return node_group_; }

    unsigned num_memory_controllers() const { return group_count(memory_group_); }
    const std::string& memory_group() const { return memory_group_; }
    // Controllers holding node `n`'s memory (a node spans one or more controller groups).
    const std::vector<unsigned>& controllers_of_node(unsigned n) const { return node_controllers_[n]; }
    unsigned node_of_controller(unsigned mc) const { return controller_node_[mc]; }

private:
    std::vector<std::string> names_; // level names then "core"
    std::vector<unsigned> counts_;   // per name: instances per parent instance
    std::vector<unsigned> span_;     // per name: cores per instance
    unsigned num_cores_ = 0;
    unsigned threads_per_core_ = 1;
    std::vector<unsigned> cpu_of_, core_of_cpu_, thread_of_cpu_;
    std::vector<std::string> cache_groups_;
    unsigned num_private_levels_ = 0;
    std::string node_group_, memory_group_;
    std::vector<std::vector<unsigned>> node_controllers_;
    std::vector<unsigned> controller_node_;
};

} // namespace warmsched::platform
