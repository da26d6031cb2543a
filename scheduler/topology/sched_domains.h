// The scheduler-domain levels Linux builds on x86 for a machine (arch/x86/kernel/smpboot.c and
// kernel/sched/topology.c): SMT (core siblings), CLS (CPUs sharing an L2, v5.16+), MC (CPUs sharing the
// LLC), PKG (the NUMA node; DIE before v6.7; skipped when a socket holds several nodes), then one NUMA
// level per distinct distance in the NUMA table (the first, the node itself, named NODE). A level whose
// span has one CPU, or equals the span of the level below it, is dropped as degenerate. Balancing
// parameters and flags of each level belong to the load-balancing model and are not derived here.
#pragma once

#include "platforms/topology.h"

#include <string>
#include <vector>

namespace warmsched::scheduler {

struct sched_domain_level {
    std::string name;                        // SMT, CLS, MC, PKG, NODE, NUMA
    std::vector<std::vector<unsigned>> span; // per CPU: the CPUs in its domain at this level (sorted)
    unsigned weight(unsigned cpu = 0) const { return static_cast<unsigned>(span[cpu].size()); }
};

struct sched_domain_options {
    bool has_cluster = true;          // CLS level (kernels >= 5.16)
    std::string package_name = "PKG"; // "DIE" before v6.7
};

// `distances`: the NUMA distance table (nodes x nodes).
std::vector<sched_domain_level> build_sched_domains(const platform::topology& t,
                                                    const std::vector<std::vector<unsigned>>& distances,
                                                    const sched_domain_options& o = {});

// "SMT 2, MC 16, PKG 192, NUMA 384": the levels of CPU 0 with their span weights.
std::string describe_sched_domains(const std::vector<sched_domain_level>& levels);

// Linux cpulist notation ("0-7,192-199").
std::string cpulist(const std::vector<unsigned>& cpus);

} // namespace warmsched::scheduler
