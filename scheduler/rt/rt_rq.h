// One CPU's RT run queue (struct rt_rq): the priority array, the counts, the best queued priority, and
// the bandwidth state (rt_time used in the current period against rt_runtime; rt_throttled while it is
// over). While throttled (or empty) the rt_rq is not counted in the CPU's nr_running (rt_queued false),
// as sched_rt_rq_dequeue does. Push/pull state (pushable list, overload) is not modelled yet.
#pragma once

#include "scheduler/rt/rt_prio_array.h"

#include <cstdint>

namespace warmsched::scheduler {

struct rt_rq {
    rt_prio_array active;
    unsigned rt_nr_running = 0;
    int highest_prio_curr = MAX_RT_PRIO - 1; // best queued prio; 99 when no RT task is queued
    bool rt_queued = false;                  // counted in rq.nr_running
    // Bandwidth (RT throttling).
    std::uint64_t rt_time = 0;    // RT runtime used in the current period, ns
    std::uint64_t rt_runtime = 0; // this CPU's budget per period, ns (borrowing may raise it)
    bool rt_throttled = false;
    std::uint64_t nr_throttled = 0; // times it was throttled (for tests and stats)

    // enqueue_top_rt_rq / dequeue_top_rt_rq: add the queued RT tasks to the CPU's nr_running, unless
    // throttled or empty; take them out again.
    // Each returns the count for the CPU's add_nr_running / sub_nr_running (0: nothing changes).
    unsigned queue_top() {
        if (rt_queued || rt_throttled || rt_nr_running == 0) return 0;
        rt_queued = true;
        return rt_nr_running;
    }
    unsigned unqueue_top() {
        if (!rt_queued) return 0;
        rt_queued = false;
        return rt_nr_running;
    }
};

} // namespace warmsched::scheduler
