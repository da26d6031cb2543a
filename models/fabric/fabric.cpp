// Interconnect model; see fabric.h.
#include "models/fabric/fabric.h"

#include <cassert>

namespace warmsched::models {

fabric::fabric(const sc_core::sc_module_name& name, const platform::fabric_graph& graph, unsigned line_size,
               ps_t bandwidth_window_ps, double bandwidth_scale)
    : sc_module(name), llc_side("llc_side"), home_out("home_out"), home_side("home_side"), llc_out("llc_out"),
      graph_(graph), line_size_(line_size) {
    for (const auto& l : graph.links())
        links_.emplace_back(l.bandwidth * bandwidth_scale, bandwidth_window_ps);
    llc_side.register_b_transport(this, &fabric::from_llc);
    home_side.register_b_transport(this, &fabric::from_home);
}

ps_t fabric::llc_to_llc_ps(unsigned a, unsigned b) const {
    return static_cast<ps_t>(graph_.route(graph_.llc_stop(a), graph_.llc_stop(b)).latency_ps);
}

ps_t fabric::traverse(const platform::fabric_route& r, const sc_core::sc_time& at, bool data) {
    if (!data) return static_cast<ps_t>(r.latency_ps);
    ps_t t = abs_ps(at), elapsed = 0;
    const auto& all = graph_.links();
    for (unsigned i : r.links) {
        const ps_t wait = links_[i].reserve(t + elapsed, line_size_);
        if (meter_ && meter_->recording()) meter_->record(i, line_size_);
        elapsed += wait + static_cast<ps_t>(all[i].latency_ps);
    }
    return elapsed;
}

void fabric::from_llc(int llc, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    mem_txn& t = *gp.get_extension<mem_txn>();
    const unsigned src = graph_.llc_stop(static_cast<unsigned>(llc));
    const unsigned dst = graph_.memory_stop(t.target);
    const bool carries_data = (t.op == mem_op::put && t.dirty) || t.op == mem_op::writeback;
    delay += ps_time(traverse(graph_.route(src, dst), delay, carries_data));
    home_out[t.target]->b_transport(gp, delay);
    const bool posted = t.op == mem_op::put || t.op == mem_op::writeback;
    if (!posted && !t.data_direct) // data from memory, or the directory's acknowledgement
        delay += ps_time(traverse(graph_.route(dst, src), delay, t.op != mem_op::upgrade));
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void fabric::from_home(int home, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    mem_txn& t = *gp.get_extension<mem_txn>();
    const unsigned src = graph_.memory_stop(static_cast<unsigned>(home));
    const unsigned dst = graph_.llc_stop(t.target);
    delay += ps_time(traverse(graph_.route(src, dst), delay, false));
    llc_out[t.target]->b_transport(gp, delay);
    // The snooped LLC answers the requester directly: with the line if it is to forward it, else an ack.
    const unsigned requester = graph_.llc_stop(t.llc);
    if (t.dirty && t.op == mem_op::snoop_shared) { // the downgraded dirty line is also written back home
        const sc_core::sc_time posted = delay;
        traverse(graph_.route(dst, src), posted, true);
    }
    delay += ps_time(traverse(graph_.route(dst, requester), delay, t.data_direct && t.had_line));
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

} // namespace warmsched::models
