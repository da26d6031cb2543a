// Interconnect graph and routes; see fabric_graph.h.
#include "platforms/fabric_graph.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <cmath>
#include <limits>
#include <map>

namespace warmsched::platform {
namespace {

using graph_t = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_weight_t, double, boost::property<boost::edge_index_t, unsigned>>>;

} // namespace

std::string fabric_link::name() const {
    return from_name + "_" + to_name;
}

fabric_graph::fabric_graph(const platform_params& p, const topology& t, const config::origin& where,
                           const std::string& key) {
    // Stops: one per instance of their group.
    std::map<std::string, std::vector<unsigned>> by_kind;
    auto add_kind = [&](const std::string& kind, const std::string& group) {
        for (unsigned i = 0; i < t.group_count(group); ++i) {
            by_kind[kind].push_back(static_cast<unsigned>(stops_.size()));
            stops_.push_back({kind, i, group});
        }
    };
    add_kind("llc", p.caches.back().shared_by);
    add_kind("memory", p.memory.controllers_per);
    for (const auto& s : p.fabric.stops) add_kind(s.name, s.per);
    llc_stops_ = by_kind["llc"];
    memory_stops_ = by_kind["memory"];

    auto first_core = [&](unsigned stop) {
        return t.cores_of_group(stops_[stop].group, stops_[stop].index).front();
    };
    auto connect = [&](unsigned a, unsigned b, const link_params& l) {
        links_.push_back({a, b, l.latency_ps, l.bandwidth, stops_[a].name(), stops_[b].name()});
        links_.push_back({b, a, l.latency_ps, l.reverse_bandwidth, stops_[b].name(), stops_[a].name()});
    };
    for (const auto& l : p.fabric.links) {
        const auto& from = by_kind[l.from];
        const auto& to = by_kind[l.to];
        if (l.pattern == link_pattern::containment) {
            // Each stop of the finer kind joins the stop of the coarser kind that contains it.
            bool from_finer = t.depth(stops_[from.front()].group) >= t.depth(stops_[to.front()].group);
            const auto& fine = from_finer ? from : to;
            const auto& coarse = from_finer ? to : from;
            const std::string& coarse_group = stops_[coarse.front()].group;
            for (unsigned f : fine) {
                unsigned c = coarse[t.group_of_core(coarse_group, first_core(f))];
                from_finer ? connect(f, c, l) : connect(c, f, l);
            }
        } else {
            std::map<unsigned, std::vector<unsigned>> groups;
            for (unsigned s : from) groups[t.group_of_core(l.within, first_core(s))].push_back(s);
            for (const auto& [g, members] : groups) {
                const std::size_t n = members.size();
                if (l.pattern == link_pattern::ring) {
                    for (std::size_t i = 0; i < n && n > 1; ++i)
                        if (n > 2 || i == 0) connect(members[i], members[(i + 1) % n], l);
                } else {
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t j = i + 1; j < n; ++j) connect(members[i], members[j], l);
                }
            }
        }
    }

    // All-pairs lowest-latency routes.
    const std::size_t n = stops_.size();
    graph_t g(n);
    for (unsigned i = 0; i < links_.size(); ++i) {
        auto e = boost::add_edge(links_[i].from, links_[i].to, g).first;
        boost::put(boost::edge_weight, g, e, links_[i].latency_ps);
        boost::put(boost::edge_index, g, e, i);
    }
    routes_.assign(n * n, {});
    std::vector<double> dist(n);
    std::vector<graph_t::vertex_descriptor> pred(n);
    for (unsigned s = 0; s < n; ++s) {
        boost::dijkstra_shortest_paths(g, s, boost::predecessor_map(pred.data()).distance_map(dist.data()));
        for (unsigned d = 0; d < n; ++d) {
            fabric_route& r = routes_[s * n + d];
            if (d != s && pred[d] == d) {
                r.latency_ps = std::numeric_limits<double>::infinity();
                continue;
            }
            r.latency_ps = dist[d];
            for (unsigned v = d; v != s; v = static_cast<unsigned>(pred[v])) {
                unsigned u = static_cast<unsigned>(pred[v]);
                double best = std::numeric_limits<double>::infinity();
                unsigned best_link = 0;
                for (unsigned i = 0; i < links_.size(); ++i)
                    if (links_[i].from == u && links_[i].to == v && links_[i].latency_ps < best)
                        best = links_[i].latency_ps, best_link = i;
                r.links.insert(r.links.begin(), best_link);
            }
        }
    }
    for (unsigned a : llc_stops_) {
        for (unsigned m : memory_stops_)
            if (!std::isfinite(route(a, m).latency_ps) || !std::isfinite(route(m, a).latency_ps))
                throw config::config_error(
                    where, key, "the links do not connect " + stops_[a].name() + " to " + stops_[m].name());
        for (unsigned b : llc_stops_)
            if (!std::isfinite(route(a, b).latency_ps))
                throw config::config_error(
                    where, key, "the links do not connect " + stops_[a].name() + " to " + stops_[b].name());
    }
}

double fabric_graph::node_round_trip_ps(const topology& t, unsigned from_node, unsigned to_node) const {
    double sum = 0;
    unsigned count = 0;
    for (unsigned llc = 0; llc < t.num_llcs(); ++llc) {
        unsigned core = 0;
        while (t.llc_of_core(core) != llc) ++core;
        if (t.node_of_core(core) != from_node) continue;
        for (unsigned mc : t.controllers_of_node(to_node)) {
            sum += route(llc_stop(llc), memory_stop(mc)).latency_ps +
                   route(memory_stop(mc), llc_stop(llc)).latency_ps;
            ++count;
        }
    }
    return count ? sum / count : 0;
}

std::vector<std::vector<unsigned>> numa_distances(const platform_params& p, const topology& t,
                                                  const fabric_graph& g) {
    const unsigned n = t.num_nodes();
    std::vector<std::vector<unsigned>> d(n, std::vector<unsigned>(n, 10));
    for (unsigned i = 0; i < n; ++i)
        for (unsigned j = 0; j < n; ++j) {
            if (!p.numa.distances.empty()) {
                d[i][j] = static_cast<unsigned>(p.numa.distances[i][j]);
                continue;
            }
            double local = g.node_round_trip_ps(t, i, i) + p.memory.latency_ps;
            double remote = g.node_round_trip_ps(t, i, j) + p.memory.latency_ps;
            d[i][j] = i == j ? 10 : static_cast<unsigned>(std::lround(10.0 * remote / local));
            if (i != j && d[i][j] <= 10) d[i][j] = 11;
        }
    return d;
}

} // namespace warmsched::platform
