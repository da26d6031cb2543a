// Machine shape derivation; see machine_shape.h.
#include "platforms/import/machine_shape.h"

#include "platforms/config/config_error.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace warmsched::platform::import {
namespace {

[[noreturn]] void fail(const machine_inventory& inv, const std::string& what) {
    throw config::config_error(config::origin{inv.source, 0, 0}, "", what);
}

using core_set = std::vector<unsigned>; // sorted indices into inv.cores

// One way of cutting the machine into groups of whole cores (packages, dies, nodes, LLC domains).
struct partition {
    std::string name;
    int priority = 0; // when two partitions are the same cut, the lower priority names the level
    std::vector<core_set> groups;
    unsigned size() const { return static_cast<unsigned>(groups.front().size()); }
};

// Linux cpulist notation, for messages.
std::string list_of(const std::vector<unsigned>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
        s += (s.empty() ? "" : ",") + std::to_string(v[i]) + (j > i ? "-" + std::to_string(v[j]) : "");
        i = j + 1;
    }
    return s;
}

} // namespace

unsigned machine_shape::num_cores() const {
    unsigned n = 1;
    for (const auto& l : levels) n *= l.count;
    return n;
}

unsigned machine_shape::cores_per(const std::string& level) const {
    unsigned n = num_cores();
    if (level == "machine") return n;
    for (const auto& l : levels) {
        n /= l.count;
        if (l.name == level) return n;
    }
    return 0;
}

machine_shape shape_machine(const machine_inventory& inv) {
    machine_shape s;
    // CPUs and cores.
    std::map<unsigned, unsigned> core_of_cpu;
    for (unsigned c = 0; c < inv.cores.size(); ++c)
        for (unsigned cpu : inv.cores[c])
            if (!core_of_cpu.emplace(cpu, c).second) fail(inv, "CPU " + std::to_string(cpu) + " is in two cores");
    if (core_of_cpu.empty()) fail(inv, "no CPU");
    std::set<std::size_t> widths;
    for (const auto& core : inv.cores) widths.insert(core.size());
    if (widths.size() > 1)
        fail(inv, "cores have " + std::to_string(*widths.begin()) + " to " + std::to_string(*widths.rbegin()) +
                      " hardware threads (a hybrid CPU?); the model needs one SMT width for every core");
    s.threads_per_core = static_cast<unsigned>(*widths.begin());
    const unsigned ncores = static_cast<unsigned>(inv.cores.size());

    // A CPU set as whole cores; `what` names the group in errors.
    auto cores_of = [&](const cpu_set& cpus, const std::string& what) {
        core_set cs;
        for (unsigned cpu : cpus) {
            const auto it = core_of_cpu.find(cpu);
            if (it == core_of_cpu.end()) fail(inv, what + " holds CPU " + std::to_string(cpu) + ", which is in no core");
            cs.push_back(it->second);
        }
        std::sort(cs.begin(), cs.end());
        cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
        for (unsigned c : cs)
            for (unsigned cpu : inv.cores[c])
                if (!std::binary_search(cpus.begin(), cpus.end(), cpu))
                    fail(inv, what + " (CPUs " + list_of(cpus) + ") holds part of a core (CPUs " +
                                  list_of(inv.cores[c]) + ")");
        return cs;
    };
    // Checks that `groups` cover every core once and hold the same number of cores each.
    auto check_partition = [&](const std::vector<core_set>& groups, const std::string& what, bool may_fail) {
        std::vector<unsigned> seen(ncores, 0);
        for (const auto& g : groups)
            for (unsigned c : g) ++seen[c];
        for (unsigned c = 0; c < ncores; ++c)
            if (seen[c] != 1) {
                if (may_fail) return false;
                fail(inv, "core of CPUs " + list_of(inv.cores[c]) + " is in " + std::to_string(seen[c]) + " " +
                              what + "s (each core must be in exactly one)");
            }
        for (const auto& g : groups)
            if (g.size() != groups.front().size()) {
                if (may_fail) return false;
                fail(inv, "one " + what + " has " + std::to_string(groups.front().size()) + " cores, another " +
                              std::to_string(g.size()) + "; the model needs the same number in each");
            }
        return true;
    };

    std::vector<partition> cuts;
    {
        partition p{"socket", 0, {}};
        for (std::size_t i = 0; i < inv.packages.size(); ++i)
            p.groups.push_back(cores_of(inv.packages[i], "package " + std::to_string(i)));
        check_partition(p.groups, "package", false);
        cuts.push_back(p);
    }
    const unsigned sockets = static_cast<unsigned>(cuts.front().groups.size());

    // Caches: one entry per level, its instances as core groups.
    std::map<unsigned, std::vector<const inventory_cache*>> by_level;
    for (const auto& c : inv.caches) by_level[c.level].push_back(&c);
    if (by_level.empty())
        fail(inv, "the input gives no data or unified cache; the model needs at least two levels (a private first "
                  "level and a last level shared by a group of cores)");
    if (by_level.size() == 1)
        fail(inv, "the input gives one cache level (L" + std::to_string(by_level.begin()->first) +
                      ", no other data or unified cache); the model needs at least two: a private first level and "
                      "a last level shared by a group of cores");
    const unsigned last_level = by_level.rbegin()->first;
    std::vector<core_set> llc_groups;
    for (const auto& [level, instances] : by_level) {
        const std::string what = "L" + std::to_string(level) + " cache";
        const inventory_cache& first = *instances.front();
        for (const auto* c : instances)
            if (c->size != first.size || c->associativity != first.associativity || c->line_size != first.line_size)
                fail(inv, what + "s differ (" + std::to_string(first.size >> 10) + " KiB vs " +
                              std::to_string(c->size >> 10) +
                              " KiB, or ways, or line size); the model needs one geometry per level");
        std::vector<core_set> groups;
        for (const auto* c : instances) groups.push_back(cores_of(c->cpus, what));
        check_partition(groups, what, false);
        shaped_cache sc;
        sc.level = level;
        sc.name = level == 1 ? "l1d" : "l" + std::to_string(level);
        sc.size = first.size;
        sc.associativity = first.associativity;
        sc.line_size = first.line_size;
        sc.inclusive = first.inclusive;
        sc.cores_sharing = static_cast<unsigned>(groups.front().size());
        sc.shared_by = sc.cores_sharing == 1 && level != last_level ? "core" : "llc";
        if (level != last_level && sc.cores_sharing > 1)
            fail(inv, what + " is shared by " + std::to_string(sc.cores_sharing) +
                          " cores but is not the last level; the model shares only the last level");
        if (level == last_level) llc_groups = groups;
        s.caches.push_back(sc);
    }
    cuts.push_back({"llc", 3, llc_groups});

    // NUMA nodes: a node per package or finer is a level; one node for the whole machine is "machine".
    bool node_is_machine = inv.nodes.size() <= 1;
    std::vector<core_set> node_groups;
    if (!node_is_machine) {
        for (const auto& n : inv.nodes) node_groups.push_back(cores_of(n.cpus, "NUMA node " + std::to_string(n.os_index)));
        check_partition(node_groups, "NUMA node", false);
        if (node_groups.front().size() > cuts.front().size()) {
            if (node_groups.size() != 1)
                fail(inv, "a NUMA node spans several packages but not the whole machine; the model's nodes are "
                          "one per package or finer, or one for the machine");
            node_is_machine = true;
        } else {
            cuts.push_back({"node", 2, node_groups});
        }
    }
    if (!inv.dies.empty()) {
        partition p{"die", 1, {}};
        bool ok = true;
        for (std::size_t i = 0; i < inv.dies.size() && ok; ++i) p.groups.push_back(cores_of(inv.dies[i], "die"));
        ok = check_partition(p.groups, "die", true);
        if (ok) cuts.push_back(p);
        else s.notes.push_back("the input's dies hold different numbers of cores: left out");
    }

    // Order coarse to fine; merge identical cuts; every finer cut must nest in the coarser ones.
    std::stable_sort(cuts.begin(), cuts.end(), [](const partition& a, const partition& b) {
        return a.size() != b.size() ? a.size() > b.size() : a.priority < b.priority;
    });
    auto same = [](const partition& a, const partition& b) {
        std::set<core_set> x(a.groups.begin(), a.groups.end()), y(b.groups.begin(), b.groups.end());
        return x == y;
    };
    auto nests_in = [](const partition& fine, const partition& coarse) {
        std::map<unsigned, unsigned> group_of_core;
        for (unsigned g = 0; g < coarse.groups.size(); ++g)
            for (unsigned c : coarse.groups[g]) group_of_core[c] = g;
        for (const auto& g : fine.groups)
            for (unsigned c : g)
                if (group_of_core[c] != group_of_core[g.front()]) return false;
        return true;
    };
    std::map<std::string, std::string> renamed; // cut name -> the level it became
    std::vector<partition> chain;
    for (auto& cut : cuts) {
        if (!chain.empty() && same(chain.back(), cut) && !(cut.name == "llc" && cut.size() == 1)) {
            renamed[cut.name] = chain.back().name;
            continue;
        }
        bool nested = true;
        for (const auto& coarse : chain) nested = nested && nests_in(cut, coarse);
        if (!nested) {
            if (cut.name == "die") {
                s.notes.push_back("the input's dies do not nest with its NUMA nodes or LLCs: left out");
                continue;
            }
            if (cut.name == "llc")
                fail(inv, "an L" + std::to_string(last_level) +
                              " cache spans several NUMA nodes; the model needs every LLC inside one node");
            fail(inv, "the input's " + cut.name + "s do not nest in its packages");
        }
        renamed[cut.name] = cut.name;
        chain.push_back(cut);
    }
    if (chain.front().name != "socket") fail(inv, "a " + chain.front().name + " is larger than a package");
    // Cores as the innermost level. A private LLC still gets its own level (the format shares the LLC
    // by a grouping level): one core per instance.
    partition core_cut{"core", 9, {}};
    for (unsigned c = 0; c < ncores; ++c) core_cut.groups.push_back({c});

    // Tree order: children sorted by their smallest CPU number, as hwloc and Linux list them.
    auto min_cpu = [&](const core_set& g) {
        unsigned m = ~0u;
        for (unsigned c : g) m = std::min(m, inv.cores[c].front());
        return m;
    };
    std::vector<unsigned> core_order;
    std::vector<std::vector<core_set>> instance_order(chain.size() + 1); // per level, in tree order
    std::function<void(std::size_t, const core_set&)> walk = [&](std::size_t depth, const core_set& within) {
        const partition& cut = depth < chain.size() ? chain[depth] : core_cut;
        std::vector<core_set> kids;
        for (const auto& g : cut.groups)
            if (std::includes(within.begin(), within.end(), g.begin(), g.end())) kids.push_back(g);
        std::sort(kids.begin(), kids.end(), [&](const core_set& a, const core_set& b) { return min_cpu(a) < min_cpu(b); });
        for (const auto& k : kids) {
            instance_order[depth].push_back(k);
            if (depth == chain.size())
                core_order.push_back(k.front());
            else
                walk(depth + 1, k);
        }
    };
    core_set all(ncores);
    for (unsigned c = 0; c < ncores; ++c) all[c] = c;
    walk(0, all);

    unsigned above = ncores;
    for (const auto& cut : chain) {
        s.levels.push_back({cut.name, above / cut.size()});
        above = cut.size();
    }
    s.levels.push_back({"core", above});

    for (auto& c : s.caches)
        if (c.shared_by == "llc") c.shared_by = renamed["llc"];
    if (node_is_machine) {
        s.node_per = sockets == 1 ? "socket" : "machine";
    } else {
        s.node_per = renamed["node"];
    }
    s.num_nodes = node_is_machine ? 1 : static_cast<unsigned>(node_groups.size());

    // Numbering: Linux's CPU number of each (core, thread) in tree order.
    std::vector<unsigned> ids;
    for (unsigned c : core_order)
        for (unsigned cpu : inv.cores[c]) ids.push_back(cpu);
    // Numbers need not be 0..N-1 (offline CPUs leave holes); the model's are, in the same order.
    std::vector<unsigned> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    if (sorted.back() + 1 != sorted.size())
        s.notes.push_back("CPU numbers have holes (offline CPUs?): the model numbers them 0-" +
                          std::to_string(sorted.size() - 1) + " in the same order");
    for (auto& id : ids)
        id = static_cast<unsigned>(std::lower_bound(sorted.begin(), sorted.end(), id) - sorted.begin());
    bool last = true, adjacent = true;
    const unsigned t = s.threads_per_core;
    for (unsigned i = 0; i < ids.size(); ++i) {
        last = last && ids[i] == (i % t) * ncores + i / t;
        adjacent = adjacent && ids[i] == i;
    }
    if (last)
        s.cpu_numbering = "siblings_last";
    else if (adjacent)
        s.cpu_numbering = "siblings_adjacent";
    else
        s.cpu_ids = ids;

    // Distances in the model's node order.
    if (!node_is_machine && !inv.distances.empty()) {
        const auto& nodes_in_order = instance_order[static_cast<std::size_t>(
            std::find_if(chain.begin(), chain.end(), [&](const partition& p) { return p.name == s.node_per; }) -
            chain.begin())];
        std::vector<unsigned> inv_index;
        for (const auto& g : nodes_in_order)
            for (unsigned k = 0; k < node_groups.size(); ++k)
                if (node_groups[k] == g) inv_index.push_back(k);
        s.distances.assign(s.num_nodes, std::vector<unsigned>(s.num_nodes));
        for (unsigned i = 0; i < s.num_nodes; ++i)
            for (unsigned j = 0; j < s.num_nodes; ++j) {
                const unsigned d = inv.distances[inv_index[i]][inv_index[j]];
                if ((i == j) != (d == 10) || d < 10 || d > 254)
                    fail(inv, "NUMA distance " + std::to_string(d) + " between nodes " +
                                  std::to_string(inv.nodes[inv_index[i]].os_index) + " and " +
                                  std::to_string(inv.nodes[inv_index[j]].os_index) +
                                  ": the model needs 10 on the diagonal and (10, 254] elsewhere");
                s.distances[i][j] = d;
            }
        for (unsigned i = 0; i < s.num_nodes; ++i)
            for (unsigned j = 0; j < s.num_nodes; ++j)
                if (s.distances[i][j] != s.distances[j][i])
                    fail(inv, "the NUMA distance table is not symmetric; the model needs it symmetric");
    }
    return s;
}

} // namespace warmsched::platform::import
