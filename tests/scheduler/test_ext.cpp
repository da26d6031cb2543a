// The ext class (scheduler/ext/ext_class.h) with policies defined here, driven directly (sched_harness):
// its place in the class list, which tasks it takes, the v6.12 sched_ext semantics a policy relies on
// (the global DSQ, consuming it from another CPU as a counted migration, the slice running out at the
// tick, a preempted task first in line), and the policy's errors: the watchdog, kfunc misuse, the
// callback budget, and the ejection that moves its tasks to the fair class.
#include "scheduler/ext/ext_class.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
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
    CHECK_FALSE(h.s->policy_exit().failed());
}

TEST_CASE("ext watchdog: a runnable task not run for the timeout ejects the policy (SCX_EXIT_ERROR_STALL), "
          "the disable work moves its tasks to the fair class") {
    test::sched_harness h(kernel_version::cfs_v5_15, {}, [](scheduler::sched_config& c) {
        c.ext.policy = std::make_shared<never>();
        c.ext.switch_all = true;
        c.ext.watchdog_timeout = 100 * ms;
    });
    auto& a = h.add("a", 0, 0);
    CHECK(h.schedule(0, 0).is_idle); // the policy kept it: nothing to run
    h.s->sched_timer(0, 60 * ms);
    CHECK_FALSE(h.s->policy_exit().failed());
    h.s->sched_timer(0, 120 * ms);
    const scheduler::ext_exit_info& ei = h.s->policy_exit();
    CHECK(ei.kind == scheduler::ext_exit_kind::error_stall);
    CHECK(ei.msg == "a[" + std::to_string(a.pid) + "] failed to run for 0.120s");
    CHECK(ei.line() == "policy never ejected (runnable task stall) at 0.120000 simulated s: a[" +
                           std::to_string(a.pid) + "] failed to run for 0.120s");
    CHECK(ei.pid == a.pid);
    CHECK(ei.cpu == 0);
    CHECK(ei.at == 120 * ms);
    CHECK_FALSE(ei.ejected);
    // Bypassed until the disable work runs: the task runs FIFO without the policy.
    CHECK(&h.schedule(0, 120 * ms) == &a);
    CHECK(a.sched_class == static_cast<const scheduler::sched_class*>(h.s->ext()));
    // The disable work (here at the next tick, the harness queues no interrupt): a goes to the fair class.
    h.tick(0, 124 * ms);
    CHECK(h.s->policy_exit().ejected);
    CHECK(h.s->policy_exit().ejected_at == 124 * ms);
    CHECK(h.s->policy_exit().tasks_moved == 1);
    CHECK(h.s->is_fair(a));
    CHECK(h.curr(0) == &a);
    CHECK_FALSE(h.s->ext_enabled());
    // From now on SCHED_EXT and --policy-all tasks are fair, as with sched_ext disabled.
    auto& b = h.add("b", 1, 124 * ms, 0, sched_policy::ext);
    CHECK(h.s->is_fair(b));
    CHECK(&h.schedule(1, 124 * ms) == &b);
}

namespace {
// Dispatches to a DSQ it never created, then would go on; counts its callbacks.
struct bad_dsq final : ext::policy {
    int enqueues = 0, after_error = 0, calls = 0;
    const char* name() const override { return "bad_dsq"; }
    unsigned select_cpu(ext::task_info&, unsigned prev_cpu, ext::u64) override {
        ++calls;
        return prev_cpu;
    }
    void enqueue(ext::task_info& p, ext::u64) override {
        ++enqueues;
        ++calls;
        k().dispatch(p, 42, ext::slice_dfl);
        ++after_error; // not reached: the kfunc of a stopped policy ends the callback
        k().dispatch(p, ext::dsq_global, ext::slice_dfl);
    }
    void runnable(ext::task_info&, ext::u64) override { ++calls; }
    void running(ext::task_info&) override { ++calls; }
};
} // namespace

TEST_CASE("ext: after an error the kernel calls the policy no more, a kfunc of the callback still running "
          "ends it, its tasks run on") {
    auto pol = std::make_shared<bad_dsq>();
    test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(pol, true));
    auto& a = h.add("a", 0, 0);
    const scheduler::ext_exit_info& ei = h.s->policy_exit();
    REQUIRE(ei.kind == scheduler::ext_exit_kind::error);
    CHECK(ei.msg == "dispatch of a[" + std::to_string(a.pid) + "] to DSQ 42, which does not exist");
    CHECK(ei.op == "enqueue");
    CHECK(ei.pid == a.pid);
    CHECK(pol->enqueues == 1);
    CHECK(pol->after_error == 0);
    const int calls = pol->calls;
    auto& b = h.add("b", 0, 0);
    CHECK(&h.schedule(0, 0) == &a); // bypass: FIFO from the local DSQ
    h.s->disable_policy(0, 1 * ms);
    CHECK(h.s->is_fair(a));
    CHECK(h.s->is_fair(b)); // b joined the bypassed class (until the disable work, as in the kernel)
    CHECK(pol->calls == calls);
    CHECK(h.s->policy_exit().tasks_moved == 2);
}

namespace {
// select_cpu looks for an idle CPU in a list holding a CPU the machine lacks.
struct idle_out_of_range final : ext::policy {
    const char* name() const override { return "idle_out_of_range"; }
    unsigned select_cpu(ext::task_info& p, unsigned prev_cpu, ext::u64) override {
        const int c = k().pick_idle_cpu(p, {prev_cpu, 1000});
        return c >= 0 ? static_cast<unsigned>(c) : prev_cpu;
    }
};
// dispatch of a task_info the kernel never handed out.
struct forged_task final : ext::policy {
    const char* name() const override { return "forged_task"; }
    void enqueue(ext::task_info& p, ext::u64) override {
        ext::task_info forged;
        forged.pid = p.pid;
        k().dispatch(forged, ext::dsq_global, ext::slice_dfl);
    }
};
} // namespace

TEST_CASE("ext: pick_idle_cpu with a CPU outside the machine, and a task_info the kernel did not hand out, "
          "are the policy's errors") {
    {
        test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(std::make_shared<idle_out_of_range>(), true));
        auto& child = h.make("c", 0, 0, sched_policy::normal, false);
        h.s->sched_fork(child, 0, 0);
        h.s->wake_up_new_task(child, 0, 0);
        const scheduler::ext_exit_info& ei = h.s->policy_exit();
        CHECK(ei.kind == scheduler::ext_exit_kind::error);
        CHECK(ei.msg == "pick_idle_cpu: invalid CPU 1000 (the machine has CPUs 0-7) in the list of CPUs");
        CHECK(ei.op == "select_cpu");
        CHECK(child.on_rq); // placed anyway, on its previous CPU
    }
    {
        test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(std::make_shared<forged_task>(), true));
        h.add("a", 0, 0);
        CHECK(h.s->policy_exit().msg == "dispatch of a task_info the kernel did not hand out");
        CHECK(h.schedule(0, 0).comm == "a");
    }
}

namespace {
// dispatch() never returns, calling a kfunc on every turn.
struct loops final : ext::policy {
    const char* name() const override { return "loops"; }
    void enqueue(ext::task_info&, ext::u64) override {}
    void dispatch(unsigned, ext::task_info*) override {
        for (;;) (void)k().now();
    }
};
} // namespace

TEST_CASE("ext: a callback that does not return within its budget (1 s of CPU time) is stopped at its next "
          "kfunc, a soft lockup (SCX_EXIT_ERROR_STALL)") {
    test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(std::make_shared<loops>(), true));
    auto& a = h.add("a", 0, 0);
    CHECK(&h.schedule(0, 0) == &a); // dispatch loops until the budget stops it; a then runs in bypass
    const scheduler::ext_exit_info& ei = h.s->policy_exit();
    CHECK(ei.kind == scheduler::ext_exit_kind::error_stall);
    CHECK(ei.op == "dispatch");
    CHECK(ei.cpu == 0);
    CHECK(ei.msg == "soft lockup: ops.dispatch ran for more than 1 s of CPU time without returning");
}

TEST_CASE("ext: a running task moved to the fair class by the ejection leaves the fair queue when it exits") {
    auto pol = std::make_shared<global_fifo>();
    test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(pol, true));
    auto& a = h.add("a", 0, 0);
    auto& b = h.add("b", 0, 0);
    CHECK(&h.schedule(0, 0) == &a);
    // Fail the policy from outside a callback (as the watchdog does) and run the disable work.
    h.s->sched_timer(0, 1 * ms);
    const_cast<scheduler::ext_class*>(h.s->ext())->error("test"); // scx_bpf_error outside a callback
    h.s->disable_policy(0, 1 * ms);
    REQUIRE(h.s->is_fair(a));
    REQUIRE(h.s->is_fair(b));
    CHECK(h.curr(0) == &a);
    a.state = scheduler::task_state::dead;
    CHECK(&h.schedule(0, 2 * ms, false) == &b);
    b.state = scheduler::task_state::dead;
    CHECK(h.schedule(0, 3 * ms, false).is_idle);
    CHECK(h.rq(0).nr_running == 0);
    CHECK(h.rq(0).cfs.nr_running == 0);
}

namespace {
// Throws from ops.quiescent: the error comes while the sleeping task is being dequeued.
struct throws_in_quiescent final : ext::policy {
    const char* name() const override { return "throws_in_quiescent"; }
    void quiescent(ext::task_info&, ext::u64) override { throw std::runtime_error("quiescent"); }
};
} // namespace

TEST_CASE("ext: a policy that fails while a task is dequeued (ops.quiescent) leaves that task on no DSQ "
          "(found by fuzz_policy_api)") {
    test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(std::make_shared<throws_in_quiescent>(), true));
    auto& a = h.add("a", 0, 0);
    auto& b = h.add("b", 0, 0);
    CHECK(&h.schedule(0, 0) == &a);
    CHECK(&h.block(0, 1 * ms) == &b); // a sleeps: ops.quiescent throws
    CHECK(h.s->policy_exit().msg == "ops.quiescent threw: quiescent");
    CHECK(a.scx.dsq == nullptr);
    h.s->disable_policy(0, 1 * ms);
    b.state = scheduler::task_state::dead;
    CHECK(h.schedule(0, 2 * ms, false).is_idle); // not the sleeping a
    CHECK(h.rq(0).nr_running == 0);
}

namespace {
struct kicks_in_init final : ext::policy {
    const char* name() const override { return "kicks_in_init"; }
    void init() override { k().kick_cpu(0, ext::kick_preempt); }
};
} // namespace

TEST_CASE("ext: kick_cpu from ops.init, before the CPUs run, does nothing (found by fuzz_policy_api)") {
    test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(std::make_shared<kicks_in_init>(), true));
    CHECK_FALSE(h.s->policy_exit().failed());
    auto& a = h.add("a", 0, 0);
    CHECK(&h.schedule(0, 0) == &a);
}

namespace {
struct throws_in_exit_task final : ext::policy {
    const char* name() const override { return "throws_in_exit_task"; }
    void exit_task(ext::task_info&) override { throw std::runtime_error("exit_task"); }
};
} // namespace

TEST_CASE("ext: a policy that fails in ops.exit_task of a task leaving for another class does not queue that "
          "task on a DSQ (found by fuzz_policy_api)") {
    test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(std::make_shared<throws_in_exit_task>(), false));
    auto& a = h.add("a", 0, 0, 0, sched_policy::ext);
    auto& b = h.add("b", 0, 0, 0, sched_policy::ext);
    CHECK(&h.schedule(0, 0) == &a);
    h.s->setscheduler(b, sched_policy::fifo, 10, 0, 0, 1 * ms); // b leaves the policy: exit_task throws
    CHECK(h.s->policy_exit().msg == "ops.exit_task threw: exit_task");
    CHECK(b.scx.dsq == nullptr);
    CHECK(&h.schedule(0, 1 * ms) == &b); // RT first
    h.s->disable_policy(0, 1 * ms);
    b.state = scheduler::task_state::dead;
    CHECK(&h.schedule(0, 2 * ms, false) == &a);
    a.state = scheduler::task_state::dead;
    CHECK(h.schedule(0, 3 * ms, false).is_idle); // b is never picked again
}

namespace {
// Every task to CPU 1's local DSQ.
struct all_to_cpu1 final : ext::policy {
    const char* name() const override { return "all_to_cpu1"; }
    unsigned select_cpu(ext::task_info&, unsigned prev_cpu, ext::u64) override { return prev_cpu; }
    void enqueue(ext::task_info& p, ext::u64) override { k().dispatch(p, ext::dsq_local_on | 1, ext::slice_dfl); }
};
} // namespace

TEST_CASE("ext: a running task that joins the policy (sched_setscheduler) and is dispatched to another CPU "
          "stays on its CPU (found by fuzz_policy_api)") {
    test::sched_harness h(kernel_version::eevdf_v6_12, {}, with_policy(std::make_shared<all_to_cpu1>(), false));
    auto& a = h.add("a", 0, 0, 0, sched_policy::normal, false);
    CHECK(&h.schedule(0, 0) == &a);
    h.s->setscheduler(a, sched_policy::ext, 0, 0, 0, 1 * ms);
    CHECK(a.sched_class == static_cast<const scheduler::sched_class*>(h.s->ext()));
    CHECK(a.cpu == 0);
    CHECK(h.curr(0) == &a);
    CHECK(h.curr(1)->is_idle);
    CHECK(h.rq(0).nr_running == 1);
    CHECK(h.rq(1).nr_running == 0);
    CHECK_FALSE(h.s->policy_exit().failed());
}
