// trace.json: the run's timeline in the Chrome / Perfetto JSON Trace Event Format, for chrome://tracing,
// ui.perfetto.dev and speedscope-like viewers that would rather not read ftrace text:
// {"traceEvents": [...], "displayTimeUnit": "ns"}, ts/dur in microseconds (3 decimals: ns).
//   - one pseudo process "CPUs" (pid 0) with a thread per CPU (tid = cpu, named "cpu<N>", sorted by
//     number): "M" metadata events;
//   - each stint of a task on a CPU as an "X" complete event on that CPU's thread, named by the task's
//     comm, args {pid, tgid, comm}, cat "sched" (slices of one CPU never overlap, so they nest);
//   - each migration as an "i" instant event (scope thread) on the destination CPU, args {pid, orig_cpu,
//     dest_cpu, distance};
//   - per-CPU cache misses as "C" counter events "cpu<N> misses" with series L1d, L2, L3 (misses since
//     the CPU's previous sample) and per-CPU run-queue length as "cpu<N> nr_running".
// Left out: flow events for wakeups (trace.txt carries sched_waking for Perfetto's runnable state).
#pragma once

#include "sim/outputs/sched_timeline.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace warmsched::sim {

// `run` (the provenance), when not null, goes into the format's "otherData".
void write_chrome_trace(std::ostream& out, const sched_timeline& t,
                        const nlohmann::ordered_json& run = nullptr);

} // namespace warmsched::sim
