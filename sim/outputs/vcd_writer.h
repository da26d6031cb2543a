// trace.vcd: the run's timeline as an IEEE 1364 value change dump for GTKWave (and any VCD viewer), with
// trace.vcd.filter, a GTKWave Translate Filter File mapping the pid values to task names.
// Signals, one scope per CPU under `system` (system.cpu<N>.*), 32-bit wires (`$var wire 32`):
//   pid         the task running (0: idle), changed at each switch
//   nr_running  the run queue's length (tasks queued, the running one included), when it changes
//   l1d_misses, l2_misses, l3_misses   misses since the CPU's previous counter sample (at its tick or
//               switch, at most once per trace.counter_interval), held until the next sample
// $timescale 1 ns; time 0 is the start of the trace window; one `#t` block per time with changes.
// Written by hand rather than with SystemC's sc_trace: sc_trace samples traced variables when the
// SystemC kernel advances time, but the scheduler's events carry each CPU's local time, which runs
// ahead of sc_time_stamp() within the temporal-decoupling quantum, so sc_trace would stamp them at
// quantum boundaries and drop the changes in between. The format is a few lines of text.
// The filter file has one line per pid seen, `<pid in decimal> <comm>-<pid>` (0: idle): GTKWave matches
// the value as displayed, so set the pid signals' Data Format to Decimal before applying it.
#pragma once

#include "sim/outputs/sched_timeline.h"

#include <ostream>

namespace warmsched::sim {

void write_vcd(std::ostream& out, const sched_timeline& t);
void write_gtkwave_translate_filter(std::ostream& out, const sched_timeline& t);

} // namespace warmsched::sim
