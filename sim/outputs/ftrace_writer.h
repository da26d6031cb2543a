// trace.txt: the scheduler's tracepoints as ftrace text (the `nop` tracer's output with the tgid column,
// as `trace-cmd`/`cat trace` print it with record-tgid on), which Perfetto's UI and trace_processor
// import (they read sched_switch, sched_waking and tracing_mark_write counters), and LISA/trappy parse.
// Events: sched_switch, sched_waking, sched_wakeup, sched_wakeup_new, sched_migrate_task,
// sched_process_fork, sched_process_exit, and per-CPU cache misses as atrace counters
// (`tracing_mark_write: C|0|cpuN <level> misses|<misses since the CPU's previous sample>`) sampled at
// the CPU's tick or switch once `counter_interval_ns` has passed. Events are kept in memory and
// written sorted by timestamp (CPUs run ahead of each other within the quantum), only those inside the
// window. Timestamps carry 9 decimals (ns; the kernel prints 6, Perfetto reads both).
// Left out: the flags column's real irq/preempt state (fixed per event: d..2. in __schedule, d..3.
// under the rq lock, ..... elsewhere), the stopper thread (a switch to the stopper shows as a switch to
// the CPU's idle task, swapper/N), and ftrace's ring-buffer overruns.
#pragma once

#include "models/system/machine.h"
#include "scheduler/core/scheduler.h"
#include "sim/outputs/trace_settings.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

class ftrace_writer final : public scheduler::sched_tracepoints {
public:
    ftrace_writer(const scheduler::scheduler& s, models::machine& m, const trace_settings& settings);

    void sched_switch(unsigned cpu, scheduler::nsec now, bool preempt, const scheduler::task& prev,
                      const scheduler::task& next) override;
    void sched_waking(unsigned cpu, scheduler::nsec now, const scheduler::task& p) override;
    void sched_wakeup(unsigned cpu, scheduler::nsec now, const scheduler::task& p, bool is_new) override;
    void sched_migrate_task(unsigned cpu, scheduler::nsec now, const scheduler::task& p, unsigned orig,
                            unsigned dest) override;
    void sched_process_fork(unsigned cpu, scheduler::nsec now, const scheduler::task& parent,
                            const scheduler::task& child) override;
    void sched_process_exit(unsigned cpu, scheduler::nsec now, const scheduler::task& p) override;
    void sched_tick(unsigned cpu, scheduler::nsec now) override;

    // The whole file: header, then the events in timestamp order.
    void write(std::ostream& out) const;
    std::size_t events() const { return events_.size(); }

private:
    struct event {
        scheduler::nsec t;
        std::uint64_t seq;
        std::string line;
    };
    bool in_window(scheduler::nsec t) const {
        return t >= settings_.start_ns && (settings_.end_ns == 0 || t < settings_.end_ns);
    }
    // Appends "<task>-<pid> (<tgid>) [cpu] flags ts: name: payload" for the task running on `cpu`.
    void emit(unsigned cpu, scheduler::nsec t, const char* flags, const char* name,
              const std::string& payload);
    void sample_counters(unsigned cpu, scheduler::nsec t);

    const scheduler::scheduler& s_;
    models::machine& m_;
    trace_settings settings_;
    std::vector<event> events_;
    std::uint64_t seq_ = 0;
    // The task try_to_wake_up is placing and the wakeup's time: its sched_migrate_task (fired with the
    // waker's run-queue clock, which ttwu does not update) takes this time instead.
    const scheduler::task* waking_ = nullptr;
    scheduler::nsec waking_now_ = 0;
    std::vector<scheduler::nsec> next_sample_;
    std::vector<std::uint64_t> last_l1d_misses_, last_llc_misses_;
};

} // namespace warmsched::sim
