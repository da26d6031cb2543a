// A periodic wakeup as programs make it with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next):
// the expiries lie on a fixed grid (start + k x period) rather than drifting by each wakeup's lateness,
// and each wakeup's latency is the time the task ran again minus the expiry it asked for. It is the
// timing kernel of cyclictest and of rt-app's `timer` event, shared by both. What a program does when it
// is already past its next expiry differs, so that is a policy:
//   skip_missed -- cyclictest: next += interval, then while (now > next) next += interval;
//   catch_up    -- rt-app absolute timer: next += period; if already past, no sleep (latency 0), and
//                  the next expiries stay on the grid, so the task runs back to back until caught up;
//   restart     -- rt-app relative timer: like catch_up, but a late task restarts the grid from now.
// Time is simulated nanoseconds (CLOCK_MONOTONIC of the simulated machine). Timer slack and the
// hrtimer's own expiry granularity are not modelled (the kernel's timer fires at the expiry).
//
// Use in a program's next():
//     if (t.sleeping()) record(t.woke(ctx.now));        // after the sleep_until returned
//     ... the period's work ...
//     if (auto o = t.arm(ctx.now)) return *o;           // op::sleep_until(expiry), unless already past
#pragma once

#include "workloads/kernel/program.h"

#include <cstdint>
#include <optional>

namespace warmsched::workloads {

class periodic_timer {
public:
    enum class overrun { skip_missed, catch_up, restart };

    periodic_timer() = default;
    periodic_timer(scheduler::nsec period, overrun policy) : period_(period), policy_(policy) {}

    // Places the first expiry at `first_expiry` (cyclictest: now + interval at the thread's start; rt-app:
    // the time of the first timer event, whose first sleep is one period).
    void start(scheduler::nsec first_expiry) {
        next_ = first_expiry;
        started_ = true;
    }
    bool started() const { return started_; }
    scheduler::nsec period() const { return period_; }
    scheduler::nsec expiry() const { return next_; } // the expiry the next sleep waits for

    // Before the period's sleep at time `now`: the sleep to hand the kernel, or nothing when the expiry has
    // already passed (catch_up / restart: the missed wakeup counts with latency 0 and the grid advances;
    // skip_missed sleeps anyway: the kernel returns at once and woke() records the lateness).
    std::optional<op> arm(scheduler::nsec now) {
        if (now < next_ || policy_ == overrun::skip_missed) {
            sleeping_ = true;
            slack_ = static_cast<std::int64_t>(next_) - static_cast<std::int64_t>(now);
            return op::sleep_until(next_);
        }
        slack_ = static_cast<std::int64_t>(next_) - static_cast<std::int64_t>(now);
        ++late_;
        record(0);
        next_ = policy_ == overrun::restart ? now + period_ : next_ + period_;
        return std::nullopt;
    }
    bool sleeping() const { return sleeping_; }

    // After the sleep returned at `now`: records and returns the wakeup latency, and moves to the next
    // expiry by the policy.
    scheduler::nsec woke(scheduler::nsec now) {
        sleeping_ = false;
        const scheduler::nsec latency = now > next_ ? now - next_ : 0;
        record(latency);
        next_ += period_;
        if (policy_ == overrun::skip_missed)
            while (now > next_) next_ += period_;
        return latency;
    }

    // Statistics of the wakeups so far (latencies in ns).
    std::uint64_t wakeups() const { return count_; }
    std::uint64_t late_starts() const { return late_; } // catch_up / restart: periods begun past expiry
    scheduler::nsec min_latency() const { return min_; }
    scheduler::nsec max_latency() const { return max_; }
    scheduler::nsec last_latency() const { return last_; }
    double mean_latency() const {
        return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
    }
    // rt-app's slack: expiry minus the time the period's work ended (negative: overran the period).
    std::int64_t slack() const { return slack_; }

private:
    void record(scheduler::nsec latency) {
        if (count_ == 0 || latency < min_) min_ = latency;
        if (latency > max_) max_ = latency;
        last_ = latency;
        sum_ += latency;
        ++count_;
    }

    scheduler::nsec period_ = 0;
    overrun policy_ = overrun::skip_missed;
    scheduler::nsec next_ = 0;
    bool started_ = false, sleeping_ = false;
    std::uint64_t count_ = 0, late_ = 0;
    scheduler::nsec min_ = 0, max_ = 0, last_ = 0, sum_ = 0;
    std::int64_t slack_ = 0;
};

} // namespace warmsched::workloads
