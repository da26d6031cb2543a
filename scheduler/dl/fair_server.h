// The v6.12 fair server (kernel/sched/deadline.c dl_server, "deferred" mode; debugfs
// sched/fair_server/cpuN/{runtime,period}, 50 ms per 1000 ms): a per-CPU deadline entity that runs the
// CPU's fair tasks when RT work starves them. It starts when the CPU has fair work (dl_server_start) with a
// budget of `runtime` per `period`. Fair execution consumes the budget as it happens (dl_server_update from
// update_curr_fair), and so does idle time (dl_server_update_idle_time): a CPU that runs or could run its
// fair tasks does not need the server. Only if the budget is still left at the zero-laxity instant --
// `deadline - remaining runtime` -- does the server activate: as a deadline entity it outranks the RT
// class, so the fair tasks run (an RT wakeup does not preempt them) until the budget is spent; then the RT
// class resumes until the period ends and the budget is replenished. Under a saturating RT load the fair
// tasks therefore get `runtime` of each `period` (5%), whether RT throttling is on or off
// (sched_rt_runtime_us = -1).
//
// Modelled differently: the server's timers (zero laxity, replenishment) are checked at the scheduler's
// tick and schedule() calls on the CPU, not fired as hrtimers (as RT throttling here), and its period
// starts at the first check that finds fair work. The server is dropped when its period ends without fair
// work (dl_server_stop). Left out: the server's place among real SCHED_DEADLINE tasks (no deadline class),
// its admission control, and the debugfs knobs (the defaults are fixed).
#pragma once

#include "scheduler/task/task.h"

#include <vector>

namespace warmsched::scheduler {

class scheduler;
struct runqueue;

class fair_server {
public:
    static constexpr nsec default_runtime = 50'000'000;   // fair_server/cpuN/runtime
    static constexpr nsec default_period = 1'000'000'000; // fair_server/cpuN/period

    fair_server(scheduler& core, unsigned ncpus);

    // The CPU's clock reached rq.clock with rq.curr having run since the last call: charge the budget
    // (fair or idle time), replenish at the period's end, activate at zero laxity, stop when spent.
    // Reschedules the CPU when the server starts or stops serving.
    void update(runqueue& rq);
    // The server is running the CPU's fair tasks ahead of the RT class.
    bool serving(unsigned cpu) const { return cpus_[cpu].serving; }
    // Times the server activated (zero laxity reached with budget left), over all CPUs.
    std::uint64_t activations() const { return activations_; }

private:
    struct per_cpu {
        bool started = false, serving = false;
        nsec runtime = 0;  // budget left in this period
        nsec deadline = 0; // end of this period
        nsec stamp = 0;    // last update
    };
    scheduler& core_;
    std::vector<per_cpu> cpus_;
    std::uint64_t activations_ = 0;
};

} // namespace warmsched::scheduler
