// Hardware thread; see hart.h.
#include "models/cpu/hart.h"

#include "models/cpu/core.h"

#include <tlm_core/tlm_2/tlm_quantum/tlm_global_quantum.h>

#include <algorithm>
#include <cmath>

namespace warmsched::models {

hart::hart(const sc_core::sc_module_name& name, const hart_params& p) : sc_module(name), mem("mem"), p_(p) {
    reset_quantum();
    req_.cpu = p.cpu;
}

void hart::bind(core& c) {
    mem.bind(c.cpu_side);
    core_ = &c;
}

void hart::reset_quantum() {
    local_ps_ = 0;
    next_sync_ps_ = sc_now() + tlm::tlm_global_quantum::instance().compute_local_quantum().value();
}

void hart::sync() {
    sc_core::wait(ps_time(local_ps_));
    reset_quantum();
}

ps_t hart::issue(mem_op op, std::uint64_t addr, ps_t at) {
    req_.op = op;
    req_.line = addr / p_.line_size;
    req_.source = mem_source::l1;
    if (req_.line & (p_.set_sampling - 1)) { // not a sampled line: behave like the latest sampled access
        req_.source = last_sampled_source_;
        ++stats_.accesses[static_cast<int>(last_sampled_source_)];
        stats_.latency_ps[static_cast<int>(last_sampled_source_)] += last_sampled_;
        return last_sampled_;
    }
    const ps_t lat = core_->access_direct(req_, at);
    ++visits_.accesses;
    if (req_.source != mem_source::l1) ++visits_.l1_misses;
    last_sampled_ = lat;
    last_sampled_source_ = req_.source;
    const int src = static_cast<int>(req_.source);
    ++stats_.accesses[src];
    stats_.latency_ps[src] += lat;
    if (observer_ && req_.source != mem_source::l1) {
        ++visits_.observer_calls;
        observer_->missed(p_.cpu, req_.task, req_.line, req_.source, lat);
    }
    return lat;
}

void hart::advance(ps_t t) {
    local_ps_ += t;
    if (need_sync()) sync();
}

ps_t hart::access(mem_op op, std::uint64_t addr) {
    const ps_t lat = issue(op, addr, now());
    advance(lat);
    return lat;
}

ps_t hart::stream(const mem_access* accesses, std::size_t n, bool sequential) {
    ps_t base = sc_now(); // SystemC time: it moves only when this thread syncs
    const ps_t start = base + local_ps_;
    const std::size_t window = sequential ? p_.max_outstanding_stream : p_.max_outstanding;
    // Completion times of the accesses in flight: like a pool of miss-status holding registers, any one
    // that frees up takes the next access. A window holds a few tens at most: an unordered array whose
    // minimum is found by a scan.
    std::vector<ps_t>& inflight = inflight_;
    inflight.clear();
    const auto pop_earliest = [&] {
        const auto it = std::min_element(inflight.begin(), inflight.end());
        const ps_t e = *it;
        *it = inflight.back();
        inflight.pop_back();
        return e;
    };
    ps_t t = start, last = start;
    for (std::size_t i = 0; i < n; ++i) {
        inflight.erase(std::remove_if(inflight.begin(), inflight.end(), [t](ps_t c) { return c <= t; }),
                       inflight.end());
        if (inflight.size() >= window) t = pop_earliest(); // all busy: wait for the first to complete
        local_ps_ = t - base;
        const ps_t lat = issue(accesses[i].write ? mem_op::store : mem_op::load, accesses[i].addr, t);
        inflight.push_back(t + lat);
        last = std::max(last, t + lat);
        const ps_t issued = t;
        t += p_.cycle_ps; // one access issued per cycle
        if (issued >= next_sync_ps_) { // need_sync(): SystemC time is still `base` here
            sync();
            base = sc_now();
            t = std::max(t, base);
        }
    }
    const ps_t end = std::max(last, t);
    local_ps_ = end - base;
    if (need_sync()) sync();
    return end - start;
}

void hart::extrapolate_since(const hart_stats& before, double factor) {
    for (std::size_t s = 0; s < stats_.accesses.size(); ++s) {
        const double extra = factor - 1;
        stats_.accesses[s] += static_cast<std::uint64_t>(
            std::llround(static_cast<double>(stats_.accesses[s] - before.accesses[s]) * extra));
        stats_.latency_ps[s] += static_cast<std::uint64_t>(
            std::llround(static_cast<double>(stats_.latency_ps[s] - before.latency_ps[s]) * extra));
    }
}

void hart::add_visits(host_visits& v) const {
    v.accesses += visits_.accesses;
    v.l1_misses += visits_.l1_misses;
    v.observer_calls += visits_.observer_calls;
}

void hart::compute_cycles(std::uint64_t cycles) {
    advance(cycles * p_.cycle_ps);
}

void hart::add_stats(stats::group& g) const {
    std::uint64_t total = 0;
    for (int i = 0; i < static_cast<int>(mem_source::count); ++i) {
        total += stats_.accesses[i];
        g.add(std::string("accesses::") + to_string(static_cast<mem_source>(i)), stats_.accesses[i],
              stats::unit::count, "accesses served by this level");
    }
    g.add("accesses::total", total, stats::unit::count, "memory accesses");
    for (int i = 0; i < static_cast<int>(mem_source::count); ++i)
        g.add(std::string("latency::") + to_string(static_cast<mem_source>(i)),
              static_cast<double>(stats_.latency_ps[i]) / 1e12, stats::unit::second,
              "the latencies of the accesses served by this level, summed");
}

} // namespace warmsched::models
