// Topology report; see topology_report.h.
#include "sim/topology_report.h"

#include "platforms/fabric_graph.h"
#include "platforms/topology.h"
#include "scheduler/topology/sched_domain_tree.h"
#include "scheduler/topology/sched_domains.h"

#include <cstdio>
#include <string>

namespace warmsched::sim {
namespace {

// lstopo prints binary sizes in KB, switching to MB and GB only from 10240 of the smaller unit.
std::string lstopo_size(std::uint64_t bytes) {
    std::uint64_t v = bytes >> 10;
    const char* units[] = {"KB", "MB", "GB"};
    int u = 0;
    while (v >= 10240 && u < 2) v >>= 10, ++u;
    return std::to_string(v) + units[u];
}

std::string object_name(const std::string& level) {
    if (level == "socket") return "Package";
    if (level == "die") return "Die";
    return "Group0";
}

struct printer {
    const platform::platform_params& p;
    const platform::topology& t;
    std::ostream& out;
    std::vector<unsigned> logical; // next L# per object kind index
    unsigned next_node = 0, next_pu = 0, next_core = 0;
    std::vector<unsigned> next_cache;

    void indent(int depth) { out << std::string(2 * depth, ' '); }

    void group(const std::string& name, unsigned instance, int depth) {
        const auto& names = t.level_names();
        int indent_depth = depth;
        if (name == "core") {
            core(instance, depth);
            return;
        }
        // Like lstopo, a grouping that only holds a shared cache (a CCD under its L3) is shown as the cache.
        bool holds_cache = false;
        for (const auto& c : p.caches) holds_cache = holds_cache || c.shared_by == name;
        if (object_name(name) != "Group0" || !holds_cache || t.node_group() == name) {
            indent(indent_depth);
            const unsigned idx = logical[t.depth(name)]++;
            out << object_name(name) << " L#" << idx;
            if (object_name(name) == "Group0") out << " (" << name << ")";
            out << "\n";
            ++indent_depth;
        }
        if (t.node_group() == name) {
            indent(indent_depth);
            out << "NUMANode L#" << next_node << " (P#" << next_node << ")\n";
            ++next_node;
        }
        // Shared caches attached to this level.
        for (unsigned lv = 0; lv < p.caches.size(); ++lv)
            if (p.caches[lv].shared_by == name) {
                indent(indent_depth);
                out << "L" << lv + 1 << " L#" << next_cache[lv]++ << " (" << lstopo_size(p.caches[lv].size)
                    << ")\n";
                ++indent_depth;
            }
        const std::string& child = names[t.depth(name)]; // next finer level
        for (unsigned c : children(name, instance, child)) group(child, c, indent_depth);
    }

    std::vector<unsigned> children(const std::string& name, unsigned instance, const std::string& child) {
        std::vector<unsigned> v;
        for (unsigned core : t.cores_of_group(name, instance)) {
            unsigned g = t.group_of_core(child, core);
            if (v.empty() || v.back() != g) v.push_back(g);
        }
        return v;
    }

    void core(unsigned c, int depth) {
        indent(depth);
        for (int lv = static_cast<int>(p.caches.size()) - 1; lv >= 0; --lv)
            if (p.caches[lv].shared_by == "core")
                out << (lv == 0 ? "L1d" : "L" + std::to_string(lv + 1)) << " L#" << next_cache[lv]++ << " ("
                    << lstopo_size(p.caches[lv].size) << ") + ";
        out << "Core L#" << next_core++ << "\n";
        for (unsigned th = 0; th < t.threads_per_core(); ++th) {
            indent(depth + 1);
            out << "PU L#" << next_pu++ << " (P#" << t.cpu_of(c, th) << ")\n";
        }
    }
};

} // namespace

void print_platform_line(std::ostream& out, const platform::platform_params& p) {
    platform::topology t(p);
    char buf[256];
    // Columns stay aligned: a singular keeps the plural's width ("1 LLC ", "1 NUMA node ").
    std::snprintf(buf, sizeof buf, "%-22s %4u CPUs %3u LLC%s %2u NUMA node%s  ", p.name.c_str(), t.num_cpus(),
                  t.num_llcs(), t.num_llcs() == 1 ? " " : "s", t.num_nodes(), t.num_nodes() == 1 ? " " : "s");
    out << buf << p.description << "\n";
}

void print_domains(std::ostream& out, const scheduler::sched_domain_tree& tree, unsigned cpu) {
    using scheduler::cpulist;
    const auto k = tree.kernel();
    out << "CPU " << cpu << " (/sys/kernel/debug/sched/domains/cpu" << cpu << "), bottom-up:\n";
    unsigned m = 0;
    for (const auto& d : tree.domains(cpu)) {
        char name[16];
        std::snprintf(name, sizeof name, "%-4s", d.name);
        out << "  domain" << m++ << " " << name << " span=" << cpulist(d.span().cpus())
            << " weight=" << d.span_weight << " imbalance_pct=" << d.imbalance_pct
            << " cache_nice_tries=" << d.cache_nice_tries << " busy_factor=" << d.busy_factor
            << " min_interval=" << d.min_interval << " max_interval=" << d.max_interval;
        if (d.imb_numa_nr) out << " imb_numa_nr=" << d.imb_numa_nr;
        out << " groups=" << d.nr_groups << ":";
        // Like sched_domain_debug(): the balance mask where it differs from the span (overlapping groups).
        auto group = [&](const scheduler::sched_group& g) {
            out << " {" << cpulist(g.span().cpus());
            if (*g.balance_mask != g.span()) out << " mask=" << cpulist(g.balance_mask->cpus());
            out << "}";
        };
        const auto groups = d.group_list();
        const std::size_t shown_head = groups.size() > 8 ? 4 : groups.size();
        for (std::size_t i = 0; i < shown_head; ++i) group(groups[i]);
        if (groups.size() > 8) {
            out << " ... (" << groups.size() - 6 << " more)";
            for (std::size_t i = groups.size() - 2; i < groups.size(); ++i) group(groups[i]);
        }
        out << " flags: " << scheduler::sd_flag_names(d.flags, k) << "\n";
    }
    if (const auto* llc = tree.sd_llc(cpu))
        out << "  sd_llc " << llc->name << " (sd_llc_size " << tree.sd_llc_size(cpu) << ", sd_llc_id "
            << tree.sd_llc_id(cpu) << ")";
    else
        out << "  no sd_llc";
    if (const auto* numa = tree.sd_numa(cpu)) out << ", sd_numa " << numa->name << " " << numa->span_weight;
    out << "\n";
}

void print_topology(std::ostream& out, const platform::platform_params& p, scheduler::kernel_version k) {
    platform::topology t(p);
    platform::fabric_graph g(p, t, {});
    out << "Machine (" << p.name << ": " << t.num_cpus() << " CPUs, " << t.num_llcs() << " LLC"
        << (t.num_llcs() == 1 ? "" : "s") << ", " << t.num_nodes() << " NUMA node" << (t.num_nodes() > 1 ? "s" : "")
        << ")\n";
    printer pr{p, t, out, std::vector<unsigned>(t.level_names().size() + 1, 0),
               0, 0, 0,   std::vector<unsigned>(p.caches.size(), 0)};
    if (t.node_group() == "machine") out << "  NUMANode L#0 (P#0)\n";
    for (unsigned s = 0; s < t.num_sockets(); ++s) pr.group("socket", s, 1);

    const auto dist = platform::numa_distances(p, t, g);
    out << "\nnode distances" << (p.numa.distances.empty() ? " (derived from fabric latencies)" : "")
        << ":\nnode ";
    for (unsigned j = 0; j < dist.size(); ++j) out << (j < 10 ? "   " : "  ") << j;
    out << "\n";
    for (unsigned i = 0; i < dist.size(); ++i) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%3u: ", i);
        out << buf;
        for (unsigned v : dist[i]) {
            std::snprintf(buf, sizeof buf, "%4u", v);
            out << buf;
        }
        out << "\n";
    }

    const scheduler::sched_domain_tree tree(t, dist, k);
    out << "\nsched domains (Linux x86, " << (k == scheduler::kernel_version::cfs_v5_15 ? "v5.15" : "v6.12")
        << "): " << tree.describe(0) << "\n";
    print_domains(out, tree, 0);
}

} // namespace warmsched::sim
