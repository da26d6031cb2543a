// The hierarchy of group scheduling (reference/scheduler/01 "State", 02 group entities, 06 "per CPU a
// cfs_rq and a group entity"): where a grouped task is queued, how the pick walks down, wakeup
// preemption between the entities that share a queue (find_matching_se), EEVDF's group slice and
// delayed group entities, h_load, and that cgroups nobody uses change nothing. The scheduler alone
// (sched_harness: 8 CPUs, one LLC; tunables of f = 4: CFS latency 24 ms, wakeup granularity 4 ms,
// EEVDF base slice 3 ms).
#include "scheduler/fair/load_avg.h"
#include "support/cgroup_specs.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

using namespace warmsched;
using scheduler::kernel_version;
using test::group;
using test::ms;
using test::tree;
using test::us;

namespace {

constexpr auto cfs = kernel_version::cfs_v5_15;
constexpr auto eevdf = kernel_version::eevdf_v6_12;

} // namespace

TEST_CASE(
    "Group hierarchy: a task of /a/b is queued on b's queue whose entity is on a's queue and a's on the "
    "root") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        h.s->set_cgroups(tree({group("/a", 0), group("/a/b", 1)}));
        auto& t = h.add("t", 2, 0);
        h.s->attach_task(t, 2, 0);
        const auto* b = h.s->group_rq(2, 2);
        const auto* a = h.s->group_rq(2, 1);
        REQUIRE(b);
        REQUIRE(a);
        CHECK(t.se.cfs_rq == &b->q);
        CHECK(t.se.parent == &b->se);
        CHECK(b->se.cfs_rq == &a->q);
        CHECK(b->se.parent == &a->se);
        CHECK(a->se.cfs_rq == nullptr); // the root queue
        CHECK(t.se.depth == 2);
        CHECK(b->se.depth == 1);
        CHECK(a->se.depth == 0);
        CHECK(b->q.h_nr_running == 1);
        CHECK(a->q.h_nr_running == 1);
        CHECK(h.q(2).h_nr_running == 1);
        CHECK(h.q(2).nr_running == 1); // one entity on the root queue: a's
        CHECK(a->q.nr_running == 1);   // b's
        // Allocated lazily: nothing of the groups on the CPUs their tasks never used.
        for (unsigned c = 0; c < 8; ++c)
            if (c != 2) CHECK(h.s->group_rq(c, 1) == nullptr);
        // Running: each level's curr is the chain's entity.
        CHECK(&h.schedule(2, 0) == &t);
        CHECK(h.q(2).curr == &a->se);
        CHECK(a->q.curr == &b->se);
        CHECK(b->q.curr == &t.se);
        // Alone on every level it is eligible, so its sleep takes every group entity off (EEVDF too).
        h.ticks(2, 0, 8 * ms);
        h.block(2, 8 * ms);
        CHECK_FALSE(t.on_rq);
        CHECK_FALSE(b->se.on_rq);
        CHECK_FALSE(a->se.on_rq);
        CHECK(h.q(2).nr_running == 0);
        CHECK(h.q(2).h_nr_running == 0);
        CHECK(h.rq(2).nr_running == 0);
    }
}

TEST_CASE("Group hierarchy: the pick walks down so /a's two hogs share a's half of the CPU") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        h.s->set_cgroups(tree({group("/a", 0), group("/b", 0)}));
        auto& a1 = h.add("a1", 0, 0);
        auto& a2 = h.add("a2", 0, 0);
        auto& b1 = h.add("b1", 0, 0);
        h.s->attach_task(a1, 1, 0);
        h.s->attach_task(a2, 1, 0);
        h.s->attach_task(b1, 2, 0);
        h.schedule(0, 0);
        h.ticks(0, 0, 2000 * ms);
        const double total =
            static_cast<double>(a1.se.sum_exec_runtime + a2.se.sum_exec_runtime + b1.se.sum_exec_runtime);
        CHECK(static_cast<double>(b1.se.sum_exec_runtime) / total == Approx(0.5).margin(0.01));
        CHECK(static_cast<double>(a1.se.sum_exec_runtime) / total == Approx(0.25).margin(0.01));
        CHECK(static_cast<double>(a2.se.sum_exec_runtime) / total == Approx(0.25).margin(0.01));
        // Two entities on the root queue (the groups'), not three tasks.
        CHECK(h.q(0).nr_running == 2);
        CHECK(h.q(0).h_nr_running == 3);
        CHECK(h.s->group_rq(0, 1)->q.nr_running == 2);
    }
}

// CFS (01, wakeup step 6): a wakeup is decided between the entities at the common level. /a (cpu.weight
// 10000, so its entity's vruntime runs 100 times slower than its task's) and /b (100). W in /a ran
// 100 ms alone, then B in /b ran 50 ms: W's own vruntime (100 ms in a's queue) is far ahead of B's
// (50 ms in b's), so comparing the tasks would not preempt; but a's entity re-enters the root queue
// with sleeper credit, 12 ms before b's entity, which is more than the wakeup granularity.
TEST_CASE("Group hierarchy: CFS wakeup preemption compares the group entities that share the root queue") {
    test::sched_harness h(cfs);
    h.s->set_cgroups(tree({group("/a", 0, 10000), group("/b", 0, 100)}));
    auto& w = h.add("w", 0, 0);
    h.s->attach_task(w, 1, 0);
    CHECK(&h.schedule(0, 0) == &w);
    h.ticks(0, 0, 100 * ms);
    auto& b = h.add("b", 0, 100 * ms);
    h.s->attach_task(b, 2, 100 * ms);
    CHECK(&h.block(0, 100 * ms) == &b);
    h.ticks(0, 100 * ms, 150 * ms);
    REQUIRE(h.curr(0) == &b);
    h.wake(w, 0, 150 * ms);
    const auto* ga = h.s->group_rq(0, 1);
    const auto* gb = h.s->group_rq(0, 2);
    CHECK(w.se.vruntime > b.se.vruntime);                       // the tasks: w would not preempt
    CHECK(gb->se.vruntime - ga->se.vruntime >= 11 * test::vms); // the groups: a is 12 ms behind
    CHECK(h.s->need_resched(0));
    CHECK(&h.schedule(0, 150 * ms) == &w);
}

// EEVDF (02 "A group entity takes the minimum slice"): a group's entity requests the shortest slice of
// the entities queued below it, and takes the next shortest when that one leaves.
TEST_CASE("Group hierarchy: an EEVDF group entity requests the shortest slice queued in its group") {
    test::sched_harness h(eevdf);
    h.s->set_cgroups(tree({group("/a", 0)}));
    auto& hog = h.add("hog", 0, 0);
    auto& t = h.add("t", 0, 0);
    auto& s = h.make("short", 0);
    s.se.custom_slice = 100 * us; // sched_setattr(sched_runtime = 100 us)
    h.s->add_initial_task(s, 0, 0);
    h.s->attach_task(t, 1, 0);
    h.s->attach_task(s, 1, 0);
    const auto* a = h.s->group_rq(0, 1);
    REQUIRE(a);
    CHECK(a->se.slice == 100 * us);
    CHECK(hog.se.slice == 3 * ms);
    // Run until the short task is current, then it sleeps: a's entity goes back to t's 3 ms.
    h.schedule(0, 0);
    scheduler::nsec now = 0;
    while (h.curr(0) != &s && now < 200 * ms) h.tick(0, now += h.cfg.tick_ns());
    REQUIRE(h.curr(0) == &s);
    h.block(0, now);
    if (!s.on_rq) CHECK(a->se.slice == 3 * ms); // (a delayed sleeper still counts)
    CHECK(a->q.min_slice() == (s.on_rq ? 100 * us : 3 * ms));
}

// EEVDF delayed dequeue of a group entity (02, delayed dequeue): the only task of /a sleeps while a's
// entity is ineligible at the root -- the task leaves a's queue, a's entity stays queued as a delayed
// sleeper, and is dequeued for real when the pick reaches it.
TEST_CASE("Group hierarchy: an ineligible EEVDF group entity whose queue empties is delayed until picked") {
    // /a has cpu.weight 1: its entity weighs 10, so its vruntime runs ~100 times faster than the
    // hog's and 1 ms of running takes it well past the average.
    test::sched_harness h(eevdf);
    h.s->set_cgroups(tree({group("/a", 0, 1)}));
    auto& hog = h.add("hog", 0, 0);
    auto& x = h.add("x", 0, 0);
    h.s->attach_task(x, 1, 0);
    const auto* a = h.s->group_rq(0, 1);
    h.schedule(0, 0);
    scheduler::nsec now = 0;
    while (h.curr(0) != &x && now < 500 * ms) h.tick(0, now += h.cfg.tick_ns());
    REQUIRE(h.curr(0) == &x);
    REQUIRE(a->se.weight == 10);
    now += 1 * ms;
    CHECK(&h.block(0, now) == &hog);
    CHECK_FALSE(x.on_rq);       // alone, so eligible, in a's queue: dequeued
    CHECK(a->se.on_rq);         // a's entity stays on the root queue...
    CHECK(a->se.sched_delayed); // ...as a delayed sleeper
    CHECK(h.q(0).nr_running == 2);
    CHECK(h.q(0).h_nr_running == 1);
    CHECK(h.rq(0).nr_running == 1);
    // The hog runs until a's entity has its lag back and is picked, which dequeues it.
    h.ticks(0, now, now + 400 * ms);
    CHECK_FALSE(a->se.on_rq);
    CHECK_FALSE(a->se.sched_delayed);
    CHECK(h.q(0).nr_running == 1);
    CHECK(h.curr(0) == &hog);
}

// h_load (04, detach_tasks; load_avg.h): a task's load as the balancer sees it is its share of its
// group's share of the root load. /g holds 4 hogs beside a root hog on CPU 0: g's entity and the root
// hog each carry about half of CPU 0's load, and each of g's hogs a quarter of g's half.
TEST_CASE("Group hierarchy: task_h_load of a hog in a group of four is a quarter of a root hog's") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        h.s->set_cgroups(tree({group("/g", 0)}));
        auto& root_hog = h.add("root", 0, 0);
        std::vector<scheduler::task*> g;
        for (int i = 0; i < 4; ++i) {
            g.push_back(&h.add("g" + std::to_string(i), 0, 0));
            h.s->attach_task(*g.back(), 1, 0);
        }
        h.schedule(0, 0);
        h.ticks(0, 0, 1000 * ms);
        const double root_h = static_cast<double>(scheduler::task_h_load(h.rq(0), root_hog));
        CHECK(root_h > 400);
        for (auto* p : g)
            CHECK(static_cast<double>(scheduler::task_h_load(h.rq(0), *p)) / root_h ==
                  Approx(0.25).margin(0.03));
        // the group entity's load stands for its four tasks at the root
        CHECK(static_cast<double>(h.s->group_rq(0, 1)->se.avg.load_avg) ==
              Approx(static_cast<double>(root_hog.se.avg.load_avg)).epsilon(0.1));
    }
}

// Cgroups that no task uses change nothing: the same tasks give the same run times and vruntimes.
TEST_CASE("Group hierarchy: a run whose tasks all stay in the root is identical with and without cgroups") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        std::vector<scheduler::nsec> runtime[2];
        std::vector<std::int64_t> vruntime[2];
        for (int with = 0; with < 2; ++with) {
            test::sched_harness h(k);
            if (with) h.s->set_cgroups(tree({group("/a", 0), group("/a/b", 1, 300)}));
            auto& t1 = h.add("t1", 0, 0);
            auto& t2 = h.add("t2", 0, 0, 5);
            auto& t3 = h.add("t3", 0, 0);
            h.schedule(0, 0);
            h.ticks(0, 0, 50 * ms);
            h.block(0, 50 * ms);
            h.ticks(0, 50 * ms, 100 * ms);
            for (auto* t : {&t1, &t2, &t3}) {
                runtime[with].push_back(t->se.sum_exec_runtime);
                vruntime[with].push_back(t->se.vruntime);
            }
            CHECK(h.s->group_rq(0, with ? 1 : 0) == nullptr);
        }
        CHECK(runtime[0] == runtime[1]);
        CHECK(vruntime[0] == vruntime[1]);
    }
}

// One group holding every task of a CPU: its entity is alone on the root queue, so its queue orders the
// tasks exactly as the root queue would -- the same switches, run times and (relative) virtual times.
TEST_CASE("Group hierarchy: one group holding all of a CPU's tasks schedules them as the root queue would") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        std::vector<std::uint64_t> trace[2];
        std::uint64_t util[2], runnable[2];
        for (int grouped = 0; grouped < 2; ++grouped) {
            test::sched_harness h(k);
            h.s->set_cgroups(tree({group("/a", 0)}));
            std::vector<scheduler::task*> t;
            for (int i = 0; i < 4; ++i) { // created in the group (or the root)
                t.push_back(&h.make("t" + std::to_string(i), 0, i == 3 ? 5 : 0));
                t.back()->cgroup = grouped ? 1 : 0;
                h.s->add_initial_task(*t.back(), 0, 0);
            }
            h.schedule(0, 0);
            scheduler::nsec now = 0;
            std::vector<scheduler::task*> asleep;
            for (int step = 1; step <= 400; ++step) {
                now += 1300 * us; // off the tick grid: blocks and wakeups between ticks
                if (step % 3 == 0 && !h.curr(0)->is_idle) {
                    asleep.push_back(h.curr(0));
                    h.block(0, now);
                } else if (step % 4 == 0 && !asleep.empty()) {
                    h.wake(*asleep.front(), 0, now);
                    asleep.erase(asleep.begin());
                    if (h.s->need_resched(0)) h.schedule(0, now);
                } else {
                    h.tick(0, now);
                }
                trace[grouped].push_back(static_cast<std::uint64_t>(h.curr(0)->pid));
            }
            for (auto* p : t) trace[grouped].push_back(p->se.sum_exec_runtime);
            util[grouped] = h.q(0).avg.util_avg;
            runnable[grouped] = h.q(0).avg.runnable_avg;
        }
        CHECK(trace[0] == trace[1]);
        CAPTURE(util[0], util[1], runnable[0], runnable[1]);
        CHECK(static_cast<double>(util[1]) == Approx(static_cast<double>(util[0])).epsilon(0.02));
        CHECK(static_cast<double>(runnable[1]) == Approx(static_cast<double>(runnable[0])).epsilon(0.02));
    }
}

// PELT through the hierarchy (load_avg.h, propagation): a CPU running a grouped hog shows the same
// utilization and runnable average at its root queue as with the hog in the root, and the load of the
// group's entity, which weighs half the group's shares when the group is split over two CPUs.
TEST_CASE("Group hierarchy: a grouped hog's utilization and runnable average reach the root queue") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        std::uint64_t util[2], runnable[2], load[2];
        for (int grouped = 0; grouped < 2; ++grouped) {
            test::sched_harness h(k);
            h.s->set_cgroups(tree({group("/a", 0)}));
            for (unsigned c = 0; c < 2; ++c) {
                auto& t = h.make("hog" + std::to_string(c), c);
                t.cgroup = grouped ? 1 : 0;
                h.s->add_initial_task(t, c, 0);
                h.schedule(c, 0);
            }
            for (scheduler::nsec now = h.cfg.tick_ns(); now <= 1000 * ms; now += h.cfg.tick_ns()) {
                h.tick(0, now);
                h.tick(1, now);
            }
            util[grouped] = h.q(0).avg.util_avg;
            runnable[grouped] = h.q(0).avg.runnable_avg;
            load[grouped] = h.q(0).avg.load_avg;
        }
        CHECK(util[0] > 1000);
        CHECK(static_cast<double>(util[1]) == Approx(static_cast<double>(util[0])).epsilon(0.01));
        CHECK(static_cast<double>(runnable[1]) == Approx(static_cast<double>(runnable[0])).epsilon(0.01));
        CHECK(static_cast<double>(load[1]) == Approx(static_cast<double>(load[0]) / 2).epsilon(0.02));
    }
}

// CFS bandwidth control on the hierarchy, per-cfs_rq model (06, throttle_cfs_rq / unthrottle_cfs_rq):
// /a (10 ms per 100 ms) holds /a/b with two tasks on CPU 0 beside a root hog. The throttle takes a's
// entity off the root queue; b's entity and both tasks stay queued below it, out of the CPU's counts,
// with their PELT clocks stopped; the refill at the period boundary puts a's entity back.
TEST_CASE("Group hierarchy: a throttle dequeues the group entity with its tasks still queued below it") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        auto a_spec = group("/a", 0);
        a_spec.quota_ns = 10 * ms;
        h.s->set_cgroups(tree({a_spec, group("/a/b", 1)}));
        h.add("root", 0, 0);
        auto& b1 = h.add("b1", 0, 0);
        auto& b2 = h.add("b2", 0, 0);
        h.s->attach_task(b1, 2, 0);
        h.s->attach_task(b2, 2, 0);
        h.schedule(0, 0);
        scheduler::nsec now = 0;
        while (!h.s->bandwidth().state(1, 0)->throttled && now < 90 * ms) h.tick(0, now += h.cfg.tick_ns());
        REQUIRE(h.s->bandwidth().state(1, 0)->throttled);
        h.tick(0, now += h.cfg.tick_ns()); // past the schedule that took it off
        const auto* a = h.s->group_rq(0, 1);
        const auto* b = h.s->group_rq(0, 2);
        CHECK(a->q.throttled);
        CHECK_FALSE(b->q.throttled);
        CHECK(a->q.throttle_count == 1);
        CHECK(b->q.throttle_count == 1);
        CHECK_FALSE(a->se.on_rq);
        CHECK(b->se.on_rq); // still in a's queue
        for (auto* p : {&b1, &b2}) {
            CHECK(p->on_rq);
            CHECK(p->se.on_rq);
            CHECK(h.s->bandwidth().task_throttled(*p));
        }
        CHECK(b->q.h_nr_running == 2);
        CHECK(a->q.h_nr_running == 2);
        CHECK(h.q(0).h_nr_running == 1);
        CHECK(h.rq(0).nr_running == 1);
        CHECK(h.q(0).nr_running == 1);
        CHECK(h.curr(0)->comm == "root");
        // The PELT clock below the throttle stands still.
        const scheduler::nsec frozen = b->q.clock_pelt(h.rq(0).clock);
        h.ticks(0, now, now + 20 * ms);
        now += 20 * ms;
        CHECK(b->q.clock_pelt(h.rq(0).clock) == frozen);
        // The period timer (run from the tick here) refills the pool and puts a's entity back.
        h.ticks(0, now, 104 * ms);
        CHECK_FALSE(h.s->bandwidth().state(1, 0)->throttled);
        CHECK(a->se.on_rq);
        CHECK(a->q.throttle_count == 0);
        CHECK(b->q.throttle_count == 0);
        CHECK(h.q(0).h_nr_running == 3);
        CHECK(h.rq(0).nr_running == 3);
        CHECK(b->q.clock_pelt(h.rq(0).clock) > frozen);
        CHECK(b->q.throttled_clock_pelt_time > 0); // the stopped time is skipped for good
    }
}

// calc_group_shares on PELT load (06: load_i = max(load.weight, load_avg)): /A has a hog on CPU 0 and
// a task on CPU 1 that runs 5 ms of every 10. While that task sleeps, A's queue on CPU 1 is empty but
// its load_avg -- its contribution to tg.load_avg -- stays, so A's entity on CPU 0 keeps weighing well
// under A's full 1024 (with instantaneous weights it would jump to 1024 at every sleep); tg.load_avg is
// the sum of the queues' contributions.
TEST_CASE("Group hierarchy: a sleeping task's group keeps its PELT contribution to the group's load") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        h.s->set_cgroups(tree({group("/A", 0)}));
        auto& hog = h.add("hog", 0, 0);
        auto& duty = h.add("duty", 1, 0);
        h.s->attach_task(hog, 1, 0);
        h.s->attach_task(duty, 1, 0);
        h.schedule(0, 0);
        h.schedule(1, 0);
        std::uint32_t max_weight_asleep = 0;
        unsigned samples = 0;
        for (scheduler::nsec now = 1 * ms; now <= 1000 * ms; now += 1 * ms) {
            if (now % h.cfg.tick_ns() == 0) h.tick(0, now);
            const scheduler::nsec phase = now % (10 * ms);
            if (phase == 5 * ms) h.block(1, now);
            if (phase == 0) h.wake(duty, 1, now);
            if (h.s->need_resched(1)) h.schedule(1, now);
            if (now > 500 * ms && phase == 9 * ms) { // late in the sleep, once the averages settled
                max_weight_asleep = std::max(max_weight_asleep, h.s->group_rq(0, 1)->se.weight);
                ++samples;
            }
        }
        CHECK(samples == 50);
        CHECK(max_weight_asleep < 850);
        CHECK(max_weight_asleep > 500);
        CHECK(h.s->tg_load_avg(1) ==
              h.s->group_rq(0, 1)->q.tg_load_avg_contrib + h.s->group_rq(1, 1)->q.tg_load_avg_contrib);
    }
}

// The task-based model (v6.18) keeps a throttled group's queue on the CPU: its PELT clock runs while
// tasks are still queued in it and stops once the last one has gone to the limbo list at its return to
// user mode; the refill restarts it.
TEST_CASE(
    "Group hierarchy: the task-based throttle stops a group queue's PELT clock once its tasks are in limbo") {
    test::sched_harness h(
        eevdf, {{"TASK_BASED_THROTTLE", true}, {"THROTTLED_LB_PAIR", false}, {"LB_THROTTLED_DEST", true}});
    auto a_spec = group("/a", 0);
    a_spec.quota_ns = 10 * ms;
    h.s->set_cgroups(tree({a_spec}));
    h.add("root", 0, 0);
    auto& t = h.add("t", 0, 0);
    h.s->attach_task(t, 1, 0);
    h.schedule(0, 0);
    scheduler::nsec now = 0;
    while (!h.s->bandwidth().state(1, 0)->throttled && now < 90 * ms) h.tick(0, now += h.cfg.tick_ns());
    REQUIRE(h.s->bandwidth().state(1, 0)->throttled);
    const auto* a = h.s->group_rq(0, 1);
    CHECK(a->q.throttle_count == 1);
    CHECK_FALSE(a->q.throttled);            // the task-based model leaves the queue where it is
    CHECK_FALSE(a->q.pelt_stopped);         // t is still queued in it
    while (!t.throttled && now < 95 * ms) { // until t returns to user mode and goes to limbo
        if (h.curr(0) == &t && t.throttle_work) {
            h.s->return_to_user(0, now);
            h.schedule(0, now);
        } else {
            h.tick(0, now += h.cfg.tick_ns());
        }
    }
    REQUIRE(t.throttled);
    CHECK(a->q.nr_running == 0);
    CHECK(a->q.pelt_stopped);
    const scheduler::nsec frozen = a->q.clock_pelt(h.rq(0).clock);
    h.ticks(0, now, 96 * ms);
    CHECK(a->q.clock_pelt(h.rq(0).clock) == frozen);
    h.ticks(0, 96 * ms, 104 * ms); // the refill: t leaves limbo, the clock runs again
    CHECK_FALSE(t.throttled);
    CHECK_FALSE(a->q.pelt_stopped);
    CHECK(a->q.throttle_count == 0);
    CHECK(a->q.clock_pelt(h.rq(0).clock) > frozen);
}

// A cgroup move of an EEVDF delayed-dequeue sleeper (sched_move_task): it finishes its dequeue and moves
// as a sleeping task -- off its old group's queue, counted nowhere, its util_est left as its sleep left
// it -- and wakes in the new group.
TEST_CASE("Group hierarchy: moving a delayed EEVDF sleeper to another group finishes its dequeue") {
    test::sched_harness h(eevdf);
    h.s->set_cgroups(tree({group("/a", 0), group("/b", 0)}));
    auto& hog = h.add("hog", 0, 0);
    auto& x = h.add("x", 0, 0, 10); // nice 10: its vruntime runs ahead fast, so it sleeps ineligible
    h.s->attach_task(hog, 1, 0);
    h.s->attach_task(x, 1, 0);
    h.schedule(0, 0);
    scheduler::nsec now = 0;
    while (h.curr(0) != &x && now < 500 * ms) h.tick(0, now += h.cfg.tick_ns());
    REQUIRE(h.curr(0) == &x);
    now += 1 * ms;
    h.block(0, now);
    REQUIRE(x.on_rq);
    REQUIRE(x.se.sched_delayed);
    const auto util_est = h.q(0).util_est_enqueued;
    h.s->attach_task(x, 2, now);
    CHECK_FALSE(x.on_rq);
    CHECK_FALSE(x.se.sched_delayed);
    CHECK(h.s->task_group_of(x) == 2);
    CHECK(h.q(0).util_est_enqueued == util_est);
    CHECK(h.s->group_rq(0, 1)->q.h_nr_running == 1); // the hog
    CHECK(h.s->group_rq(0, 1)->q.h_nr_delayed == 0);
    CHECK(h.q(0).h_nr_running == 1);
    CHECK(h.rq(0).nr_running == 1);
    CHECK(x.se.cfs_rq == &h.s->group_rq(0, 2)->q);
    h.wake(x, 0, now + 1 * ms);
    CHECK(x.on_rq);
    CHECK(h.s->group_rq(0, 2)->q.h_nr_running == 1);
    CHECK(h.q(0).h_nr_running == 2);
    CHECK(h.rq(0).nr_running == 2);
}
