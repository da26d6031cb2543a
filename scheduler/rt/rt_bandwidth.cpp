// RT throttling; see rt_bandwidth.h.
#include "scheduler/rt/rt_bandwidth.h"

#include "scheduler/core/scheduler.h"

#include <algorithm>

namespace warmsched::scheduler {

rt_bandwidth::rt_bandwidth(scheduler& core, const rt_tunables& tun, bool runtime_share)
    : core_(core), tun_(tun), share_(runtime_share) {}

void rt_bandwidth::init() {
    for (unsigned c = 0; c < core_.num_cpus(); ++c) core_.rq(c).rt.rt_runtime = tun_.runtime_ns();
    next_period_ = tun_.period_ns();
}

bool rt_bandwidth::account(runqueue& rq, nsec delta) {
    if (tun_.unlimited()) return false;
    rt_rq& rt = rq.rt;
    rt.rt_time += delta;
    if (runtime_exceeded(rq)) core_.resched_curr(rq);
    return rt.rt_throttled;
}

// sched_rt_runtime_exceeded.
bool rt_bandwidth::runtime_exceeded(runqueue& rq) {
    rt_rq& rt = rq.rt;
    if (rt.rt_throttled) return true;
    if (rt.rt_runtime >= tun_.period_ns()) return false;
    balance_runtime(rq);
    if (rt.rt_time <= rt.rt_runtime) return false;
    rt.rt_throttled = true;
    ++rt.nr_throttled;
    if (log_.empty()) log_ = "sched: RT throttling activated";
    rq.sub_nr_running(rt.unqueue_top());
    return true;
}

// do_balance_runtime: each other CPU gives up to 1/ncpus of its unused budget, until this CPU has a
// whole period.
void rt_bandwidth::balance_runtime(runqueue& rq) {
    rt_rq& rt = rq.rt;
    if (!share_ || rt.rt_time <= rt.rt_runtime) return;
    const nsec period = tun_.period_ns();
    const unsigned weight = core_.num_cpus();
    for (unsigned c = 0; c < core_.num_cpus(); ++c) {
        rt_rq& iter = core_.rq(c).rt;
        if (&iter == &rt || iter.rt_runtime <= iter.rt_time) continue;
        nsec diff = (iter.rt_runtime - iter.rt_time) / weight;
        if (rt.rt_runtime + diff > period) diff = period - rt.rt_runtime;
        iter.rt_runtime -= diff;
        rt.rt_runtime += diff;
        if (rt.rt_runtime == period) break;
    }
}

// do_sched_rt_period_timer, for every boundary passed since the last call.
void rt_bandwidth::period_timer(nsec now) {
    if (tun_.unlimited() || now < next_period_) return;
    const nsec period = tun_.period_ns();
    const nsec overrun = (now - next_period_) / period + 1;
    next_period_ += overrun * period;
    for (unsigned c = 0; c < core_.num_cpus(); ++c) {
        runqueue& rq = core_.rq(c);
        rt_rq& rt = rq.rt;
        // Without RT_RUNTIME_SHARE nothing is lent out; with it, the loans stand until a CPU's runtime is
        // reset (the kernel resets them only when CPUs go offline or the sysctls change).
        if (!share_) rt.rt_runtime = tun_.runtime_ns();
        if (rt.rt_time == 0 && !rt.rt_throttled) continue;
        bool enqueue = false;
        if (rt.rt_time) {
            if (rt.rt_throttled) balance_runtime(rq);
            rt.rt_time -= std::min(rt.rt_time, overrun * rt.rt_runtime);
            if (rt.rt_throttled && rt.rt_time < rt.rt_runtime) {
                rt.rt_throttled = false;
                enqueue = true;
            }
        } else if (rt.rt_nr_running && !rt.rt_throttled) {
            enqueue = true;
        }
        if (!enqueue) continue;
        rq.add_nr_running(rt.queue_top()); // sched_rt_rq_enqueue
        if (rt.rt_nr_running && rt.highest_prio_curr < rq.curr->prio()) core_.resched_curr(rq);
    }
}

} // namespace warmsched::scheduler
