// A progress line on stderr for long runs: simulated time reached, wall time, and (for runs with a
// duration) the wall time left at the current speed -- simulated seconds per wall second over the last
// 10 wall seconds (speed_window), not since the start: a run's speed changes (a fork storm, then a
// steady state), and an estimate from the start lags it (issue 19: "ETA 1 s" at 6.4 s of a 9.7 s run). It is
// rewritten in place about once a second from the scheduler's tick tracepoint (no SystemC event of its own:
// an extra event would move the end of a run that stops when its workloads end), starting after 2 s of wall
// time, and cleared at the end. It is only created when stderr is a terminal, so runs whose stderr goes to a
// file or pipe are untouched. Also here: a tee that lets the progress meter and the trace recorders all
// observe the scheduler.
#pragma once

#include "scheduler/core/sched_tracepoints.h"

#include <chrono>
#include <cstdint>
#include <deque>
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
    // `duration_ns`: the run's length (0: until the workloads end, no ETA).
    progress_meter(std::ostream& err, std::uint64_t duration_ns);
    ~progress_meter() override { clear(); }
    // Is `fd` a terminal (the meter is only wanted then)?
    static bool wanted(int fd);

    void sched_tick(unsigned cpu, scheduler::nsec now) override;
    void sched_switch(unsigned, scheduler::nsec, bool, const scheduler::task&,
                      const scheduler::task&) override {}
    void sched_waking(unsigned, scheduler::nsec, const scheduler::task&) override {}
    void sched_wakeup(unsigned, scheduler::nsec, const scheduler::task&, bool) override {}
    void sched_migrate_task(unsigned, scheduler::nsec, const scheduler::task&, unsigned, unsigned) override {}
    void sched_process_fork(unsigned, scheduler::nsec, const scheduler::task&,
                            const scheduler::task&) override {}
    void sched_process_exit(unsigned, scheduler::nsec, const scheduler::task&) override {}
    // Erases the line (before the run's closing message).
    void clear();

private:
    std::ostream& err_;
    std::uint64_t duration_ns_;
    std::chrono::steady_clock::time_point start_, next_print_;
    std::uint64_t ticks_ = 0;
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
