// Where each CPU sits, as the scheduler's placement code asks it (cpus_share_cache, SMT siblings,
// cpu_to_node): the core, LLC, NUMA node and socket of every Linux CPU, taken from the platform topology.
#pragma once

#include "platforms/topology.h"

#include <vector>

namespace warmsched::scheduler {

struct cpu_layout {
    std::vector<unsigned> core_of, llc_of, node_of, socket_of; // per Linux CPU
    std::vector<std::vector<unsigned>> siblings; // per CPU: the CPUs of its core, itself included

    unsigned num_cpus() const { return static_cast<unsigned>(core_of.size()); }
    bool share_cache(unsigned a, unsigned b) const { return llc_of[a] == llc_of[b]; }

    static cpu_layout of(const platform::topology& t) {
        cpu_layout l;
        const unsigned n = t.num_cpus();
        l.core_of.resize(n);
        l.llc_of.resize(n);
        l.node_of.resize(n);
        l.socket_of.resize(n);
        l.siblings.resize(n);
        for (unsigned c = 0; c < n; ++c) {
            const unsigned core = t.core_of_cpu(c);
            l.core_of[c] = core;
            l.llc_of[c] = t.llc_of_core(core);
            l.node_of[c] = t.node_of_core(core);
            l.socket_of[c] = t.socket_of_core(core);
            for (unsigned th = 0; th < t.threads_per_core(); ++th)
                l.siblings[c].push_back(t.cpu_of(core, th));
        }
        return l;
    }
};

} // namespace warmsched::scheduler
