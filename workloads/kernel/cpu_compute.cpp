// One CPU's user computation: chunks of instructions up to the next event, their memory accesses through
// the hardware model, pro-rated when an interrupt cuts them short, and fast-forwarded chunks of settled
// compute (compute_settling.h); and the kernel's copies between buffers. See cpu_executor.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

#include <algorithm>

namespace warmsched::workloads {

using models::ps_t;

namespace {
constexpr std::size_t max_chunk_accesses = 256;  // bounds how far a chunk can overshoot an event
constexpr ps_t max_chunk_ps = 1'000'000'000;     // 1 ms
constexpr ps_t min_fast_forward_ps = 20'000'000; // 20 us
} // namespace

void cpu_executor::run_compute(kernel_task& t) {
    const auto& core = k_.machine().platform().core;
    const double cycle = static_cast<double>(h_.params().cycle_ps);
    const double cycles_per_instr = core.base_cpi * smt_stretch();
    const memory_profile* p = t.current->profile;
    const double apki = p ? p->accesses_per_kilo_instruction : 0.0;
    const ps_t now = h_.now();
    ps_t bound = std::min(next_tick_, now + max_chunk_ps);
    if (!timers_.empty()) bound = std::min(bound, std::get<0>(timers_.top()));
    if (ipi_pending_) bound = std::min(bound, ipi_at_);
    const bool may_fast_forward = k_.fast_forward() > 1 && apki > 0 && !k_.generator(t, *p).sequential();
    if (may_fast_forward) {
        t.settling.at(cpu_, epoch_, p, static_cast<double>(p->working_set / k_.machine().line_size()));
        // Only a chunk long enough to hide its sample is fast-forwarded (a steady flow is a rate).
        if (t.settling.settled() && bound > now + min_fast_forward_ps) return run_fast_forward(t, *p, bound);
    }
    const double budget = static_cast<double>(bound > now ? bound - now : 1000);
    const double est = t.ps_per_instruction > 0 ? t.ps_per_instruction : cycles_per_instr * cycle;
    std::uint64_t k = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(budget / est));
    if (apki > 0)
        k = std::min<std::uint64_t>(k, static_cast<std::uint64_t>(max_chunk_accesses * 1000.0 / apki) + 1);
    k = std::min(k, t.remaining);
    // The chunk's memory accesses, through the hierarchy (independent, up to the MSHR limit in flight).
    const double want = k * apki / 1000.0 + t.access_carry;
    const std::size_t n = static_cast<std::size_t>(want);
    t.access_carry = want - static_cast<double>(n);
    const ps_t start = h_.now();
    const models::hart_stats stats_before = h_.stats();
    if (n > 0) {
        access_generator& g = k_.generator(t, *p);
        buf_.clear();
        g.generate(n, t.rng, buf_);
        h_.stream(buf_.data(), n, g.sequential());
    }
    const ps_t mem = h_.now() - start;
    // The rest of the chunk is execution: one issue slot per access is already in the stream.
    const double exec = std::max(0.0, k * cycles_per_instr * cycle - static_cast<double>(n) * cycle);
    std::uint64_t done = k;
    if (exec >= 2e6) { // long enough to be worth interrupting: wait in SystemC time
        const double ran = static_cast<double>(wait_interruptible(static_cast<ps_t>(exec)));
        if (ran < exec) // interrupted: pro-rate the chunk
            done = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(k * (mem + ran) / (mem + exec)));
    } else if (exec > 0) {
        h_.busy(static_cast<ps_t>(exec));
    }
    const ps_t took = h_.now() - start;
    t.remaining -= std::min(done, t.remaining);
    t.utime += ns(took);
    const double per = static_cast<double>(took) / static_cast<double>(done);
    t.ps_per_instruction = t.ps_per_instruction > 0 ? 0.75 * t.ps_per_instruction + 0.25 * per : per;
    if (may_fast_forward)
        t.settling.detailed(done, static_cast<double>(took), access_mix::between(stats_before, h_.stats()));
}

void cpu_executor::run_fast_forward(kernel_task& t, const memory_profile& p, ps_t bound) {
    const double ratio = k_.fast_forward();
    const double apki = p.accesses_per_kilo_instruction;
    const double cycle = static_cast<double>(h_.params().cycle_ps);
    const compute_settling& s = t.settling;
    // The settled time per instruction is execution plus memory time; the memory part follows the
    // sample's latency (queues that grew or shrank since), the execution part does not.
    const double exec_per =
        std::max(0.0, k_.machine().platform().core.base_cpi * smt_stretch() * cycle - apki / 1000.0 * cycle);
    const double mem_per = std::max(0.0, s.ps_per_instruction() - exec_per);
    const double planned = t.ps_per_instruction > 0 ? t.ps_per_instruction : s.ps_per_instruction();
    const ps_t start = h_.now();
    const double budget = static_cast<double>(bound > start ? bound - start : 1000);
    std::uint64_t k = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(budget / planned));
    k = std::min<std::uint64_t>(k,
                                static_cast<std::uint64_t>(max_chunk_accesses * ratio * 1000.0 / apki) + 1);
    k = std::min(k, t.remaining);
    const double want = k * apki / 1000.0 + t.access_carry;
    const std::size_t n = static_cast<std::size_t>(want);
    t.access_carry = want - static_cast<double>(n);
    const double want_sampled = static_cast<double>(n) / ratio + t.sample_carry;
    const std::size_t m = static_cast<std::size_t>(want_sampled);
    t.sample_carry = want_sampled - static_cast<double>(m);
    // The sample goes through the hierarchy; its transfers, times n/m, become this hart's steady flow
    // for the rest of the chunk.
    access_mix sample;
    double slowdown = 1;
    models::flow_meter& flows = k_.machine().flows();
    if (m > 0) {
        const models::hart_stats before = h_.stats();
        access_generator& g = k_.generator(t, p);
        buf_.clear();
        g.generate(m, t.rng, buf_);
        flows.start(cpu_);
        h_.stream(buf_.data(), m, false);
        sample = access_mix::between(before, h_.stats());
        h_.extrapolate_since(before, static_cast<double>(n) / static_cast<double>(m));
        slowdown = s.slowdown(sample);
    }
    const double chunk = static_cast<double>(k) * (exec_per + mem_per * slowdown);
    const ps_t sampled = h_.now() - start;
    const ps_t rest = chunk > static_cast<double>(sampled) ? static_cast<ps_t>(chunk) - sampled : 0;
    if (m > 0) flows.finish(cpu_, static_cast<double>(n) / static_cast<double>(m), rest);
    const ps_t ran = rest > 0 ? wait_interruptible(rest) : 0;
    flows.stop(cpu_);
    std::uint64_t done = k;
    if (ran < rest) // interrupted: pro-rate the chunk
        done = std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>(static_cast<double>(k) * static_cast<double>(sampled + ran) /
                                          static_cast<double>(sampled + rest)));
    const ps_t took = h_.now() - start;
    t.remaining -= std::min(done, t.remaining);
    t.utime += ns(took);
    const double per = static_cast<double>(took) / static_cast<double>(done);
    t.ps_per_instruction = 0.75 * t.ps_per_instruction + 0.25 * per;
    ++stats_.ff_chunks;
    stats_.ff_accesses += n;
    stats_.ff_sampled += m;
    if (!t.settling.sampled(sample)) ++stats_.ff_drifts;
}

models::ps_t cpu_executor::wait_interruptible(ps_t ps) {
    h_.sync();
    const ps_t t0 = sc_core::sc_time_stamp().value();
    sc_core::wait(models::ps_time(ps), wake_);
    return sc_core::sc_time_stamp().value() - t0;
}

void cpu_executor::copy(std::uint64_t from, std::uint64_t to, std::uint64_t bytes) {
    const unsigned line = k_.machine().line_size();
    buf_.clear();
    for (std::uint64_t a = from / line * line; a < from + bytes; a += line) buf_.push_back({a, false});
    for (std::uint64_t a = to / line * line; a < to + bytes; a += line) buf_.push_back({a, true});
    h_.stream(buf_.data(), buf_.size(), true);
}

} // namespace warmsched::workloads
