// Hardware thread; see hart.h.
#include "models/cpu/hart.h"

#include "models/cpu/core.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace warmsched::models {

hart::hart(const sc_core::sc_module_name& name, const hart_params& p) : sc_module(name), mem("mem"), p_(p) {
    qk_.reset();
    req_.txn.cpu = p.cpu;
}

void hart::bind(core& c) {
    mem.bind(c.cpu_side);
    core_ = &c;
}

sc_core::sc_time hart::issue(mem_op op, std::uint64_t addr) {
    // The generic payload carries the address and the command (what a plain load or store needs); the
    // extension adds what the hierarchy needs beyond that.
    req_.gp.set_address(addr);
    req_.gp.set_command(op == mem_op::load ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    req_.txn.op = op;
    req_.txn.line = addr / p_.line_size;
    req_.txn.source = mem_source::l1;
    if (req_.txn.line & (p_.set_sampling - 1)) { // not a sampled line: behave like the latest sampled access
        req_.txn.source = last_sampled_source_;
        ++stats_.accesses[static_cast<int>(last_sampled_source_)];
        stats_.latency_ps[static_cast<int>(last_sampled_source_)] += last_sampled_.value();
        return last_sampled_;
    }
    sc_core::sc_time delay = qk_.get_local_time();
    const sc_core::sc_time start = delay;
    core_->b_transport(req_.gp, delay);
    ++visits_.accesses;
    if (req_.txn.source != mem_source::l1) ++visits_.l1_misses;
    const sc_core::sc_time lat = delay - start;
    last_sampled_ = lat;
    last_sampled_source_ = req_.txn.source;
    const int src = static_cast<int>(req_.txn.source);
    ++stats_.accesses[src];
    stats_.latency_ps[src] += lat.value();
    if (observer_ && req_.txn.source != mem_source::l1) {
        ++visits_.observer_calls;
        observer_->missed(p_.cpu, req_.txn.task, req_.txn.line, req_.txn.source, lat.value());
    }
    return lat;
}

void hart::advance(const sc_core::sc_time& t) {
    qk_.inc(t);
    if (qk_.need_sync()) qk_.sync();
}

ps_t hart::access(mem_op op, std::uint64_t addr) {
    const sc_core::sc_time lat = issue(op, addr);
    advance(lat);
    return lat.value();
}

ps_t hart::stream(const mem_access* accesses, std::size_t n, bool sequential) {
    const ps_t start = now();
    const std::size_t window = sequential ? p_.max_outstanding_stream : p_.max_outstanding;
    // Completion times of the accesses in flight, earliest first: like a pool of miss-status holding
    // registers, any one that frees up takes the next access.
    std::vector<ps_t>& inflight = inflight_;
    const auto later = std::greater<ps_t>();
    const auto pop = [&] {
        std::pop_heap(inflight.begin(), inflight.end(), later);
        inflight.pop_back();
    };
    inflight.clear();
    ps_t t = start, last = start;
    for (std::size_t i = 0; i < n; ++i) {
        while (!inflight.empty() && inflight.front() <= t) pop();
        if (inflight.size() >= window) { // all busy: wait for the first to complete
            t = inflight.front();
            pop();
        }
        qk_.set(ps_time(t - sc_core::sc_time_stamp().value()));
        const ps_t lat = issue(accesses[i].write ? mem_op::store : mem_op::load, accesses[i].addr).value();
        inflight.push_back(t + lat);
        std::push_heap(inflight.begin(), inflight.end(), later);
        last = std::max(last, t + lat);
        t += p_.cycle_ps; // one access issued per cycle
        if (qk_.need_sync()) {
            qk_.sync();
            t = std::max(t, now());
        }
    }
    const ps_t end = std::max(last, t);
    qk_.set(ps_time(end - sc_core::sc_time_stamp().value()));
    if (qk_.need_sync()) qk_.sync();
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
    advance(ps_time(cycles * p_.cycle_ps));
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
