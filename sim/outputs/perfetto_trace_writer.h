// trace.perfetto-trace: the run's scheduler events and counters as a Perfetto protobuf trace (the format
// traced writes; ui.perfetto.dev and trace_processor read it), so that what Perfetto's ftrace text
// importer ignores -- sched_wakeup(_new), sched_migrate_task, sched_process_fork/exit -- reaches it as
// typed events. Schema: sim/outputs/perfetto/perfetto_trace.proto (a subset of Perfetto's, same field
// numbers). The file is a `Trace`: TracePackets one after another, in this order:
//   - SystemInfo: uname (sysname Linux, machine x86_64, release of the simulated kernel: Perfetto decodes
//     sched_switch's prev_state by it) and the CPU count;
//   - ProcessTree at the window's start: the tasks seen in the window that it did not fork (the
//     processes alive when tracing started, as traced_probes scans /proc), cmdline = comm;
//   - TrackDescriptors: a "CPU counters" track with, per CPU, counter tracks `cpu<N> L1d misses`,
//     `cpu<N> L2 misses`, `cpu<N> L3 misses` (misses since the CPU's previous sample) and
//     `cpu<N> nr_running` (run-queue length), ordered by CPU;
//   - then per perfetto_bundle_period_ns (1 ms) of simulated time, in time order: one FtraceEventBundle per
//   CPU with
//     that CPU's events of the period (timestamp in ns, pid = the task running on the CPU, as ftrace
//     records them), then the counter values of the period as TrackEvent TYPE_COUNTER packets.
// The events are trace.txt's (sched_event_log), one for one: sched_switch (prev_state as the kernel's
// bits: 0 R, 0x100 R+, 1 S, 0x10 X), sched_waking, sched_wakeup, sched_wakeup_new, sched_migrate_task,
// sched_process_fork, sched_process_exit; plus, derived from them as the kernel fires them, task_newtask
// before each fork (clone_flags of glibc's fork, or of pthread_create with CLONE_THREAD when the child
// shares its parent's tgid: how Perfetto groups threads into processes) and sched_process_free after an
// exited task's last switch (Perfetto ends the thread there). The counters are trace.json's
// (sched_timeline). Packets of the ftrace events use trusted_packet_sequence_id 1, the counters 2.
// Left out: the compact_sched encoding, common_flags (irq/preempt state), exec's task_rename (a new comm
// shows from the next sched_switch), the RCU delay before sched_process_free (it carries the last
// switch's time and CPU), and the run's provenance (config.yaml and the JSON files have it).
#pragma once

#include "sim/outputs/sched_event_log.h"
#include "sim/outputs/sched_timeline.h"

#include <ostream>
#include <string>

namespace warmsched::sim {

// Ftrace bundles and counter packets are cut at multiples of this (traced_probes drains each CPU's
// buffer every drain_period_ms, 100 ms by default; a shorter period keeps each packet small).
inline constexpr scheduler::nsec perfetto_bundle_period_ns = 1'000'000;

// `kernel_release`: uname -r of the simulated kernel (sim_kernel::uname_release).
void write_perfetto_trace(std::ostream& out, const sched_event_log& events, const sched_timeline& counters,
                          const std::string& kernel_release);

} // namespace warmsched::sim
