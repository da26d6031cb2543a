// Steady flows of fast-forwarded compute; see flow_meter.h.
#include "models/fabric/flow_meter.h"

namespace warmsched::models {

void flow_meter::attach(std::vector<link_occupancy*> resources, unsigned harts) {
    resources_ = std::move(resources);
    samples_.assign(harts, sample{std::vector<double>(resources_.size(), 0.0), {}});
    flows_.assign(harts, {});
}

void flow_meter::start(unsigned hart) {
    active_.emplace_back(sc_core::sc_get_current_process_handle(), hart);
}

void flow_meter::record(unsigned resource, double bytes) {
    const sc_core::sc_process_handle me = sc_core::sc_get_current_process_handle();
    for (const auto& [process, hart] : active_) {
        if (process != me) continue;
        sample& s = samples_[hart];
        if (s.bytes[resource] == 0) s.touched.push_back(resource);
        s.bytes[resource] += bytes;
        return;
    }
}

void flow_meter::finish(unsigned hart, double scale, ps_t duration_ps) {
    for (auto it = active_.begin(); it != active_.end(); ++it)
        if (it->second == hart) {
            active_.erase(it);
            break;
        }
    stop(hart);
    auto& f = flows_[hart];
    sample& s = samples_[hart];
    const double d = static_cast<double>(duration_ps > 0 ? duration_ps : 1);
    for (unsigned r : s.touched) {
        const double extra = s.bytes[r] * (scale - 1);
        s.bytes[r] = 0;
        if (extra <= 0) continue;
        resources_[r]->count_background_bytes(extra);
        f.emplace_back(r, extra / d);
        resources_[r]->add_background(extra / d);
    }
    s.touched.clear();
}

void flow_meter::stop(unsigned hart) {
    for (const auto& [r, rate] : flows_[hart]) resources_[r]->add_background(-rate);
    flows_[hart].clear();
}

} // namespace warmsched::models
