// RT throttling (the RT bandwidth of kernel/sched/rt.c without RT group scheduling): every CPU's rt_rq
// may use sched_rt_runtime_us of each sched_rt_period_us. update_curr_rt charges the running RT task's
// time to rt_time; once rt_time exceeds the budget -- after borrowing from the other CPUs' unused budget
// when RT_RUNTIME_SHARE is on -- the rt_rq is throttled: its tasks stop counting as runnable, the CPU
// reschedules and runs fair tasks or idles, and "sched: RT throttling activated" is logged once. The
// period timer subtracts one budget per elapsed period and unthrottles.
//
// Modelled differently: the kernel's period hrtimer is started by the first RT enqueue; here periods
// are aligned to multiples of the period from the start of the run, and the timer's work is done by the
// first tick (on any CPU) at or after each boundary -- at tick granularity, as throttling itself is.
// A throttled CPU that idles (no fair task to run) is woken by that tick's resched IPI, or, when no CPU
// ticks, by the period hrtimer the kernel arms on it (scheduler::rt_period_expiry). Left out: RT group
// scheduling. In EEVDF mode the v6.12 fair server (dl/fair_server.h) also gives starved fair tasks 50 ms per
// 1 s, which is what they get when this throttling is off (sched_rt_runtime_us = -1); v6.12 keeps both.
#pragma once

#include "scheduler/rt/rt_tunables.h"
#include "scheduler/task/task.h"

#include <string>

namespace warmsched::scheduler {

class scheduler;
struct runqueue;

class rt_bandwidth {
public:
    rt_bandwidth(scheduler& core, const rt_tunables& tun, bool runtime_share);

    // Gives every CPU its budget (called once the run queues exist).
    void init();
    // update_curr_rt's share: charges `delta` of RT runtime to rq; throttles it (and reschedules) when
    // it is over its budget. Returns whether rq is throttled.
    bool account(runqueue& rq, nsec delta);
    // The period timer: called with the time of every tick; does the work of each boundary passed.
    void period_timer(nsec now);
    // The next period boundary the timer will handle.
    nsec next_period() const { return next_period_; }
    // The kernel log line, once per run ("sched: RT throttling activated"), empty until then.
    const std::string& log() const { return log_; }

private:
    bool runtime_exceeded(runqueue& rq);
    void balance_runtime(runqueue& rq); // RT_RUNTIME_SHARE: borrow unused budget from other CPUs

    scheduler& core_;
    const rt_tunables& tun_;
    bool share_;
    nsec next_period_ = 0;
    std::string log_;
};

} // namespace warmsched::scheduler
