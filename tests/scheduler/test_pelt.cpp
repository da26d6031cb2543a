// PELT (reference/scheduler/04-load-balance.md, "PELT"): 1024 ns periods, y^32 = 1/2, LOAD_AVG_MAX
// 47742; task and queue averages; a new task's initial utilization; removal at migration.
#include "scheduler/fair/load_avg.h"
#include "scheduler/fair/pelt.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace warmsched::scheduler;

namespace {
constexpr nsec ms = 1'000'000;
// Runs (running) or sleeps an entity alone on a queue from `from` to `to` in 1 ms steps.
void advance(sched_avg& sa, nsec from, nsec to, std::uint64_t weight, bool running) {
    for (nsec t = from + ms; t <= to; t += ms)
        if (pelt_update_sum(t, sa, running ? 1 : 0, running ? 1 : 0, running)) pelt_update_avg(sa, weight);
}
} // namespace

TEST_CASE("PELT decays by y per 1024 ns period with y^32 = 1/2") {
    const std::uint64_t v = 1u << 20;
    CHECK(pelt_decay(v, 32) == Approx(v / 2).margin(1));
    CHECK(pelt_decay(v, 64) == Approx(v / 4).margin(1));
    for (unsigned n = 1; n < 32; ++n)
        CHECK(pelt_decay(v, n) == Approx(v * std::pow(0.5, n / 32.0)).margin(1.0));
    CHECK(pelt_decay(v, 32 * 63 + 1) == 0);
}

TEST_CASE("PELT: a task running from idle reaches half utilization in 32 ms and full in a few hundred") {
    sched_avg sa;
    sa.last_update_time = 1;                      // attached
    advance(sa, 0, 32 * 1024 * 1024, 1024, true); // 32 "ms" of 1024 periods of 1024 ns
    CHECK(sa.util_avg == Approx(512).margin(12));
    CHECK(sa.load_avg == Approx(512).margin(12));
    advance(sa, 32 * 1024 * 1024, 400 * ms, 1024, true);
    CHECK(sa.util_avg >= 1000);
    CHECK(sa.runnable_avg >= 1000);
    // The geometric series saturates at LOAD_AVG_MAX per unit.
    CHECK(sa.util_sum / 1024 <= load_avg_max);
    CHECK(sa.util_sum / 1024 >= load_avg_max - 1024);
}

TEST_CASE("PELT: a sleeping task's utilization halves every 32 ms") {
    sched_avg sa;
    advance(sa, 0, 500 * ms, 1024, true);
    const double full = static_cast<double>(sa.util_avg);
    const nsec half_life = 32 * 1024 * 1024; // 32 x 1024 periods of 1024 ns
    advance(sa, 500 * ms, 500 * ms + half_life, 1024, false);
    CHECK(static_cast<double>(sa.util_avg) == Approx(full / 2).epsilon(0.03));
    CHECK(sa.load_avg == Approx(full / 2).epsilon(0.03));
}

TEST_CASE("PELT: a task running half of every 8 ms settles near half utilization") {
    sched_avg sa;
    for (nsec t = 0; t < 800 * ms; t += 8 * ms) {
        advance(sa, t, t + 4 * ms, 1024, true);
        advance(sa, t + 4 * ms, t + 8 * ms, 1024, false);
    }
    CHECK(sa.util_avg == Approx(512).margin(60));
}

TEST_CASE("PELT: a new task gets its weight as load and a capped share of the queue's utilization") {
    runqueue rq;
    sched_entity se;
    se.weight = 1024;
    init_entity_runnable_average(se);
    CHECK(se.avg.load_avg == 1024);
    post_init_entity_util_avg(rq, se); // empty queue: half of the spare capacity
    CHECK(se.avg.util_avg == 512);
    rq.cfs.avg.util_avg = 600;
    rq.cfs.avg.load_avg = 1024;
    sched_entity se2;
    se2.weight = 1024;
    init_entity_runnable_average(se2);
    post_init_entity_util_avg(rq, se2); // 600 * 1024 / 1025 = 599, capped at (1024 - 600) / 2 = 212
    CHECK(se2.avg.util_avg == 212);
    CHECK(se2.avg.runnable_avg == 212);
}

TEST_CASE("PELT: a queue's averages are its entities', a migrating task's are removed at the next update") {
    runqueue rq;
    task p;
    p.set_nice(0);
    init_entity_runnable_average(p.se);
    post_init_entity_util_avg(rq, p.se);
    rq.clock = 10 * ms;
    p.se.on_rq = true;
    update_load_avg(rq, p.se, LOAD_AVG_DO_ATTACH);
    CHECK(rq.cfs.avg.load_avg == p.se.avg.load_avg);
    CHECK(rq.cfs.avg.util_avg == p.se.avg.util_avg);
    CHECK(cpu_load(rq) == 1024);
    CHECK(task_h_load(rq, p) == 1024 * 1024 / 1025);
    p.se.on_rq = false;
    remove_entity_load_avg(rq, p.se);
    CHECK_FALSE(p.se.avg.attached); // re-attaches where it is enqueued next
    CHECK(rq.cfs.removed.nr == 1);
    update_blocked_averages(rq, 12 * ms);
    CHECK(cpu_load(rq) == 0);
    CHECK(rq.cfs.avg.util_avg == 0);
}

TEST_CASE("util_est follows utilization up at once and down by a quarter of the gap") {
    task p;
    p.se.avg.util_avg = 400;
    util_est_update(p);
    CHECK(task_util_est(p) == 400);
    p.se.avg.util_avg = 800;
    util_est_update(p);
    CHECK(p.se.avg.util_est_ewma == 800);
    p.se.avg.util_avg = 0;
    util_est_update(p);
    CHECK(p.se.avg.util_est_ewma == 600);
    CHECK(task_util_est(p) == 600);
    runqueue rq;
    util_est_enqueue(rq, p);
    rq.cfs.avg.util_avg = 100;
    CHECK(cpu_util(rq) == 600);
    util_est_dequeue(rq, p);
    CHECK(cpu_util(rq) == 100);
}
