// The ext class (scheduler/ext/ext_class.h) with policies defined here, driven directly (sched_harness):
// its place in the class list, which tasks it takes, the v6.12 sched_ext semantics a policy relies on
// (the global DSQ, consuming it from another CPU as a counted migration, the slice running out at the
// tick, a preempted task first in line), and the watchdog's error.
#include "scheduler/ext/ext_class.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

using namespace warmsched;
using scheduler::kernel_version;
using scheduler::sched_policy;
using test::ms;

namespace {

// The defaults of every callback: the global DSQ, select_cpu_dfl.
struct global_fifo final : ext::policy {
    const char* name() const override { return "global_fifo"; }
};

// Keeps every task and never dispatches.
struct never final : ext::policy {
    const char* name() const override { return "never"; }
    unsigned select_cpu(ext::task_info&, unsigned prev_cpu, ext::u64) override { return prev_cpu; }
    void enqueue(ext::task_info&, ext::u64) override {}
};

auto with_policy(std::shared_ptr<ext::policy> p, bool all) {
    return [p, all](scheduler::sched_config& c) {
        c.ext.policy = p;
        c.ext.switch_all = all;
    };
}

} // namespace

TEST_CASE("ext: a loaded policy sits between fair and idle, --policy-all takes the fair tasks, SCHED_EXT "
          "without a policy is fair") {
    {
        test::sched_harness h(kernel_version::eevdf_v6_12, {},
                              with_policy(std::make_shared<global_fifo>(), false));
        std::vector<std::string> names;
        for (const auto* c : h.s->classes()) names.emplace_back(c->name());
        CHECK(names == std::vector<std::string>{"dl", "rt", "fair (EEVDF, v6.12)", "ext", "idle"});
        auto& f = h.add("f", 0, 0);
        auto& e = h.add("e", 1, 0, 0, sched_policy::ext);
        CHECK(f.sched_class == static_cast<const scheduler::sched_class*>(&h.s->fair()));
        CHECK(e.sched_class == static_cast<const scheduler::sched_class*>(h.s->ext()));
        CHECK(h.s->class_rank(f) > h.s->class_rank(e));
    }
    {
        test::sched_harness h(kernel_version::eevdf_v6_12, {},
                              with_policy(std::make_shared<global_fifo>(), true));
        auto& f = h.add("f", 0, 0);
        CHECK(f.sched_class == static_cast<const scheduler::sched_class*>(h.s->ext()));
    }
    {
        test::sched_harness h(kernel_version::eevdf_v6_12);
        auto& e = h.add("e", 1, 0, 0, sched_policy::ext);
        CHECK(e.sched_class == static_cast<const scheduler::sched_class*>(&h.s->fair()));
        CHECK(h.s->ext() == nullptr);
    }
}

TEST_CASE("ext: global FIFO -- another CPU takes the head of the global DSQ (a policy-dispatch migration), "
          "a spent 20 ms slice goes back to the tail, a CPU runs on while nothing else waits") {
    test::sched_harness h(kernel_version::eevdf_v6_12, {},
                          with_policy(std::make_shared<global_fifo>(), true));
    auto& a = h.add("a", 0, 0, 0, sched_policy::normal, false);
    auto& b = h.add("b", 0, 0, 0, sched_policy::normal, false);
    auto& c = h.add("c", 0, 0, 0, sched_policy::normal, false);
    CHECK(h.rq(0).nr_running == 3);
    CHECK(&h.schedule(0, 0) == &a); // FIFO: in the order they became runnable
    CHECK(&h.schedule(1, 0) == &b); // CPU 1 consumes the global DSQ: b moves over
    REQUIRE(h.hooks.migrations.size() == 1);
    CHECK(h.hooks.migrations[0].from == 0);
    CHECK(h.hooks.migrations[0].to == 1);
    CHECK(h.hooks.migrations[0].why == scheduler::migration_cause::ext_dispatch);
    CHECK(h.rq(0).nr_running == 2);
    CHECK(h.rq(1).nr_running == 1);
    // a's slice is 20 ms: the tick at 20 ms ends it, c runs and a waits at the tail.
    h.ticks(0, 0, 16 * ms);
    CHECK(h.curr(0) == &a);
    h.ticks(0, 16 * ms, 20 * ms);
    CHECK(h.curr(0) == &c);
    CHECK(a.scx.dsq != nullptr);
    // b alone on CPU 1: its slice ends, nothing waits there or globally... a does: CPU 1 takes it.
    h.ticks(1, 0, 20 * ms);
    CHECK(h.curr(1) == &a);
    CHECK(a.cpu == 1);
    CHECK(h.s->policy_error().empty());
}

TEST_CASE("ext watchdog: a runnable task not run for the timeout stops the policy with its name") {
    test::sched_harness h(kernel_version::cfs_v5_15, {}, [](scheduler::sched_config& c) {
        c.ext.policy = std::make_shared<never>();
        c.ext.switch_all = true;
        c.ext.watchdog_timeout = 100 * ms;
    });
    auto& a = h.add("a", 0, 0);
    CHECK(h.schedule(0, 0).is_idle); // the policy kept it: nothing to run
    h.s->sched_timer(0, 60 * ms);
    CHECK(h.s->policy_error().empty());
    h.s->sched_timer(0, 120 * ms);
    CHECK(h.s->policy_error() ==
          "policy never: runnable task stall (a[" + std::to_string(a.pid) + "] failed to run for 0.120s)");
    // Bypassed: the task runs without the policy.
    CHECK(&h.schedule(0, 120 * ms) == &a);
}
