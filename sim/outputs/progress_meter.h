// A progress line on stderr for long runs: simulated time reached, wall time, and (for runs with a
// duration) the wall time left at the current speed -- simulated seconds per wall second over the last
// 10 wall seconds (speed_window), not since the start: a run's speed changes (a fork storm, then a
// steady state), and an estimate from the start lags it (issue 19: "ETA 1 s" at 6.4 s of a 9.7 s run). The
// end is the experiment's duration, else the one the workloads' own options give (schbench -r, tbench -t,
// workload::expected_end_ns), else unknown. It is rewritten in place once a second of wall time, checked
// at every tick, switch and wakeup the scheduler traces (no SystemC event of its own: an extra event would
// move the end of a run that stops when its workloads end; counting ticks alone left a slow run's line
// 20 s old), starting after 2 s of wall time, and cleared at the end. It is only created when stderr is a
// terminal, so runs whose stderr goes to a file or pipe are untouched. Also here: a tee that lets the
// progress meter and the trace recorders all observe the scheduler.
#pragma once

#include "scheduler/core/sched_tracepoints.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <ostream>
#include <utility>

namespace warmsched::sim {

// The speed over a moving window of wall time: samples (wall s, simulated s) older than `window_s`
// before the newest are dropped (one is kept before the window, so that it spans it).
class speed_window {
public:
    explicit speed_window(double window_s = 10) : window_s_(window_s) {}
    void add(double wall_s, double sim_s);
    // Simulated seconds per wall second over the window; 0 before two samples.
    double speed() const;
    // Wall seconds to reach `total_sim_s` at that speed; negative when unknown.
    double eta(double total_sim_s) const;

private:
    double window_s_;
    std::deque<std::pair<double, double>> samples_;
};

class progress_meter final : public scheduler::sched_tracepoints {
public:
    // Wall seconds since some fixed point (steady_clock; a test gives its own).
    using wall_clock = std::function<double()>;
    // `end_ns`: the run's length (0: unknown, until the workloads end: no ETA).
    progress_meter(std::ostream& err, std::uint64_t end_ns, wall_clock clock = steady_seconds);
    ~progress_meter() override { clear(); }
    // Is `fd` a terminal (the meter is only wanted then)?
    static bool wanted(int fd);
    // The end became known (the workloads' own: workload::expected_end_ns).
    void set_end_ns(std::uint64_t end_ns) { end_ns_ = end_ns; }
    static double steady_seconds();

    void sched_tick(unsigned, scheduler::nsec now) override { observe(now); }
    void sched_switch(unsigned, scheduler::nsec now, bool, const scheduler::task&,
                      const scheduler::task&) override {
        observe(now);
    }
    void sched_waking(unsigned, scheduler::nsec, const scheduler::task&) override {}
    void sched_wakeup(unsigned, scheduler::nsec now, const scheduler::task&, bool) override { observe(now); }
    void sched_migrate_task(unsigned, scheduler::nsec, const scheduler::task&, unsigned, unsigned) override {}
    void sched_process_fork(unsigned, scheduler::nsec, const scheduler::task&,
                            const scheduler::task&) override {}
    void sched_process_exit(unsigned, scheduler::nsec, const scheduler::task&) override {}
    // Erases the line (before the run's closing message).
    void clear();

private:
    // Prints the line when a second of wall time has passed since the last one. `now`: a CPU's local
    // time (they run ahead of each other by up to a quantum: the line shows the furthest seen).
    void observe(scheduler::nsec now);

    std::ostream& err_;
    std::uint64_t end_ns_;
    wall_clock clock_;
    double start_, next_print_;
    scheduler::nsec furthest_ = 0;
    bool shown_ = false;
    speed_window speed_;
};

// Forwards every tracepoint to two observers (either may be null).
class tracepoint_tee final : public scheduler::sched_tracepoints {
public:
    tracepoint_tee(scheduler::sched_tracepoints* a, scheduler::sched_tracepoints* b) : a_(a), b_(b) {}
    void sched_switch(unsigned c, scheduler::nsec t, bool pre, const scheduler::task& p,
                      const scheduler::task& n) override {
        if (a_) a_->sched_switch(c, t, pre, p, n);
        if (b_) b_->sched_switch(c, t, pre, p, n);
    }
    void sched_waking(unsigned c, scheduler::nsec t, const scheduler::task& p) override {
        if (a_) a_->sched_waking(c, t, p);
        if (b_) b_->sched_waking(c, t, p);
    }
    void sched_wakeup(unsigned c, scheduler::nsec t, const scheduler::task& p, bool is_new) override {
        if (a_) a_->sched_wakeup(c, t, p, is_new);
        if (b_) b_->sched_wakeup(c, t, p, is_new);
    }
    void sched_migrate_task(unsigned c, scheduler::nsec t, const scheduler::task& p, unsigned o,
                            unsigned d) override {
        if (a_) a_->sched_migrate_task(c, t, p, o, d);
        if (b_) b_->sched_migrate_task(c, t, p, o, d);
    }
    void sched_process_fork(unsigned c, scheduler::nsec t, const scheduler::task& p,
                            const scheduler::task& ch) override {
        if (a_) a_->sched_process_fork(c, t, p, ch);
        if (b_) b_->sched_process_fork(c, t, p, ch);
    }
    void sched_process_exit(unsigned c, scheduler::nsec t, const scheduler::task& p) override {
        if (a_) a_->sched_process_exit(c, t, p);
        if (b_) b_->sched_process_exit(c, t, p);
    }
    void sched_tick(unsigned c, scheduler::nsec t) override {
        if (a_) a_->sched_tick(c, t);
        if (b_) b_->sched_tick(c, t);
    }

private:
    scheduler::sched_tracepoints *a_, *b_;
};

} // namespace warmsched::sim
