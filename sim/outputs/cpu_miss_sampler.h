// Per-CPU miss counts sampled at a fixed interval, for the traces that draw them as counter tracks (the
// ftrace/Perfetto event log and the timeline behind the Chrome trace and the VCD). A sample is due on a
// CPU at the first scheduler event at or after its next multiple of the interval; it holds what the CPU
// missed since the previous sample: accesses that missed L1d, those that missed L2 too, those served
// beyond the LLC (another LLC, the other socket, memory), and all accesses.
// Left out: sampling at exact interval boundaries (the model's counters are read at scheduler events).
#pragma once

#include "models/system/machine.h"
#include "scheduler/core/scheduler.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace warmsched::sim {

struct cpu_miss_delta {
    std::uint64_t l1d = 0, l2 = 0, l3 = 0, accesses = 0;
};

class cpu_miss_sampler {
public:
    // The first sample on each CPU is due at `start_ns`, then every `interval_ns`.
    cpu_miss_sampler(models::machine& m, unsigned num_cpus, scheduler::nsec start_ns,
                     scheduler::nsec interval_ns);

    // The counts since the CPU's previous sample, when one is due at `t`; nothing otherwise.
    std::optional<cpu_miss_delta> sample(unsigned cpu, scheduler::nsec t);

private:
    models::machine& m_;
    scheduler::nsec interval_ns_;
    std::vector<scheduler::nsec> next_;
    std::vector<cpu_miss_delta> last_; // cumulative counts at the previous sample
};

} // namespace warmsched::sim
