// Memory controller; see memory_controller.h.
#include "models/memory/memory_controller.h"

namespace warmsched::models {

memory_controller::memory_controller(const sc_core::sc_module_name& name, const memory_controller_params& p)
    : sc_module(name), home_side("home_side"), p_(p), channels_(p.bandwidth, p.bandwidth_window_ps) {
    home_side.register_b_transport(this, &memory_controller::b_transport);
}

void memory_controller::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    const mem_txn& t = *gp.get_extension<mem_txn>();
    const ps_t wait = channels_.reserve(abs_ps(delay), p_.line_size);
    if (meter_ && meter_->recording()) meter_->record(meter_index_, p_.line_size);
    if (t.op == mem_op::mem_read) {
        ++stats_.reads;
        delay += ps_time(wait + p_.latency_ps);
    } else {
        ++stats_.writes;
        delay += ps_time(wait);
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void memory_controller::add_stats(stats::group& g) const {
    g.add("reads", stats_.reads, stats::unit::count, "line reads");
    g.add("writes", stats_.writes, stats::unit::count, "line writes");
}

} // namespace warmsched::models
