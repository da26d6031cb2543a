// The scheduler's tracepoints (include/trace/events/sched.h): an observer the core scheduler calls where
// the kernel fires sched_switch, sched_waking, sched_wakeup(_new), sched_migrate_task,
// sched_process_fork and sched_process_exit, plus the periodic tick (for sampled counters). Every
// call says which CPU's code fires it and the scheduler time; the task running there is
// rq(cpu).curr. Plain C++, no output format: sim/outputs/sched_event_log records them for trace.txt and
// trace.perfetto-trace, sim/outputs/sched_timeline for trace.json, the VCD and the plots.
// Left out: tracepoints of classes and paths not modelled (sched_stat_*, sched_pi_setprio, cpu_idle).
#pragma once

#include "scheduler/task/task.h"

namespace warmsched::scheduler {

class sched_tracepoints {
public:
    virtual ~sched_tracepoints() = default;
    // __schedule() switches `prev` out for `next` on `cpu`; `preempt`: prev was preempted (R+).
    virtual void sched_switch(unsigned cpu, nsec now, bool preempt, const task& prev, const task& next) = 0;
    // try_to_wake_up() starts waking `p` (p.cpu is still the CPU it last ran on).
    virtual void sched_waking(unsigned cpu, nsec now, const task& p) = 0;
    // `p` is queued on p.cpu and runnable; `is_new`: wake_up_new_task (sched_wakeup_new).
    virtual void sched_wakeup(unsigned cpu, nsec now, const task& p, bool is_new) = 0;
    // set_task_cpu() moves `p` from `orig` to `dest`.
    virtual void sched_migrate_task(unsigned cpu, nsec now, const task& p, unsigned orig, unsigned dest) = 0;
    // copy_process() made `child` of the task running on `cpu`.
    virtual void sched_process_fork(unsigned cpu, nsec now, const task& parent, const task& child) = 0;
    // do_exit() of `p`, the task running on `cpu`, before its last switch.
    virtual void sched_process_exit(unsigned cpu, nsec now, const task& p) = 0;
    // The periodic tick on `cpu`.
    virtual void sched_tick(unsigned cpu, nsec now) = 0;
};

} // namespace warmsched::scheduler
