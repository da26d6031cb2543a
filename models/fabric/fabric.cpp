// Interconnect model; see fabric.h.
#include "models/fabric/fabric.h"

#include "models/cache/llc.h"
#include "models/coherence/directory.h"

#include <cassert>

namespace warmsched::models {

fabric::fabric(const sc_core::sc_module_name& name, const platform::fabric_graph& graph, unsigned line_size,
               ps_t bandwidth_window_ps, double bandwidth_scale)
    : sc_module(name), graph_(graph), line_size_(line_size) {
    for (const auto& l : graph.links())
        links_.emplace_back(l.bandwidth * bandwidth_scale, bandwidth_window_ps);
}

fabric::route fabric::make_route(unsigned from_stop, unsigned to_stop) {
    const platform::fabric_route& r = graph_.route(from_stop, to_stop);
    route out;
    out.latency_ps = static_cast<ps_t>(r.latency_ps);
    for (unsigned i : r.links) {
        out.links.emplace_back(&links_[i], static_cast<ps_t>(graph_.links()[i].latency_ps));
    }
    return out;
}

void fabric::attach(std::vector<llc*> llcs, std::vector<directory*> homes) {
    llcs_ = std::move(llcs);
    homes_ = std::move(homes);
    num_llcs_ = static_cast<unsigned>(llcs_.size());
    num_homes_ = static_cast<unsigned>(homes_.size());
    routes_.clear();
    for (unsigned l = 0; l < num_llcs_; ++l)
        for (unsigned h = 0; h < num_homes_; ++h)
            routes_.push_back(make_route(graph_.llc_stop(l), graph_.memory_stop(h)));
    for (unsigned l = 0; l < num_llcs_; ++l)
        for (unsigned h = 0; h < num_homes_; ++h)
            routes_.push_back(make_route(graph_.memory_stop(h), graph_.llc_stop(l)));
    llc_routes_.clear();
    llc_llc_ps_.clear();
    for (unsigned a = 0; a < num_llcs_; ++a)
        for (unsigned b = 0; b < num_llcs_; ++b) {
            llc_routes_.push_back(make_route(graph_.llc_stop(a), graph_.llc_stop(b)));
            llc_llc_ps_.push_back(llc_routes_.back().latency_ps);
        }
}

ps_t fabric::traverse(const route& r, ps_t at, bool data) {
    if (!data) return r.latency_ps;
    ps_t elapsed = 0;
    const bool meter = meter_ && meter_->recording();
    for (const auto& [link, latency_ps] : r.links) {
        const ps_t wait = link->reserve(at + elapsed, line_size_);
        if (meter) meter_->record(static_cast<unsigned>(link - links_.data()), line_size_);
        elapsed += wait + latency_ps;
    }
    return elapsed;
}

ps_t fabric::from_llc(unsigned from, mem_txn& t, ps_t at) {
    const bool carries_data = (t.op == mem_op::put && t.dirty) || t.op == mem_op::writeback;
    ps_t now = at + traverse(llc_home(from, t.target), at, carries_data);
    now += homes_[t.target]->request(t, now);
    const bool posted = t.op == mem_op::put || t.op == mem_op::writeback;
    if (!posted && !t.data_direct) // data from memory, or the directory's acknowledgement
        now += traverse(home_llc(t.target, from), now, t.op != mem_op::upgrade);
    return now - at;
}

ps_t fabric::from_home(unsigned from, mem_txn& t, ps_t at) {
    ps_t now = at + traverse(home_llc(from, t.target), at, false);
    now += llcs_[t.target]->home_snoop(t, now);
    // The snooped LLC answers the requester directly: with the line if it is to forward it, else an ack.
    if (t.dirty && t.op == mem_op::snoop_shared) // the downgraded dirty line is also written back home
        traverse(llc_home(t.target, from), now, true);
    now += traverse(llc_llc(t.target, t.llc), now, t.data_direct && t.had_line);
    return now - at;
}

} // namespace warmsched::models
