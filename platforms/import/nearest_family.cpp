// Nearest shipped family; see nearest_family.h.
#include "platforms/import/nearest_family.h"

#include "platforms/config/config_node.h"
#include "platforms/fabric_graph.h"
#include "platforms/platform_catalog.h"
#include "platforms/platform_loader.h"
#include "platforms/topology.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <regex>

namespace warmsched::platform::import {
namespace {

bool has(const std::string& s, const char* what) {
    return s.find(what) != std::string::npos;
}

std::string hex(int v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", static_cast<unsigned>(v));
    return buf;
}

family_choice amd(const machine_inventory& inv, unsigned sockets, unsigned nps) {
    const std::string& m = inv.model_name;
    bool zen4 = false;
    std::string why;
    if (inv.family >= 0) {
        why = "AMD family " + hex(inv.family) + " model " + hex(inv.model);
        zen4 = inv.family >= 0x1a ||
               (inv.family == 0x19 && ((inv.model >= 0x10 && inv.model <= 0x1f) ||
                                       (inv.model >= 0x60 && inv.model <= 0x7f) ||
                                       (inv.model >= 0xa0 && inv.model <= 0xaf)));
        if (inv.family < 0x17 && inv.vendor != "HygonGenuine")
            return {sockets > 1 ? "haswell-e5-2690v3-2s" : "haswell-i7-4790",
                    why + " (before Zen): no shipped family is near, the documented default"};
        why += zen4 ? " (Zen 4 or later)" : inv.family == 0x19 ? " (Zen 3)" : " (Zen or Zen 2)";
    } else {
        std::smatch epyc;
        zen4 = std::regex_search(m, epyc, std::regex("EPYC [89][0-9]{3}"));
        why = "model string '" + m + "'";
    }
    const bool server = has(m, "EPYC") || sockets > 1;
    if (zen4) {
        if (nps > 1) return {"genoa-9654-2s-nps4", why + ", " + std::to_string(nps) + " NUMA nodes per socket"};
        return {sockets > 1 ? "genoa-9654-2s" : "genoa-9654-1s", why};
    }
    if (!server) return {"zen3-5950x", why + ", desktop"};
    if (nps >= 3) return {"milan-7713-2s-nps4", why + ", " + std::to_string(nps) + " NUMA nodes per socket"};
    if (nps == 2) return {"milan-7713-2s-nps2", why + ", 2 NUMA nodes per socket"};
    return {"milan-7763-2s", why + ", server"};
}

family_choice intel(const machine_inventory& inv, unsigned sockets, unsigned nps) {
    const std::string& m = inv.model_name;
    bool core2 = false, scalable = false;
    std::string why;
    if (inv.family == 6 && inv.model >= 0) {
        why = "Intel family 6 model " + std::to_string(inv.model);
        const int x = inv.model;
        core2 = x == 15 || x == 22 || x == 23 || x == 29;
        scalable = x == 85 || x == 106 || x == 108 || x == 143 || x == 173 || x == 174 || x == 207;
    } else {
        why = "model string '" + m + "'";
        core2 = has(m, "Core(TM)2") || std::regex_search(m, std::regex("(^|[^-A-Za-z0-9])[EXLW][357][1-4][0-9]{2}\\b"));
        scalable = std::regex_search(m, std::regex("Platinum|Gold|Silver|Bronze|Xeon.* Max|CPU Max"));
    }
    if (core2) return {"clovertown-e5335-2s", why + " (Core 2)"};
    if (scalable) {
        if (nps > 1) return {"emr-8580-2s-snc2", why + " (Xeon Scalable), " + std::to_string(nps) + " nodes per socket"};
        return {"emr-8580-2s", why + " (Xeon Scalable)"};
    }
    if (has(m, "Xeon") || sockets > 1) return {"haswell-e5-2690v3-2s", why + " (Xeon before Skylake-SP)"};
    return {"haswell-i7-4790", why + " (desktop)"};
}

const config::config_node* at(const config::config_node* n, const std::string& key) {
    return n && n->is_map() ? n->find(key) : nullptr;
}

std::string text_of(const config::config_node* n, const std::string& fallback) {
    return n && n->is_scalar() ? n->scalar() : fallback;
}

// The narrowest link of a route between two LLCs, leaving out the LLCs' own links at either end.
double bottleneck(const fabric_graph& g, const fabric_route& r) {
    double bw = std::numeric_limits<double>::infinity();
    for (std::size_t i = 1; i + 1 < r.links.size(); ++i) bw = std::min(bw, g.links()[r.links[i]].bandwidth);
    if (r.links.size() <= 2)
        for (unsigned l : r.links) bw = std::min(bw, g.links()[l].bandwidth);
    return bw;
}

} // namespace

family_choice nearest_family(const machine_inventory& inv, unsigned sockets, unsigned nodes_per_socket) {
    const std::string& v = inv.vendor;
    const std::string& m = inv.model_name;
    if (v == "AuthenticAMD" || v == "HygonGenuine" || (v.empty() && (has(m, "AMD") || has(m, "EPYC") || has(m, "Ryzen"))))
        return amd(inv, sockets, nodes_per_socket);
    if (v == "GenuineIntel" || (v.empty() && (has(m, "Intel") || has(m, "Xeon"))))
        return intel(inv, sockets, nodes_per_socket);
    const std::string who = m.empty() ? (v.empty() ? "an unnamed CPU" : v) : m;
    return {sockets > 1 ? "haswell-e5-2690v3-2s" : "haswell-i7-4790",
            who + ": no shipped family is near, the documented default"};
}

family_values family_values_of(const family_choice& choice) {
    family_values f;
    f.choice = choice;
    const platform_params p = load_platform(choice.platform);
    const config::config_node tree = config::load_yaml_file(resolve_platform_path(choice.platform));
    const auto* core = at(&tree, "core");
    f.frequency = text_of(at(core, "frequency"), "");
    f.frequency_hz = p.core.frequency_hz;
    f.base_cpi = p.core.base_cpi;
    f.smt_throughput = p.core.smt_throughput;
    f.max_outstanding_misses = p.core.max_outstanding_misses;
    f.stream_outstanding_misses = p.core.stream_outstanding_misses;
    f.atomic_latency = text_of(at(core, "atomic_latency"), "0ns");
    const auto* caches = at(&tree, "caches");
    for (std::size_t i = 0; i < p.caches.size(); ++i) {
        const config::config_node* c = caches && caches->is_sequence() ? &caches->items()[i] : nullptr;
        family_values::cache fc;
        fc.latency = text_of(at(c, "latency"), "");
        fc.peer_snoop_latency = text_of(at(c, "peer_snoop_latency"), "");
        fc.associativity = p.caches[i].associativity;
        const auto incl = p.caches[i].inclusion;
        fc.inclusion = incl == inclusion_policy::victim          ? "victim"
                       : incl == inclusion_policy::non_inclusive ? "non_inclusive"
                                                                 : "inclusive";
        f.caches.push_back(fc);
    }
    f.memory_latency = text_of(at(at(&tree, "memory"), "latency"), "");
    f.directory_latency = text_of(at(at(&tree, "fabric"), "directory_latency"), "0ns");

    const topology t(p);
    const fabric_graph g(p, t, {});
    f.memory_bandwidth_per_core = p.memory.bandwidth * static_cast<double>(t.controllers_of_node(0).size()) /
                                  (static_cast<double>(t.num_cores()) / t.num_nodes());
    for (const auto& l : p.fabric.links)
        if (l.from == "llc" || l.to == "llc") {
            f.llc_link_latency_ps = l.latency_ps;
            f.llc_link_bandwidth = l.to == "llc" ? l.bandwidth : l.reverse_bandwidth;
            f.llc_link_reverse_bandwidth = l.to == "llc" ? l.reverse_bandwidth : l.bandwidth;
            break;
        }
    double local = 0;
    for (unsigned n = 0; n < t.num_nodes(); ++n) local += g.node_round_trip_ps(t, n, n) / 2;
    f.local_memory_ps = local / t.num_nodes();

    double node_sum = 0, socket_sum = 0;
    unsigned node_pairs = 0, socket_pairs = 0;
    f.cross_node_bandwidth = f.cross_socket_bandwidth = std::numeric_limits<double>::infinity();
    const std::string& llc_group = t.cache_group(t.llc_level());
    for (unsigned a = 0; a < t.num_llcs(); ++a)
        for (unsigned b = 0; b < t.num_llcs(); ++b) {
            if (a == b) continue;
            const unsigned ca = t.cores_of_group(llc_group, a).front(), cb = t.cores_of_group(llc_group, b).front();
            const fabric_route& r = g.route(g.llc_stop(a), g.llc_stop(b));
            if (t.socket_of_core(ca) != t.socket_of_core(cb)) {
                socket_sum += r.latency_ps;
                ++socket_pairs;
                f.cross_socket_bandwidth = std::min(f.cross_socket_bandwidth, bottleneck(g, r));
            } else if (t.node_of_core(ca) != t.node_of_core(cb)) {
                node_sum += r.latency_ps;
                ++node_pairs;
                f.cross_node_bandwidth = std::min(f.cross_node_bandwidth, bottleneck(g, r));
            }
        }
    f.cross_node_llc_ps = node_pairs ? node_sum / node_pairs : 0;
    f.cross_socket_llc_ps = socket_pairs ? socket_sum / socket_pairs : 0;
    if (!node_pairs) f.cross_node_bandwidth = 0;
    if (!socket_pairs) f.cross_socket_bandwidth = 0;
    return f;
}

} // namespace warmsched::platform::import
