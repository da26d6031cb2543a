// The interconnect between LLCs and home directories (memory controllers), built from the platform's
// fabric graph: a message pays the latency of its route, and a message carrying a line (64 B of data)
// also occupies every directed link on the route, queueing when the link is full. Requests from an LLC
// travel to the home directory and the data (or acknowledgement) returns along the reverse route, unless
// the directory had a third cache send the data straight to the requester. Snoops from a directory travel
// to the target LLC; forwarded data goes from there to the requester. Control messages take no bandwidth.
#pragma once

#include "models/common/mem_txn.h"
#include "models/fabric/flow_meter.h"
#include "models/fabric/link_occupancy.h"
#include "platforms/fabric_graph.h"

#include <systemc>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <vector>

namespace warmsched::models {

class fabric : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<fabric> llc_side;    // requests from LLC i (port i)
    tlm_utils::multi_passthrough_initiator_socket<fabric> home_out; // to directory j (port j)
    tlm_utils::multi_passthrough_target_socket<fabric> home_side;   // snoops from directory j (port j)
    tlm_utils::multi_passthrough_initiator_socket<fabric> llc_out;  // to LLC i's snoop_in (port i)

    // `bandwidth_scale` multiplies every link's bandwidth (1/N under set sampling 1-in-N).
    fabric(const sc_core::sc_module_name& name, const platform::fabric_graph& graph, unsigned line_size,
           ps_t bandwidth_window_ps, double bandwidth_scale = 1.0);

    const platform::fabric_graph& graph() const { return graph_; }
    const link_occupancy& link(unsigned i) const { return links_[i]; }
    link_occupancy& link(unsigned i) { return links_[i]; }
    unsigned num_links() const { return static_cast<unsigned>(links_.size()); }
    // Reports every data transfer to `m` while it records (link i is its resource i).
    void set_flow_meter(flow_meter* m) { meter_ = m; }
    // Latency of the route from LLC a to LLC b (used by directories to pick the nearest sharer).
    ps_t llc_to_llc_ps(unsigned a, unsigned b) const;

private:
    void from_llc(int llc, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    void from_home(int home, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    // Crosses a route starting at `at`; occupies the links if it carries data. Returns the time taken.
    ps_t traverse(const platform::fabric_route& r, const sc_core::sc_time& at, bool data);

    const platform::fabric_graph& graph_;
    unsigned line_size_;
    std::vector<link_occupancy> links_;
    flow_meter* meter_ = nullptr;
};

} // namespace warmsched::models
