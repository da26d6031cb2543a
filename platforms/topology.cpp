// Machine tree derivation; see topology.h.
#include "platforms/topology.h"

#include <algorithm>
#include <cassert>

namespace warmsched::platform {

topology::topology(const platform_params& p) : threads_per_core_(p.threads_per_core) {
    for (const auto& l : p.levels) {
        names_.push_back(l.name);
        counts_.push_back(l.count);
    }
    assert(!names_.empty() && names_.back() == "core");
    span_.assign(names_.size(), 1);
    for (int i = static_cast<int>(names_.size()) - 2; i >= 0; --i) span_[i] = span_[i + 1] * counts_[i + 1];
    num_cores_ = span_[0] * counts_[0];

    // Linux x86 numbering: first threads of all cores in order, then the second threads, and so on.
    // "siblings_adjacent" numbers the threads of a core consecutively (as many ARM and POWER systems do);
    // cpu_ids gives every number explicitly.
    const unsigned n = num_cpus();
    cpu_of_.resize(n);
    core_of_cpu_.resize(n);
    thread_of_cpu_.resize(n);
    for (unsigned c = 0; c < num_cores_; ++c)
        for (unsigned t = 0; t < threads_per_core_; ++t) {
            unsigned cpu = !p.cpu_ids.empty()                        ? p.cpu_ids[c * threads_per_core_ + t]
                           : p.cpu_numbering == "siblings_adjacent" ? c * threads_per_core_ + t
                                                                    : t * num_cores_ + c;
            cpu_of_[c * threads_per_core_ + t] = cpu;
            core_of_cpu_[cpu] = c;
            thread_of_cpu_[cpu] = t;
        }

    for (const auto& c : p.caches) {
        cache_groups_.push_back(c.shared_by);
        if (c.shared_by == "core") ++num_private_levels_;
    }
    node_group_ = p.numa.node_per;
    memory_group_ = p.memory.controllers_per;
    node_controllers_.resize(num_nodes());
    controller_node_.resize(num_memory_controllers());
    for (unsigned mc = 0; mc < num_memory_controllers(); ++mc) {
        unsigned first_core = cores_of_group(memory_group_, mc).front();
        unsigned node = node_of_core(first_core);
        controller_node_[mc] = node;
        node_controllers_[node].push_back(mc);
    }
}

bool topology::has_group(const std::string& name) const {
    return name == "machine" || std::find(names_.begin(), names_.end(), name) != names_.end();
}

int topology::depth(const std::string& name) const {
    if (name == "machine") return 0;
    auto it = std::find(names_.begin(), names_.end(), name);
    assert(it != names_.end());
    return static_cast<int>(it - names_.begin()) + 1;
}

unsigned topology::group_count(const std::string& name) const {
    if (name == "machine") return 1;
    return num_cores_ / span_[depth(name) - 1];
}

unsigned topology::group_of_core(const std::string& name, unsigned core) const {
    if (name == "machine") return 0;
    return core / span_[depth(name) - 1];
}

std::vector<unsigned> topology::cores_of_group(const std::string& name, unsigned group) const {
    unsigned span = name == "machine" ? num_cores_ : span_[depth(name) - 1];
    std::vector<unsigned> cores(span);
    for (unsigned i = 0; i < span; ++i) cores[i] = group * span + i;
    return cores;
}

std::vector<unsigned> topology::cpus_of_cores(const std::vector<unsigned>& cores) const {
    std::vector<unsigned> cpus;
    for (unsigned c : cores)
        for (unsigned t = 0; t < threads_per_core_; ++t) cpus.push_back(cpu_of(c, t));
    std::sort(cpus.begin(), cpus.end());
    return cpus;
}

} // namespace warmsched::platform
