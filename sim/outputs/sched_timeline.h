// The run as a timeline, recorded from the scheduler's tracepoints for the writers that draw it rather
// than list it (trace.json for chrome://tracing and Perfetto, the VCD for GTKWave, the plots): which
// task ran on each CPU when (one slice per stint, idle left out), each CPU's run-queue length when it
// changed, per-CPU cache misses (L1d, L2 and L3 misses since the CPU's previous sample, sampled at its
// tick or switch once `counter_interval_ns` has passed, as trace.txt's counters), and every migration
// with its distance (SMT sibling, same LLC, other LLC, other node: as the cost-of-migration report
// classes them). Only events inside the trace window are kept; slices are clipped to it.
// Left out: runnable (waiting) time per task and wakeup edges (trace.txt has them), kernel-only time.
#pragma once

#include "models/system/machine.h"
#include "scheduler/core/sched_tracepoints.h"
#include "scheduler/core/scheduler.h"
#include "sim/outputs/cpu_miss_sampler.h"
#include "sim/outputs/trace_settings.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warmsched::sim {

class sched_timeline final : public scheduler::sched_tracepoints {
public:
    struct slice {
        unsigned cpu;
        scheduler::nsec start, end;
        int pid, tgid;
    };
    struct level { // a CPU's run-queue length from `t` on
        scheduler::nsec t;
        unsigned cpu, nr_running;
    };
    struct misses { // misses on `cpu` since its previous sample
        scheduler::nsec t;
        unsigned cpu;
        std::uint64_t l1d, l2, l3, accesses;
    };
    struct migration {
        scheduler::nsec t;
        int pid;
        unsigned orig, dest;
        int distance; // 0 SMT sibling, 1 same LLC, 2 other LLC, 3 other node
    };
    static const char* distance_name(int d);

    sched_timeline(const scheduler::scheduler& s, models::machine& m, const trace_settings& settings);

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

    // Closes the slices still running at `end` (the end of the run); call once, before reading.
    void finish(scheduler::nsec end);

    unsigned num_cpus() const { return num_cpus_; }
    scheduler::nsec start() const { return settings_.start_ns; }
    scheduler::nsec end() const { return end_; }
    // In time order (slices by start; ties in the order they happened).
    const std::vector<slice>& slices() const { return slices_; }
    const std::vector<level>& levels() const { return levels_; }
    const std::vector<misses>& samples() const { return samples_; }
    const std::vector<migration>& migrations() const { return migrations_; }
    // pid -> comm (as the trace prints it: at most 15 characters, no spaces), of every task seen.
    const std::map<int, std::string>& names() const { return names_; }
    const std::map<int, int>& tgids() const { return tgids_; }

private:
    bool in_window(scheduler::nsec t) const {
        return t >= settings_.start_ns && (settings_.end_ns == 0 || t < settings_.end_ns);
    }
    void name(const scheduler::task& t);
    void note_level(unsigned cpu, scheduler::nsec t);
    void sample(unsigned cpu, scheduler::nsec t);
    void close(unsigned cpu, scheduler::nsec t);

    const scheduler::scheduler& s_;
    trace_settings settings_;
    unsigned num_cpus_;
    cpu_miss_sampler sampler_;
    scheduler::nsec end_ = 0;
    std::vector<slice> slices_;
    std::vector<level> levels_;
    std::vector<misses> samples_;
    std::vector<migration> migrations_;
    std::map<int, std::string> names_;
    std::map<int, int> tgids_;
    // Per CPU: the running task (pid 0: idle) and since when, the last run-queue length written.
    std::vector<int> running_pid_, running_tgid_;
    std::vector<scheduler::nsec> running_since_;
    std::vector<int> last_level_;
    const scheduler::task* waking_ = nullptr;
    scheduler::nsec waking_now_ = 0;
};

} // namespace warmsched::sim
