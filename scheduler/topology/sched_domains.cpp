// Sched-domain level derivation; see sched_domains.h.
#include "scheduler/topology/sched_domains.h"

#include <algorithm>
#include <set>

namespace warmsched::scheduler {
namespace {

std::vector<unsigned> cpus_of_group(const platform::topology& t, const std::string& group, unsigned cpu) {
    const unsigned core = t.core_of_cpu(cpu);
    return t.cpus_of_cores(t.cores_of_group(group, t.group_of_core(group, core)));
}

std::vector<unsigned> cpus_of_nodes(const platform::topology& t, const std::set<unsigned>& nodes) {
    std::vector<unsigned> cores;
    for (unsigned c = 0; c < t.num_cores(); ++c)
        if (nodes.count(t.node_of_core(c))) cores.push_back(c);
    return t.cpus_of_cores(cores);
}

} // namespace

std::vector<sched_domain_level> sched_domain_candidates(const platform::topology& t,
                                                        const std::vector<std::vector<unsigned>>& distances,
                                                        const sched_domain_options& o) {
    const unsigned n = t.num_cpus();
    std::vector<sched_domain_level> candidates;
    auto add = [&](const std::string& name, auto&& span_of) {
        sched_domain_level l{name, std::vector<std::vector<unsigned>>(n)};
        for (unsigned cpu = 0; cpu < n; ++cpu) l.span[cpu] = span_of(cpu);
        candidates.push_back(std::move(l));
    };
    add("SMT", [&](unsigned cpu) { return t.cpus_of_cores({t.core_of_cpu(cpu)}); });
    if (o.has_cluster) {
        // x86 clusters are the CPUs sharing an L2: the core itself when the L2 is private.
        const std::string l2_group = t.num_cache_levels() > 1 ? t.cache_group(1) : "core";
        add("CLS", [&](unsigned cpu) { return cpus_of_group(t, l2_group, cpu); });
    }
    add("MC", [&](unsigned cpu) { return cpus_of_group(t, t.cache_group(t.llc_level()), cpu); });
    const bool numa_in_package = t.depth(t.node_group()) > 1;
    if (!numa_in_package)
        add(o.package_name, [&](unsigned cpu) { return cpus_of_group(t, t.node_group(), cpu); });
    std::set<unsigned> levels;
    for (const auto& row : distances) levels.insert(row.begin(), row.end());
    bool first = true;
    for (unsigned d : levels) {
        add(first ? "NODE" : "NUMA", [&](unsigned cpu) {
            const unsigned node = t.node_of_core(t.core_of_cpu(cpu));
            std::set<unsigned> near;
            for (unsigned j = 0; j < distances.size(); ++j)
                if (distances[node][j] <= d) near.insert(j);
            return cpus_of_nodes(t, near);
        });
        candidates.back().numa_distance = d;
        candidates.back().numa = !first;
        first = false;
    }
    return candidates;
}

std::vector<sched_domain_level> build_sched_domains(const platform::topology& t,
                                                    const std::vector<std::vector<unsigned>>& distances,
                                                    const sched_domain_options& o) {
    const unsigned n = t.num_cpus();
    auto candidates = sched_domain_candidates(t, distances, o);
    // Drop degenerate levels: one CPU, or the same span as the level kept below.
    std::vector<sched_domain_level> kept;
    for (auto& l : candidates) {
        bool single = true, same = !kept.empty();
        for (unsigned cpu = 0; cpu < n; ++cpu) {
            single = single && l.span[cpu].size() <= 1;
            same = same && l.span[cpu] == kept.back().span[cpu];
        }
        if (!single && !same) kept.push_back(std::move(l));
    }
    return kept;
}

std::string describe_sched_domains(const std::vector<sched_domain_level>& levels) {
    std::string s;
    for (const auto& l : levels) s += (s.empty() ? "" : ", ") + l.name + " " + std::to_string(l.weight(0));
    return s;
}

std::string cpulist(const std::vector<unsigned>& cpus) {
    std::string s;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        s += (s.empty() ? "" : ",") + std::to_string(cpus[i]);
        if (j > i) s += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return s;
}

} // namespace warmsched::scheduler
