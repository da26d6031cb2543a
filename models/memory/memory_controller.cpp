// Memory controller; see memory_controller.h.
#include "models/memory/memory_controller.h"

namespace warmsched::models {

memory_controller::memory_controller(const sc_core::sc_module_name& name, const memory_controller_params& p)
    : sc_module(name), p_(p), channels_(p.bandwidth, p.bandwidth_window_ps) {}

ps_t memory_controller::access(mem_op op, ps_t at) {
    const ps_t wait = channels_.reserve(at, p_.line_size);
    if (meter_ && meter_->recording()) meter_->record(meter_index_, p_.line_size);
    if (op == mem_op::mem_read) {
        ++stats_.reads;
        return wait + p_.latency_ps;
    }
    ++stats_.writes;
    return wait;
}

void memory_controller::add_stats(stats::group& g) const {
    g.add("reads", stats_.reads, stats::unit::count, "line reads");
    g.add("writes", stats_.writes, stats::unit::count, "line writes");
}

} // namespace warmsched::models
