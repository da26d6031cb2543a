// trace.txt: the scheduler's events (sched_event_log) as ftrace text (the `nop` tracer's output with the
// tgid column, as `trace-cmd`/`cat trace` print it with record-tgid on), which Perfetto's UI and
// trace_processor import (they read sched_switch, sched_waking and tracing_mark_write counters), and
// LISA/trappy parse. Events: sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
// sched_migrate_task, sched_process_fork, sched_process_exit, and per-CPU cache misses as atrace counters
// (`tracing_mark_write: C|0|cpuN <level> misses|<misses since the CPU's previous sample>`). One line per
// event in timestamp order. Timestamps carry 9 decimals (ns; the kernel prints 6, Perfetto reads both).
// Left out: the flags column's real irq/preempt state (fixed per event: d..2. in __schedule, d..3.
// under the rq lock, ..... elsewhere), the stopper thread (a switch to the stopper shows as a switch to
// the CPU's idle task, swapper/N), and ftrace's ring-buffer overruns.
#pragma once

#include "sim/outputs/sched_event_log.h"

#include <ostream>

namespace warmsched::sim {

// The whole file: header, then the events in timestamp order.
void write_ftrace_text(std::ostream& out, const sched_event_log& events);

} // namespace warmsched::sim
