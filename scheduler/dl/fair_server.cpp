// The v6.12 fair server; see fair_server.h.
#include "scheduler/dl/fair_server.h"

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/fair_class.h"

#include <algorithm>

namespace warmsched::scheduler {

fair_server::fair_server(scheduler& core, unsigned ncpus) : core_(core), cpus_(ncpus) {}

void fair_server::update(runqueue& rq) {
    per_cpu& s = cpus_[rq.cpu];
    const nsec now = rq.clock;
    const bool fair_work = core_.fair().has_runnable(rq);
    if (!s.started) {
        if (!fair_work) return;
        s = per_cpu{true, false, default_runtime, now + default_period, now}; // dl_server_start
        return;
    }
    // What ran since the last update: fair work or idle consumes the budget, RT work does not.
    const task& curr = *rq.curr;
    const nsec delta = now > s.stamp ? now - s.stamp : 0;
    s.stamp = now;
    if (curr.is_idle || core_.is_fair(curr)) s.runtime -= std::min(s.runtime, delta);
    const bool was_serving = s.serving;
    if (now >= s.deadline) { // replenishment: a new period with a full budget, deferred again
        if (!fair_work) {
            s = per_cpu{}; // dl_server_stop
            if (was_serving) core_.resched_curr(rq);
            return;
        }
        const nsec periods = (now - s.deadline) / default_period + 1;
        s.deadline += periods * default_period;
        s.runtime = default_runtime;
        s.serving = false;
    }
    if (s.serving && (s.runtime == 0 || !fair_work)) s.serving = false; // budget spent: throttled
    if (!s.serving && s.runtime > 0 && fair_work && now + s.runtime >= s.deadline) {
        s.serving = true; // zero laxity: the deferred server is enqueued as a deadline entity
        ++activations_;
    }
    if (s.serving != was_serving) core_.resched_curr(rq);
}

} // namespace warmsched::scheduler
