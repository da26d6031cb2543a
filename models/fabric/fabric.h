// The interconnect between LLCs and home directories (memory controllers), built from the platform's
// fabric graph: a message pays the latency of its route, and a message carrying a line (64 B of data)
// also occupies every directed link on the route, queueing when the link is full. Requests from an LLC
// travel to the home directory and the data (or acknowledgement) returns along the reverse route, unless
// the directory had a third cache send the data straight to the requester. Snoops from a directory travel
// to the target LLC; forwarded data goes from there to the requester. Control messages take no bandwidth.
//
// LLCs and directories call the fabric directly (models/cache/llc.h explains the direct path), with
// absolute times in ps; every route is looked up once, at elaboration, into tables indexed by endpoint.
#pragma once

#include "models/common/mem_txn.h"
#include "models/fabric/flow_meter.h"
#include "models/fabric/link_occupancy.h"
#include "platforms/fabric_graph.h"

#include <systemc>

#include <vector>

namespace warmsched::models {

class llc;
class directory;

class fabric : public sc_core::sc_module {
public:
    // `bandwidth_scale` multiplies every link's bandwidth (1/N under set sampling 1-in-N).
    fabric(const sc_core::sc_module_name& name, const platform::fabric_graph& graph, unsigned line_size,
           ps_t bandwidth_window_ps, double bandwidth_scale = 1.0);
    // Elaboration: the endpoints, LLC i and home j in index order.
    void attach(std::vector<llc*> llcs, std::vector<directory*> homes);

    // A request or posted message from LLC `from` to home t.target at absolute time `at`; returns the time
    // until the answer is back at the LLC (posted: the time the message took to arrive).
    ps_t from_llc(unsigned from, mem_txn& t, ps_t at);
    // A snoop from home `from` to LLC t.target at `at`; returns the time until the requester t.llc has the
    // snooped LLC's answer (the forwarded line, or an acknowledgement).
    ps_t from_home(unsigned from, mem_txn& t, ps_t at);

    const platform::fabric_graph& graph() const { return graph_; }
    const link_occupancy& link(unsigned i) const { return links_[i]; }
    link_occupancy& link(unsigned i) { return links_[i]; }
    unsigned num_links() const { return static_cast<unsigned>(links_.size()); }
    // Reports every data transfer to `m` while it records (link i is its resource i).
    void set_flow_meter(flow_meter* m) { meter_ = m; }
    // Latency of the route from LLC a to LLC b (used by directories to pick the nearest sharer).
    ps_t llc_to_llc_ps(unsigned a, unsigned b) const { return llc_llc_ps_[a * num_llcs_ + b]; }

private:
    // A route between two endpoints: its latency, and its links with their latencies.
    struct route {
        ps_t latency_ps = 0;
        std::vector<std::pair<link_occupancy*, ps_t>> links; // in order
    };
    const route& llc_home(unsigned l, unsigned h) const { return routes_[l * num_homes_ + h]; }
    const route& home_llc(unsigned h, unsigned l) const { return routes_[(num_llcs_ + l) * num_homes_ + h]; }
    const route& llc_llc(unsigned a, unsigned b) const { return llc_routes_[a * num_llcs_ + b]; }
    route make_route(unsigned from_stop, unsigned to_stop);
    // Crosses a route starting at `at`; occupies the links if it carries data. Returns the time taken.
    ps_t traverse(const route& r, ps_t at, bool data);

    const platform::fabric_graph& graph_;
    unsigned line_size_;
    std::vector<link_occupancy> links_;
    flow_meter* meter_ = nullptr;
    unsigned num_llcs_ = 0, num_homes_ = 0;
    std::vector<route> routes_;     // LLC -> home, then home -> LLC
    std::vector<route> llc_routes_; // LLC -> LLC
    std::vector<ps_t> llc_llc_ps_;
    std::vector<llc*> llcs_;
    std::vector<directory*> homes_;
};

} // namespace warmsched::models
