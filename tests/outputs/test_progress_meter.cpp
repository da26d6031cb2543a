// The progress line's time left: the speed over the last 10 wall seconds, so that a run whose speed
// changes (a fork storm, then a steady state) gets an estimate that follows it. Issue 19 measured the
// estimate from the start at "ETA 1 s" 6.4 s into a run that ended at 9.7 s.
#include "sim/outputs/progress_meter.h"

#include "scheduler/task/task.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

using warmsched::sim::speed_window;

TEST_CASE("progress ETA: the speed of the last 10 wall seconds, not the average since the start") {
    speed_window w(10);
    CHECK(w.eta(1.0) < 0); // no speed before two samples
    // 20 wall seconds at 0.01 simulated s per wall s, then 10 at 0.002 (the run slowed down 5x).
    double sim = 0;
    for (int t = 0; t <= 20; ++t) {
        w.add(t, sim);
        if (t < 20) sim += 0.01;
    }
    CHECK(w.speed() == Approx(0.01));
    for (int t = 21; t <= 30; ++t) {
        sim += 0.002;
        w.add(t, sim);
    }
    CHECK(w.speed() == Approx(0.002)); // the window holds only the slow part
    // 0.02 simulated s left: 10 s at the current speed; the average since the start (0.22 / 30) says 2.7 s.
    CHECK(w.eta(sim + 0.02) == Approx(10.0));
    CHECK(w.eta(sim - 1) == 0); // past the end: nothing left
}

namespace {
// Lines the meter printed (each starts with a carriage return).
std::vector<std::string> printed(const std::string& s) {
    std::vector<std::string> v;
    for (std::size_t i = s.find('\r'); i != std::string::npos;) {
        const std::size_t next = s.find('\r', i + 1);
        v.push_back(s.substr(i + 1, next == std::string::npos ? std::string::npos : next - i - 1));
        i = next;
    }
    return v;
}
} // namespace

TEST_CASE("progress line: refreshed once a wall second from any scheduler event, not every 64 ticks") {
    std::ostringstream err;
    double wall = 100;
    warmsched::sim::progress_meter m(err, 0, [&] { return wall; });
    warmsched::scheduler::task t;
    // A slow run: one switch per 0.5 wall s, no tick at all. Nothing in the first 2 s, then one line a second.
    for (int i = 1; i <= 12; ++i) {
        wall += 0.5;
        m.sched_switch(0, static_cast<warmsched::scheduler::nsec>(i) * 1000, false, t, t);
    }
    const auto lines = printed(err.str());
    CHECK(lines.size() == 5); // at 2, 3, 4, 5, 6 wall s
    CHECK(lines.front().find("simulated 0.000004 s, 2.0 s wall (runs until the workloads end)") != std::string::npos);
    m.clear();
}

TEST_CASE("progress line: the time left once the workloads' own end is known") {
    std::ostringstream err;
    double wall = 0;
    warmsched::sim::progress_meter m(err, 0, [&] { return wall; });
    m.set_end_ns(100'000'000); // schbench -r 0.1
    // 0.01 simulated s per wall s.
    for (int i = 1; i <= 4; ++i) {
        wall = i;
        m.sched_tick(0, static_cast<warmsched::scheduler::nsec>(i) * 10'000'000);
    }
    const auto lines = printed(err.str());
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].find("simulated 0.020000 of 0.100000 s (20%), 2.0 s wall, ETA ?") != std::string::npos);
    CHECK(lines[2].find("simulated 0.040000 of 0.100000 s (40%), 4.0 s wall, ETA 6 s") != std::string::npos);
    m.clear();
}
