// The scheduler-domain levels Linux builds on x86 for a machine (arch/x86/kernel/smpboot.c and
// kernel/sched/topology.c): SMT (core siblings), CLS (CPUs sharing an L2, v5.16+), MC (CPUs sharing the
// LLC), PKG (the NUMA node; DIE before v6.7; skipped when a socket holds several nodes), then one NUMA
// level per distinct distance in the NUMA table (the first, the node itself, named NODE). A level whose
// span has one CPU, or equals the span of the level below it, is dropped as degenerate. Flags, balancing
// parameters, groups and the kernel's per-CPU degenerate test are sched_domain_tree's (the runtime domains).
#pragma once

#include "platforms/topology.h"

#include <string>
#include <vector>

namespace warmsched::scheduler {

struct sched_domain_level {
    std::string name;                        // SMT, CLS, MC, PKG, NODE, NUMA
    std::vector<std::vector<unsigned>> span; // per CPU: the CPUs in its domain at this level (sorted)
    unsigned numa_distance = 0;              // NODE and NUMA levels: the node distance the level reaches
    bool numa = false;                       // a NUMA level above NODE (SD_NUMA, overlapping groups)
    unsigned weight(unsigned cpu = 0) const { return static_cast<unsigned>(span[cpu].size()); }
};

struct sched_domain_options {
    bool has_cluster = true;          // CLS level (kernels >= 5.16)
    std::string package_name = "PKG"; // "DIE" before v6.7
};

// Every level of the kernel's topology table, bottom-up, before degenerate levels are dropped (an SMT
// level of single CPUs on a machine without SMT, a NODE level equal to PKG, ...).
// `distances`: the NUMA distance table (nodes x nodes).
std::vector<sched_domain_level> sched_domain_candidates(const platform::topology& t,
                                                        const std::vector<std::vector<unsigned>>& distances,
                                                        const sched_domain_options& o = {});

// The levels that remain once degenerate ones are dropped.
std::vector<sched_domain_level> build_sched_domains(const platform::topology& t,
                                                    const std::vector<std::vector<unsigned>>& distances,
                                                    const sched_domain_options& o = {});

// "SMT 2, MC 16, PKG 192, NUMA 384": the levels of CPU 0 with their span weights.
std::string describe_sched_domains(const std::vector<sched_domain_level>& levels);

// Linux cpulist notation ("0-7,192-199").
std::string cpulist(const std::vector<unsigned>& cpus);

} // namespace warmsched::scheduler
