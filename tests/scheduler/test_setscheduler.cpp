// The core's class list and its setscheduler path (kernel/sched/core.c __sched_setscheduler and
// check_class_changed): the classes in the kernel's order, a task's class following its policy, a
// queued task changing class preempting as a wakeup would, and the RT class's pull when a running
// task's priority drops (prio_changed_rt), which the kernel does and the model did not before it had
// this path.
#include "scheduler/rt/rt_class.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace warmsched;
using scheduler::kernel_version;
using scheduler::sched_policy;
using test::ms;

TEST_CASE(
    "class list: dl (the fair server's slot), rt, fair, idle, highest first, as the kernel links them") {
    for (const auto k : {kernel_version::cfs_v5_15, kernel_version::eevdf_v6_12}) {
        test::sched_harness h(k);
        std::vector<std::string> names;
        for (const auto* c : h.s->classes()) names.emplace_back(c->name());
        const std::string fair = k == kernel_version::cfs_v5_15 ? "fair (CFS, v5.15)" : "fair (EEVDF, v6.12)";
        CHECK(names == std::vector<std::string>{"dl", "rt", fair, "idle"});
        auto& f = h.add("f", 0, 0);
        CHECK(f.sched_class == &h.s->fair());
        CHECK(h.s->class_rank(f) < h.s->class_rank(*h.s->rq(1).idle) + 2);
        CHECK(h.s->class_rank(f) > h.s->class_rank(*h.s->rq(1).idle));
    }
}

TEST_CASE("setscheduler: a queued fair task made SCHED_FIFO preempts the fair task running on its CPU, and "
          "made SCHED_OTHER again while running gives the CPU back to the fair pick") {
    test::sched_harness h(kernel_version::eevdf_v6_12);
    auto& a = h.add("a", 0, 0);
    auto& b = h.add("b", 0, 0);
    scheduler::task& first = h.schedule(0, 0);
    scheduler::task& other = &first == &a ? b : a;
    REQUIRE(!h.s->need_resched(0));
    h.s->setscheduler(other, sched_policy::fifo, 50, 0, 0, 1 * ms);
    CHECK(other.sched_class == &h.s->rt());
    CHECK(other.prio() == 49);
    CHECK(h.rq(0).rt.rt_nr_running == 1);
    CHECK(h.s->need_resched(0)); // a higher class preempts at once
    CHECK(&h.schedule(0, 1 * ms) == &other);
    // Back to SCHED_OTHER while running: it lost RT priority, so the CPU picks again among fair tasks.
    h.s->setscheduler(other, sched_policy::normal, 0, 0, 0, 2 * ms);
    CHECK(other.sched_class == &h.s->fair());
    CHECK(h.rq(0).rt.rt_nr_running == 0);
    CHECK(h.rq(0).nr_running == 2);
    CHECK(h.s->need_resched(0));
}

TEST_CASE("setscheduler: a running RT task whose priority drops below a waiting one elsewhere pulls it "
          "(prio_changed_rt), and a queued one raised above curr preempts") {
    test::sched_harness h(kernel_version::cfs_v5_15, {{"RT_PUSH_IPI", false}},
                          [](scheduler::sched_config& c) { c.rt.sched_rt_runtime_us = -1; });
    auto make = [&](const std::string& comm, unsigned cpu, int prio) -> scheduler::task& {
        scheduler::task& t = h.make(comm, cpu, 0, sched_policy::fifo, true);
        t.rt_priority = prio;
        t.allowed.assign(8, false);
        t.allowed[0] = t.allowed[1] = true; // CPUs 0 and 1
        h.s->add_initial_task(t, cpu, 0);
        return t;
    };
    auto& t30 = make("fifo30", 0, 30);
    auto& t10 = make("fifo10", 0, 10);
    auto& t20 = make("fifo20", 1, 20);
    REQUIRE(&h.schedule(0, 0) == &t30);
    REQUIRE(&h.schedule(1, 0) == &t20);
    REQUIRE(h.hooks.migrations.empty());
    // CPU 1's task drops to FIFO 5: the waiting FIFO 10 is more urgent and comes over at once.
    h.s->setscheduler(t20, sched_policy::fifo, 5, 0, 1, 1 * ms);
    REQUIRE(h.hooks.migrations.size() == 1);
    CHECK(h.hooks.migrations[0].from == 0);
    CHECK(h.hooks.migrations[0].to == 1);
    CHECK(h.hooks.migrations[0].why == scheduler::migration_cause::rt_pull);
    CHECK(h.s->need_resched(1));
    CHECK(&h.schedule(1, 1 * ms) == &t10);
    // The queued FIFO 5 raised to FIFO 60, above CPU 1's FIFO 10: it preempts.
    h.s->setscheduler(t20, sched_policy::fifo, 60, 0, 1, 2 * ms);
    CHECK(h.s->need_resched(1));
    CHECK(&h.schedule(1, 2 * ms) == &t20);
}

TEST_CASE("setscheduler refuses an RT priority outside 1..99 and a priority for a fair policy") {
    test::sched_harness h(kernel_version::eevdf_v6_12);
    auto& a = h.add("a", 0, 0);
    CHECK_THROWS_WITH(h.s->setscheduler(a, sched_policy::fifo, 0, 0, 0, 0),
                      "sched_setscheduler: a: priority 0 is not in 1..99");
    CHECK_THROWS_WITH(h.s->setscheduler(a, sched_policy::normal, 5, 0, 0, 0),
                      "sched_setscheduler: a: priority 5 must be 0 for a fair policy");
    CHECK(a.sched_class == &h.s->fair());
}

TEST_CASE("setscheduler: a fair task made RT takes its PELT load out of its queue's sums at once "
          "(switched_from_fair's detach) and brings it back when made fair again (switched_to_fair)") {
    for (const auto k : {kernel_version::cfs_v5_15, kernel_version::eevdf_v6_12}) {
        test::sched_harness h(k);
        auto& a = h.add("a", 0, 0);
        auto& b = h.add("b", 0, 0);
        h.schedule(0, 0);
        h.ticks(0, 0, 40 * ms); // both run and build up load
        const std::uint64_t both = h.q().avg.load_avg;
        REQUIRE(a.se.avg.attached);
        REQUIRE(a.se.avg.load_avg > 0);
        REQUIRE(b.se.avg.load_avg > 0);
        h.s->setscheduler(a, sched_policy::fifo, 10, 0, 0, 40 * ms);
        CHECK_FALSE(a.se.avg.attached);
        // What is left is b's load: the queue lost a's share at once (before, it decayed in place).
        const std::uint64_t left = h.q().avg.load_avg;
        CHECK(left + a.se.avg.load_avg <= both + 2); // up to PELT's rounding
        CHECK(left + a.se.avg.load_avg + 2 >= both);
        h.s->setscheduler(a, sched_policy::normal, 0, 0, 0, 41 * ms);
        CHECK(a.se.avg.attached);
        CHECK(h.q().avg.load_avg >= a.se.avg.load_avg);
        CHECK(h.q().avg.load_avg > b.se.avg.load_avg);
    }
}

TEST_CASE("setscheduler: a CFS sleeper made RT leaves its queue's virtual time and rejoins it when made fair "
          "again, so its sleep buys no lead over the tasks that kept running") {
    test::sched_harness h(kernel_version::cfs_v5_15);
    auto& x = h.add("x", 0, 0);
    auto& y = h.add("y", 0, 0);
    scheduler::task& a = h.schedule(0, 0);
    scheduler::task& b = &a == &x ? y : x;
    REQUIRE(&h.block(0, 3 * ms) == &b); // a sleeps
    const auto v_before = a.se.vruntime, min_before = h.q().min_vruntime;
    h.s->setscheduler(a, sched_policy::fifo, 10, 0, 0, 3 * ms);
    const std::int64_t rel = a.se.vruntime; // now relative to the queue it left
    CHECK(rel == v_before - min_before);
    h.ticks(0, 3 * ms, 200 * ms); // b runs alone: min_vruntime moves on by ~197 ms
    REQUIRE(h.q().min_vruntime > min_before + static_cast<std::int64_t>(190 * ms));
    h.s->setscheduler(a, sched_policy::normal, 0, 0, 0, 200 * ms);
    // Back in the queue's virtual time at the same distance from min_vruntime: not 197 ms behind it.
    CHECK(a.se.vruntime - h.q().min_vruntime == rel);
}

TEST_CASE("setscheduler: an EEVDF delayed-dequeue sleeper made RT finishes its dequeue as a sleep "
          "(switched_from_fair, v6.12)") {
    test::sched_harness h(kernel_version::eevdf_v6_12);
    auto& a = h.add("a", 0, 0, 0, sched_policy::normal, false);
    auto& b = h.add("b", 0, 0, 0, sched_policy::normal, false);
    REQUIRE(&h.schedule(0, 0) == &a);
    h.ticks(0, 0, 8 * ms);
    REQUIRE(&h.block(0, 9 * ms) == &b); // ineligible: stays queued, delayed (test_eevdf 6)
    REQUIRE(a.se.sched_delayed);
    REQUIRE(h.rq().nr_running == 2);
    h.s->setscheduler(a, sched_policy::fifo, 10, 0, 0, 9 * ms);
    CHECK_FALSE(a.se.sched_delayed);
    CHECK_FALSE(a.on_rq);
    CHECK(h.q().h_nr_running == 1);
    CHECK(h.rq().nr_running == 1);
    CHECK(h.rq().rt.rt_nr_running == 0); // asleep: not queued in the RT class either
    CHECK(h.q().load == 1024);
}
