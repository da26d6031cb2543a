// The scheduler's tracepoints as ftrace records them, for the writers that list the events one by one
// (trace.txt's ftrace text, trace.perfetto-trace's FtraceEventBundles): one record per event with the
// CPU whose code fired it, the task running there (ftrace's common_pid: the text line's task), the time
// and the event's fields -- tasks as the trace prints them (comm at most 15 characters with no spaces or
// '=', pid 0 and prio 120 for a CPU's idle task) -- plus the per-CPU cache-miss counters that trace.txt
// carries as tracing_mark_write (L1d and L3 misses since the CPU's previous sample, sampled at its tick
// or switch once `counter_interval_ns` has passed). Only events inside the trace window are kept. CPUs
// run ahead of each other within the quantum, so records arrive out of global time order:
// in_time_order() sorts them (by time, then by the order they were recorded).
// A wakeup's sched_migrate_task is fired with the waker's run-queue clock, which try_to_wake_up does not
// update; the log gives it the wakeup's time, as the kernel's trace shows it.
// Left out: the flags column's irq/preempt state (the writers fix it per event), the stopper thread (a
// switch to the stopper is a switch to the CPU's idle task), ring-buffer overruns.
#pragma once

#include "models/system/machine.h"
#include "scheduler/core/sched_tracepoints.h"
#include "scheduler/core/scheduler.h"
#include "sim/outputs/cpu_miss_sampler.h"
#include "sim/outputs/trace_settings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::sim {

class sched_event_log final : public scheduler::sched_tracepoints {
public:
    enum class kind : std::uint8_t {
        sched_switch,
        sched_waking,
        sched_wakeup,
        sched_wakeup_new,
        sched_migrate_task,
        sched_process_fork,
        sched_process_exit,
        counter, // a cache-miss counter sample
    };
    // sched_switch's prev_state: R (yielded, or the idle task), R+ (preempted), S (blocked), X (exited).
    enum class prev_state : std::uint8_t { runnable, preempted, sleeping, dead };
    // A task as the event's fields print it.
    struct traced_task {
        int pid = 0; // 0: a CPU's idle task
        int tgid = 0;
        int prio = 120;
        std::string comm; // swapper/<cpu> for an idle task
    };
    struct event {
        scheduler::nsec t = 0;
        std::uint64_t seq = 0; // recording order
        unsigned cpu = 0;
        kind what = kind::sched_switch;
        traced_task current; // the task running on `cpu`
        // sched_switch: prev; sched_waking / sched_wakeup(_new) / sched_migrate_task / sched_process_exit:
        // the task; sched_process_fork: the parent.
        traced_task task;
        traced_task other;                       // sched_switch: next; sched_process_fork: the child
        prev_state state = prev_state::runnable; // sched_switch
        unsigned target_cpu = 0;  // sched_waking / sched_wakeup(_new): target_cpu; migrate: orig_cpu
        unsigned dest_cpu = 0;    // sched_migrate_task
        const char* counter = ""; // counter: "L1d misses" or "L3 misses"
        std::uint64_t value = 0;  // counter: misses since the CPU's previous sample
    };

    sched_event_log(const scheduler::scheduler& s, models::machine& m, const trace_settings& settings);

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

    unsigned num_cpus() const { return num_cpus_; }
    scheduler::nsec start() const { return settings_.start_ns; } // the window's start
    std::size_t size() const { return events_.size(); }
    // Every record, sorted by time (ties in recording order).
    std::vector<const event*> in_time_order() const;

private:
    bool in_window(scheduler::nsec t) const {
        return t >= settings_.start_ns && (settings_.end_ns == 0 || t < settings_.end_ns);
    }
    // A new record of `what` on `cpu` at `t`, with the task running there.
    event& record(unsigned cpu, scheduler::nsec t, kind what);
    void sample_counters(unsigned cpu, scheduler::nsec t);

    const scheduler::scheduler& s_;
    trace_settings settings_;
    unsigned num_cpus_;
    std::vector<event> events_;
    // The task try_to_wake_up is placing and the wakeup's time (for its sched_migrate_task).
    const scheduler::task* waking_ = nullptr;
    scheduler::nsec waking_now_ = 0;
    cpu_miss_sampler sampler_;
};

} // namespace warmsched::sim
