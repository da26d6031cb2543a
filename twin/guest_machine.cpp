// The guest machine of a platform; see guest_machine.h.
#include "twin/guest_machine.h"

#include "platforms/config/config_error.h"
#include "platforms/fabric_graph.h"
#include "platforms/topology.h"

#include <algorithm>

namespace warmsched::twin {
namespace {

[[noreturn]] void cannot(const std::string& why) {
    throw config::config_error(config::origin{"<command line>", 0, 0}, "platform", why);
}

} // namespace

std::string cpu_list(const std::vector<unsigned>& cpus) {
    std::string s;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!s.empty()) s += ",";
        s += std::to_string(cpus[i]);
        if (j > i) s += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return s;
}

guest_machine make_guest_machine(const platform::platform_params& p) {
    const platform::topology t(p);
    guest_machine g;
    const auto& names = t.level_names(); // levels, then "core"
    const std::string& llc = t.cache_group(t.llc_level());
    if (names.front() == "core") cannot(p.name + ": no socket level above the cores");
    if (llc == "core" || llc == "machine")
        cannot(p.name + ": its LLC is shared by '" + llc + "'; QEMU's x86 L3 is per die");
    if (t.depth(llc) < t.depth(names.front()))
        cannot(p.name + ": its LLC spans several sockets; QEMU's x86 L3 is per die");
    g.sockets = t.num_sockets();
    g.dies = t.num_llcs() / g.sockets;
    g.cores = t.num_cores() / t.num_llcs();
    g.threads = t.threads_per_core();

    // Cores are numbered in the platform's level order, which is QEMU's (socket, die, core) order, so
    // guest CPU (core c, thread h) is c * threads + h.
    const unsigned n = t.num_cpus();
    g.model_cpu.resize(n);
    g.guest_cpu.resize(n);
    for (unsigned c = 0; c < t.num_cores(); ++c)
        for (unsigned h = 0; h < g.threads; ++h) {
            const unsigned guest = c * g.threads + h;
            g.model_cpu[guest] = t.cpu_of(c, h);
            g.guest_cpu[t.cpu_of(c, h)] = guest;
        }
    g.node_cpus.assign(t.num_nodes(), {});
    for (unsigned guest = 0; guest < n; ++guest)
        g.node_cpus[t.node_of_core(guest / g.threads)].push_back(guest);
    const platform::fabric_graph fg(p, t, {});
    g.distances = platform::numa_distances(p, t, fg);

    for (std::size_t i = 1; i + 1 < names.size(); ++i) {
        const std::string& level = names[i];
        if (level == llc || level == t.node_group() || t.group_count(level) == t.num_sockets()) continue;
        if (t.depth(level) < t.depth(llc))
            g.differences.push_back("level '" + level + "' (" + std::to_string(t.group_count(level)) +
                                    " in all) is not visible to the guest: QEMU has no such level, and "
                                    "Linux builds no sched domain from it");
        else
            g.differences.push_back("level '" + level + "' inside the LLC is not visible to the guest");
    }
    for (unsigned lv = 0; lv < t.num_cache_levels(); ++lv)
        if (p.caches[lv].name == "l2" && t.cache_group(lv) != "core")
            g.differences.push_back("the L2 is shared by a '" + t.cache_group(lv) +
                                    "' here; QEMU's x86 L2 is per core, so a kernel >= 5.16 builds no CLS level "
                                    "from it in the guest");
    if (!p.numa.distances.empty() || t.num_nodes() > 1)
        g.differences.push_back("NUMA distances given to QEMU as the platform's table (-numa dist)");
    return g;
}

scaling scale_overrides(const platform::platform_params& p, unsigned max_cpus) {
    scaling s;
    std::vector<unsigned> count;
    for (const auto& l : p.levels) count.push_back(l.count);
    unsigned threads = p.threads_per_core;
    auto cpus = [&] {
        unsigned long long v = threads;
        for (unsigned c : count) v *= c;
        return v;
    };
    const unsigned long long before = cpus();
    if (before <= max_cpus) return s;
    const std::size_t core = count.size() - 1;
    // The largest value of count[i] (>= floor) that fits, or floor.
    auto shrink = [&](std::size_t i, unsigned floor) {
        while (count[i] > floor && cpus() > max_cpus) {
            const unsigned long long others = cpus() / count[i];
            count[i] = std::max<unsigned>(floor, static_cast<unsigned>(std::min<unsigned long long>(
                                                     count[i] - 1, max_cpus / std::max(1ull, others))));
        }
    };
    shrink(core, std::min(2u, count[core]));
    for (std::size_t i = core; i-- > 1 && cpus() > max_cpus;) shrink(i, 1);
    if (cpus() > max_cpus) shrink(0, 1);
    if (cpus() > max_cpus) shrink(core, 1);
    if (cpus() > max_cpus) threads = 1;
    s.description = p.name + " scaled to " + std::to_string(cpus()) + " of " + std::to_string(before) + " CPUs:";
    for (std::size_t i = 0; i < count.size(); ++i) {
        s.description += " " + p.levels[i].name + " " + std::to_string(p.levels[i].count);
        if (count[i] != p.levels[i].count) {
            s.description += "->" + std::to_string(count[i]);
            s.overrides.push_back("topology.levels." + std::to_string(i) + ".count=" + std::to_string(count[i]));
        }
    }
    // An explicit NUMA distance table keeps the rows and columns of the nodes that remain: the first
    // instances of every level, as the cut keeps them.
    if (!p.numa.distances.empty()) {
        std::size_t d = 0;
        while (d < p.levels.size() && p.levels[d].name != p.numa.node_per) ++d;
        if (d < p.levels.size()) {
            unsigned nodes = 1;
            for (std::size_t i = 0; i <= d; ++i) nodes *= count[i];
            std::vector<unsigned> old_index(nodes);
            for (unsigned k = 0; k < nodes; ++k) {
                unsigned rest = k, index = 0, radix = 1;
                for (std::size_t i = d + 1; i-- > 0;) {
                    index += (rest % count[i]) * radix;
                    radix *= p.levels[i].count;
                    rest /= count[i];
                }
                old_index[k] = index;
            }
            if (nodes != p.numa.distances.size()) {
                std::string table = "[";
                for (unsigned a = 0; a < nodes; ++a) {
                    table += a ? ",[" : "[";
                    for (unsigned b = 0; b < nodes; ++b)
                        table += (b ? "," : "") +
                                 std::to_string(static_cast<unsigned>(p.numa.distances[old_index[a]][old_index[b]]));
                    table += "]";
                }
                s.overrides.push_back("numa.distances=" + table + "]");
            }
        }
    }
    s.description += ", threads " + std::to_string(p.threads_per_core);
    if (threads != p.threads_per_core) {
        s.description += "->" + std::to_string(threads);
        s.overrides.push_back("topology.threads_per_core=" + std::to_string(threads));
    }
    return s;
}

std::vector<std::string> qemu_topology_args(const guest_machine& g, std::uint64_t memory_mib) {
    std::vector<std::string> a;
    a.push_back("-smp");
    a.push_back(std::to_string(g.num_cpus()) + ",sockets=" + std::to_string(g.sockets) +
                ",dies=" + std::to_string(g.dies) + ",cores=" + std::to_string(g.cores) +
                ",threads=" + std::to_string(g.threads));
    const std::size_t nodes = g.node_cpus.size();
    const std::uint64_t per_node = memory_mib / nodes;
    a.push_back("-m");
    a.push_back(std::to_string(per_node * nodes) + "M");
    if (nodes < 2) return a;
    for (std::size_t n = 0; n < nodes; ++n) {
        a.push_back("-object");
        a.push_back("memory-backend-ram,id=mem" + std::to_string(n) + ",size=" + std::to_string(per_node) + "M");
        // -numa node,cpus= takes one range per option: repeat it for each range.
        std::string spec = "node,nodeid=" + std::to_string(n) + ",memdev=mem" + std::to_string(n);
        const std::string list = cpu_list(g.node_cpus[n]);
        std::size_t start = 0;
        while (start <= list.size()) {
            const std::size_t comma = list.find(',', start);
            spec += ",cpus=" + list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        a.push_back("-numa");
        a.push_back(spec);
    }
    for (std::size_t i = 0; i < nodes; ++i)
        for (std::size_t j = 0; j < nodes; ++j)
            if (i != j) {
                a.push_back("-numa");
                a.push_back("dist,src=" + std::to_string(i) + ",dst=" + std::to_string(j) +
                            ",val=" + std::to_string(g.distances[i][j]));
            }
    return a;
}

} // namespace warmsched::twin
