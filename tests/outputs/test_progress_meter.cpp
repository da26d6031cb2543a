// The progress line's time left: the speed over the last 10 wall seconds, so that a run whose speed
// changes (a fork storm, then a steady state) gets an estimate that follows it. Issue 19 measured the
// estimate from the start at "ETA 1 s" 6.4 s into a run that ended at 9.7 s.
#include "sim/outputs/progress_meter.h"

#include <catch2/catch.hpp>

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
