// Per-CPU miss samples; see cpu_miss_sampler.h.
#include "sim/outputs/cpu_miss_sampler.h"

namespace warmsched::sim {

using models::mem_source;

cpu_miss_sampler::cpu_miss_sampler(models::machine& m, unsigned num_cpus, scheduler::nsec start_ns,
                                   scheduler::nsec interval_ns)
    : m_(m), interval_ns_(interval_ns), next_(num_cpus, start_ns), last_(num_cpus) {}

std::optional<cpu_miss_delta> cpu_miss_sampler::sample(unsigned cpu, scheduler::nsec t) {
    if (t < next_[cpu]) return std::nullopt;
    next_[cpu] = (t / interval_ns_ + 1) * interval_ns_;
    const auto& a = m_.cpu(cpu).stats().accesses;
    auto at = [&](mem_source s) { return a[static_cast<int>(s)]; };
    cpu_miss_delta now;
    for (auto n : a) now.accesses += n;
    now.l1d = now.accesses - at(mem_source::l1);
    now.l2 = now.l1d - at(mem_source::l2);
    now.l3 = at(mem_source::remote_llc) + at(mem_source::remote_socket) + at(mem_source::local_memory) +
             at(mem_source::remote_memory);
    const cpu_miss_delta& before = last_[cpu];
    const cpu_miss_delta d{now.l1d - before.l1d, now.l2 - before.l2, now.l3 - before.l3,
                           now.accesses - before.accesses};
    last_[cpu] = now;
    return d;
}

} // namespace warmsched::sim
