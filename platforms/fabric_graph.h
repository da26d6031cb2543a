// The interconnect as a graph: stops (one per LLC, one per memory controller, and the platform's declared
// routers, e.g. one I/O-die quadrant per quadrant) joined by links with a latency and a bandwidth per
// direction. Routes are the lowest-latency paths (Boost.Graph Dijkstra), computed once for every pair of
// stops; the model charges a transfer the route's latency and occupies each directed link it crosses.
#pragma once

#include "platforms/config/config_error.h"
#include "platforms/platform_params.h"
#include "platforms/topology.h"

#include <string>
#include <vector>

namespace warmsched::platform {

struct fabric_stop {
    std::string kind;   // "llc", "memory" or a declared stop name
    unsigned index = 0; // instance among stops of this kind
    std::string group;  // grouping level it belongs to
    std::string name() const { return kind + std::to_string(index); }
};

struct fabric_link {
    unsigned from = 0, to = 0; // stop indices; one entry per direction
    double latency_ps = 0;
    double bandwidth = 0; // bytes/s in this direction
    std::string name() const;
    std::string from_name, to_name;
};

struct fabric_route {
    double latency_ps = 0;
    std::vector<unsigned> links; // directed link indices, in order
    unsigned hops() const { return static_cast<unsigned>(links.size()); }
};

class fabric_graph {
public:
    // Throws config_error (at `where`, naming `key`) if some LLC cannot reach some memory controller or LLC.
    fabric_graph(const platform_params& p, const topology& t, const config::origin& where,
                 const std::string& key = "fabric.links");

    const std::vector<fabric_stop>& stops() const { return stops_; }
    const std::vector<fabric_link>& links() const { return links_; }
    unsigned llc_stop(unsigned llc) const { return llc_stops_[llc]; }
    unsigned memory_stop(unsigned mc) const { return memory_stops_[mc]; }
    const fabric_route& route(unsigned from_stop, unsigned to_stop) const {
        return routes_[from_stop * stops_.size() + to_stop];
    }
    // Mean round-trip latency from the LLCs of node `from` to the memory of node `to` (fabric only).
    double node_round_trip_ps(const topology& t, unsigned from_node, unsigned to_node) const;

private:
    std::vector<fabric_stop> stops_;
    std::vector<fabric_link> links_;
    std::vector<unsigned> llc_stops_, memory_stops_;
    std::vector<fabric_route> routes_;
};

// NUMA distance table: the configured one, or derived as 10 x (remote / local) mean memory latency.
std::vector<std::vector<unsigned>> numa_distances(const platform_params& p, const topology& t,
                                                  const fabric_graph& g);

} // namespace warmsched::platform
