// Exec placement (sched_exec, reference/scheduler/03-wakeup-placement.md "Slow path: fork and exec"):
// select_task_rq with WF_EXEC walks the domains with SD_BALANCE_EXEC through find_idlest_group/cpu, with
// the exec'ing task's own load taken out of its CPU; a CPU other than its own is reached through the
// stopper, which preempts the task and moves it while it is queued. Machine: the harness's SMT machine
// (CPUs 0, 1, 4, 5 share LLC 0; CPUs 2, 3, 6, 7 share LLC 1), both kernels.
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

using namespace warmsched;
using scheduler::kernel_version;
using scheduler::migration_cause;
using test::ms;

namespace {
constexpr kernel_version both[] = {kernel_version::cfs_v5_15, kernel_version::eevdf_v6_12};

scheduler::task& add_task(test::sched_harness& h, const std::string& comm, unsigned cpu, scheduler::nsec now,
                          bool pin) {
    scheduler::task& t = h.make(comm, cpu, 0, scheduler::sched_policy::normal, pin);
    h.s->add_initial_task(t, cpu, now);
    return t;
}
} // namespace

TEST_CASE("exec on a busy CPU of a busy LLC moves the task to an idle CPU of the idle LLC") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k, {}, {}, test::smt_machine());
        const auto& layout = h.s->layout();
        // LLC 0 busy: a pinned hog on each of its CPUs; the exec'ing task shares CPU 0 with one.
        for (unsigned c : {0u, 1u, 4u, 5u}) add_task(h, "hog" + std::to_string(c), c, 0, true);
        auto& p = add_task(h, "sh", 0, 0, false);
        for (unsigned c : {1u, 4u, 5u}) h.schedule(c, 0);
        h.ticks(0, 0, 8 * ms); // p gets its turn on CPU 0
        while (h.curr(0) != &p) h.tick(0, 8 * ms);
        REQUIRE(h.curr(0) == &p);
        h.hooks.migrations.clear();
        h.hooks.kicks.clear();
        const unsigned dest = h.s->sched_exec(0, 9 * ms);
        CAPTURE(dest);
        CHECK(layout.llc_of[dest] != layout.llc_of[0]);
        CHECK(h.rq(dest).is_idle());
        CHECK(h.s->need_resched(0));
        CHECK(h.hooks.migrations.empty()); // nothing moves until the stopper runs
        // CPU 0 reschedules: the stopper switches p out and moves it; the hog runs again.
        const auto switches = h.rq(0).nr_switches;
        CHECK(h.schedule(0, 9 * ms + 1000).comm == "hog0");
        REQUIRE(h.hooks.migrations.size() == 1);
        CHECK(h.hooks.migrations[0].why == migration_cause::exec);
        CHECK(h.hooks.migrations[0].from == 0);
        CHECK(h.hooks.migrations[0].to == dest);
        CHECK(p.cpu == dest);
        CHECK(p.on_rq);
        CHECK(h.rq(dest).nr_running == 1);
        CHECK(h.rq(0).nr_running == 1);
        CHECK(h.rq(0).nr_switches == switches + 2);          // p -> stopper, stopper -> hog
        CHECK(h.hooks.kicks == std::vector<unsigned>{dest}); // the idle destination is told to run it
        const auto work = h.s->take_balance_work(0);
        CHECK(work.switches == 1);
        CHECK(work.migrations == 1);
        CHECK(&h.schedule(dest, 9 * ms + 3000) == &p);
    }
}

TEST_CASE("exec of a lone task on an idle machine stays on its CPU") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k, {}, {}, test::smt_machine());
        auto& p = add_task(h, "sh", 3, 0, false);
        h.schedule(3, 0);
        h.ticks(3, 0, 4 * ms);
        // Without p, CPU 3's groups are as idle as any other at every level: the local group wins.
        CHECK(h.s->sched_exec(3, 5 * ms) == 3);
        CHECK_FALSE(h.s->need_resched(3));
        CHECK(h.hooks.migrations.empty());
        CHECK(h.schedule(3, 5 * ms + 1000).comm == "sh");
        CHECK(p.cpu == 3);
    }
}

TEST_CASE("exec of a task pinned to its busy CPU stays there") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k, {}, {}, test::smt_machine());
        add_task(h, "hog", 0, 0, true);
        auto& p = add_task(h, "sh", 0, 0, true);
        h.schedule(0, 0);
        while (h.curr(0) != &p) h.tick(0, h.rq(0).clock + 4 * ms);
        CHECK(h.s->sched_exec(0, h.rq(0).clock + 1000) == 0);
        CHECK(h.hooks.migrations.empty());
    }
}
