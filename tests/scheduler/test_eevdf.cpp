// The EEVDF fair class (Linux v6.12) against the "What to test" list of
// reference/scheduler/02-fair-eevdf.md, with 8 CPUs online: base_slice 3 ms, HZ = 250 (4 ms ticks).
// Whole-run behaviour runs on the simulated kernel (kernel_rig, one SystemC elaboration per TEST_CASE);
// the placement, eligibility and preemption rules drive the scheduler directly (sched_harness).
#include "support/kernel_rig.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

using namespace warmsched;
using scheduler::kernel_version;
using scheduler::sched_policy;
using scheduler::task_state;
using test::mean_stint_ms;
using test::ms;
using test::run_to;
using test::share;
using test::us;
using test::vms;

namespace {

constexpr auto eevdf = kernel_version::eevdf_v6_12;

workloads::op compute_ms(double m) {
    return workloads::op::compute(static_cast<std::uint64_t>(m * 1e6), nullptr);
}
std::shared_ptr<workloads::spawn_spec> child_spec(const std::string& comm, double compute, unsigned pin_cpu) {
    auto spec = std::make_shared<workloads::spawn_spec>();
    spec->comm = comm;
    spec->allowed = test::kernel_rig::only(pin_cpu);
    spec->body =
        std::make_shared<workloads::scripted_program>(std::vector<workloads::op>{compute_ms(compute)}, 1);
    return spec;
}

} // namespace

// ---- 1. Two nice-0 hogs: 50/50 in stints of one 3 ms request, seen at the next 4 ms tick. -------------

TEST_CASE("EEVDF 1: two nice-0 hogs on one CPU share it 50/50 in 3 ms requests ended at the next tick") {
    // Stints exactly one tick apart: the balancer's own time (softirq at some ticks) would shorten the
    // stint after it by microseconds, and a hog charged a little less is not yet ineligible when its
    // request ends, so it keeps the CPU a second tick. Those passes cost nothing here.
    auto cfg = test::rig_config(eevdf);
    cfg.tunables.lb_pass_cost_ns = cfg.tunables.lb_rq_cost_ns = 0;
    test::kernel_rig r(cfg);
    auto& a = r.hog("a", 0);
    auto& b = r.hog("b", 0);
    run_to(r, 10'000 * ms);
    CAPTURE(share(a, b), mean_stint_ms(a.t), mean_stint_ms(b.t), a.t.stats.slice_max, b.t.stats.slice_max);
    CHECK(share(a, b) == Approx(0.5).margin(0.005));
    CHECK(r.seconds(a) + r.seconds(b) > 9.9);
    for (const auto* t : {&a, &b}) {
        CHECK(t->t.se.slice == 3 * ms);
        // v passes the deadline 3 ms after the pick; the next tick (4 ms at HZ = 250) sees it.
        CHECK(mean_stint_ms(t->t) >= 3.0);
        CHECK(mean_stint_ms(t->t) <= 4.05);
        CHECK(t->t.stats.slice_max > 3 * ms);
        CHECK(t->t.stats.slice_max <= 4 * ms + 50 * us);
        CHECK(t->t.stats.nr_involuntary_switches >= 1200); // 10 s / 2 / 4 ms = 1250 stints each
    }
}

// ---- 2. Nice 0 vs nice 5: shares as in CFS, but the nice-5 stint is still one 3 ms request. ------------

TEST_CASE("EEVDF 2: nice 0 vs nice 5 share 75.35 / 24.65 and the nice-5 task still runs 3 ms requests") {
    test::kernel_rig r(test::rig_config(eevdf));
    auto& a = r.hog("n0", 0, 0);
    auto& b = r.hog("n5", 0, 5);
    run_to(r, 10'000 * ms);
    CAPTURE(share(a, b), mean_stint_ms(a.t), mean_stint_ms(b.t), a.t.stats.pcount, b.t.stats.pcount,
            b.t.stats.slice_max);
    CHECK(share(a, b) == Approx(0.7535).margin(0.01));
    CHECK(share(b, a) == Approx(0.2465).margin(0.01));
    // The nice-5 request is 3 ms of wall time (its deadline 3 ms x 1024 / 335 = 9.2 ms of vruntime away),
    // seen at the next tick: stints of 3-4 ms, where CFS gives it 5.9 ms slices.
    CHECK(b.t.se.slice == 3 * ms);
    CHECK(mean_stint_ms(b.t) >= 3.0);
    CHECK(mean_stint_ms(b.t) <= 4.05);
    CHECK(b.t.stats.slice_max <= 4 * ms + 50 * us);
    // So it is picked less often: one 4 ms stint per 16 ms, while nice 0 runs three requests per turn.
    CHECK(static_cast<double>(b.t.stats.pcount) == Approx(10'000.0 * 0.2465 / 4).epsilon(0.05));
    CHECK(mean_stint_ms(a.t) >= 3 * mean_stint_ms(b.t) * 0.9);
}

// ---- 3. A forked task: v = V, deadline = V + half a slice; it preempts only an unprotected curr. ------

TEST_CASE(
    "EEVDF 3: a forked task is placed at V with deadline V + 1.5 ms and preempts only an unprotected hog") {
    enum class hog_state {
        protected_mid_request,
        protected_no_rtp,
        request_used_up_2ms_left,
        request_used_up_1ms_left
    };
    for (const auto st : {hog_state::protected_mid_request, hog_state::protected_no_rtp,
                          hog_state::request_used_up_2ms_left, hog_state::request_used_up_1ms_left}) {
        CAPTURE(static_cast<int>(st));
        test::sched_harness h(eevdf, {{"RUN_TO_PARITY", st != hog_state::protected_no_rtp}});
        auto& parent = h.add("parent", 1, 0);
        REQUIRE(&h.schedule(1, 0) == &parent);
        auto& hog = h.add("hog", 0, 0);
        REQUIRE(&h.schedule(0, 0) == &hog);
        scheduler::nsec fork_at = 0;
        bool expect_preempt = false;
        switch (st) {
        case hog_state::protected_mid_request:
        case hog_state::protected_no_rtp:
            // The hog sleeps and wakes: picked with a fresh 3 ms request (deadline v + 3 ms, vlag =
            // deadline).
            h.ticks(0, 0, 4 * ms);
            REQUIRE(&h.block(0, 4 * ms) == &h.idle[0]);
            h.wake(hog, 0, 10 * ms);
            REQUIRE(&h.schedule(0, 10 * ms) == &hog);
            CHECK(hog.se.deadline - hog.se.vruntime == 3 * vms);
            fork_at = 11 * ms; // 1 ms into it: 2 ms left, more than the child's 1.5 ms
            expect_preempt = st == hog_state::protected_no_rtp;
            break;
        case hog_state::request_used_up_2ms_left:
        case hog_state::request_used_up_1ms_left:
            // Alone, the hog renews its request at every tick without being picked again: unprotected.
            h.ticks(0, 0, 100 * ms);
            fork_at = st == hog_state::request_used_up_2ms_left ? 101 * ms : 102 * ms;
            expect_preempt = st == hog_state::request_used_up_2ms_left; // only with the earlier deadline
            break;
        }
        h.hooks.kicks.clear(); // the busy ticks kicked the NOHZ balancer (an idle CPU); only the fork counts
        auto& child = h.make("child", 0);
        h.s->sched_fork(child, 1, fork_at);
        REQUIRE(h.s->wake_up_new_task(child, 1, fork_at) == 0);
        const std::int64_t V = hog.se.vruntime; // the hog alone made up V
        CHECK(child.se.vruntime == V);
        CHECK(child.se.deadline == V + 3 * vms / 2);
        CHECK(child.se.vlag == 0);
        CHECK(h.eevdf().avg_vruntime(h.q()) == V); // a zero-lag arrival does not move V
        CHECK(h.eevdf().entity_eligible(h.q(), hog.se));
        CHECK((hog.se.vlag == hog.se.deadline) ==
              (st == hog_state::protected_mid_request || st == hog_state::protected_no_rtp));
        CHECK(h.s->need_resched(0) == expect_preempt);
        CHECK(h.hooks.kicks == std::vector<unsigned>(expect_preempt ? 1 : 0, 0u)); // the IPI to CPU 0
        if (st == hog_state::protected_mid_request) {
            // It waits for the hog's deadline (v + 3 ms, passed at 13 ms), seen at the 16 ms tick.
            h.ticks(0, fork_at, 15 * ms);
            CHECK(h.curr() == &hog);
            CHECK(h.tick(0, 16 * ms));
            CHECK(h.curr() == &child);
        }
    }
}

TEST_CASE("EEVDF 3: a forked task preempts a protected but ineligible curr") {
    test::sched_harness h(eevdf);
    auto& parent = h.add("parent", 1, 0);
    REQUIRE(&h.schedule(1, 0) == &parent);
    auto& a = h.add("a", 0, 0);
    auto& b = h.add("b", 0, 0);
    REQUIRE(&h.schedule(0, 0) == &a);
    h.ticks(0, 0, 8 * ms); // a 0-4 ms, b 4-8 ms, then a again (both at v = 4 ms, deadline 7 ms)
    REQUIRE(h.curr() == &a);
    CHECK(a.se.vlag == a.se.deadline); // protected: no new request since the pick
    CHECK(b.se.vruntime == 4 * vms);
    CHECK(b.se.deadline == 7 * vms);
    auto& child = h.make("child", 0);
    h.s->sched_fork(child, 1, 9 * ms);
    h.s->wake_up_new_task(child, 1, 9 * ms);
    // V = (5 + 4) / 2 = 4.5 ms: the child at 4.5 ms with deadline 6 ms; a (v = 5 ms) is not eligible.
    CHECK(child.se.vruntime == 9 * vms / 2);
    CHECK(child.se.deadline == 6 * vms);
    CHECK(a.se.vruntime == 5 * vms);
    CHECK_FALSE(h.eevdf().entity_eligible(h.q(), a.se));
    CHECK(a.se.vlag == a.se.deadline); // still marked protected, but RUN_TO_PARITY needs an eligible curr
    CHECK(h.s->need_resched(0));
    CHECK(&h.schedule(0, 9 * ms) == &child);
}

TEST_CASE("EEVDF 3: with NO_RUN_TO_PARITY a child forked next to a freshly picked hog runs at once") {
    test::kernel_rig r(test::rig_config(eevdf, {{"RUN_TO_PARITY", false}}));
    auto& hog = r.start("hog", {workloads::op::sleep_until(100 * ms), compute_ms(1000)}, 1, 0);
    r.start("parent", {workloads::op::sleep_until(101 * ms), workloads::op::fork(child_spec("child", 1, 0))},
            1, 1);
    run_to(r, 102 * ms);
    REQUIRE(r.k.forks() == 1);
    auto& child = *r.k.tasks().back();
    // The child's deadline (V + 1.5 ms) is earlier than the hog's (1 ms into a 3 ms request): preempt.
    CHECK(child.t.stats.pcount == 1);
    CHECK(hog.t.stats.nr_involuntary_switches == 1);
    CHECK(child.t.stats.wait_max < 20 * us); // the reschedule IPI to CPU 0
    CHECK(child.t.stats.last_arrival < 101'100 * us);
}

TEST_CASE(
    "EEVDF 3: on the simulated kernel a child forked next to a freshly picked hog waits for its deadline") {
    test::kernel_rig r(test::rig_config(eevdf));
    // CPU 0: a hog that sleeps until 100 ms, then runs with a fresh 3 ms request (protected).
    auto& hog = r.start("hog", {workloads::op::sleep_until(100 * ms), compute_ms(1000)}, 1, 0);
    // CPU 1: a parent that forks, at 101 ms, a child pinned to CPU 0.
    r.start("parent", {workloads::op::sleep_until(101 * ms), workloads::op::fork(child_spec("child", 1, 0))},
            1, 1);
    run_to(r, 102 * ms);
    REQUIRE(r.k.forks() == 1);
    auto& child = *r.k.tasks().back();
    REQUIRE(child.t.cpu == 0);
    // Placed at V (the hog's v, unchanged since the enqueue) with half a slice.
    CHECK(child.t.se.vruntime == hog.t.se.vruntime);
    CHECK(child.t.se.deadline - child.t.se.vruntime == 3 * vms / 2);
    CHECK(child.t.stats.pcount == 0);
    run_to(r, 103'900 * us);
    CHECK(r.k.sched().rq(0).curr == &hog.t);
    CHECK(hog.t.stats.nr_involuntary_switches == 0);
    run_to(r, 105 * ms);
    // The tick at 104 ms sees the hog past its deadline; the child has the earliest eligible deadline.
    CHECK(hog.t.stats.nr_involuntary_switches == 1);
    CHECK(child.t.stats.pcount == 1);
    CHECK(child.t.stats.last_arrival >= 104 * ms);
    CHECK(child.t.stats.last_arrival <= 104 * ms + 20 * us);
}

// ---- 4. RUN_TO_PARITY: an eligible curr keeps its request against a wakee with an earlier deadline. -----

TEST_CASE("EEVDF 4: a wakee with an earlier deadline preempts an eligible curr mid-request only with "
          "NO_RUN_TO_PARITY") {
    for (const bool rtp : {true, false}) {
        CAPTURE(rtp);
        test::sched_harness h(eevdf, {{"RUN_TO_PARITY", rtp}});
        auto& b = h.add("b", 0, 0);
        auto& a = h.add("a", 0, 0);
        auto& w = h.add("w", 0, 0);
        REQUIRE(&h.schedule(0, 0) == &b);
        h.tick(0, 4 * ms); // b used its request (v = 4 ms); a and w (v = 0) are eligible
        REQUIRE(h.curr() == &a);
        // a and w are picked and go to sleep at once, with positive lag.
        REQUIRE(&h.block(0, 4 * ms) == &w);
        CHECK(a.se.vlag == 4 * vms / 3); // V = 4/3 ms
        REQUIRE(&h.block(0, 4 * ms) == &b);
        CHECK(w.se.vlag == 2 * vms); // V = 2 ms
        // a wakes: placed at V - 2 x lag (W = w), it preempts b and is picked: protected, lag 4/3 ms.
        h.wake(a, 0, 4 * ms);
        CHECK(a.se.vruntime == 4 * vms - 2 * (4 * vms / 3));
        REQUIRE(h.s->need_resched(0));
        REQUIRE(&h.schedule(0, 4 * ms) == &a);
        // 0.1 ms later w wakes: lag 2 ms, inflated by (W + w) / W = 3/2 to 3 ms.
        const scheduler::nsec delay0 = w.stats.run_delay;
        h.wake(w, 0, 4'100 * us);
        const std::int64_t V = (4 * vms + a.se.vruntime) / 2; // before w joins
        CHECK(w.se.vruntime == V - 3 * vms);
        CHECK(w.se.deadline == w.se.vruntime + 3 * vms);
        CHECK(w.se.deadline < a.se.deadline);          // earlier deadline
        CHECK(h.eevdf().entity_eligible(h.q(), w.se)); // and eligible
        CHECK(h.eevdf().entity_eligible(h.q(), a.se)); // curr is eligible too
        CHECK(a.se.vlag == a.se.deadline);             // mid-request, protected
        CHECK(h.s->need_resched(0) == !rtp);
        if (!rtp) continue;
        // a keeps the CPU until its deadline, seen at the 8 ms tick; then w runs.
        CHECK(h.tick(0, 8 * ms));
        CHECK(h.curr() == &w);
        CHECK(w.stats.run_delay - delay0 == 3'900 * us);
    }
}

// ---- 5. PREEMPT_SHORT: a 0.1 ms custom slice preempts a 3 ms hog at once. ------------------------------

TEST_CASE(
    "EEVDF 5: PREEMPT_SHORT cancels the protection of a longer-slice curr for an eligible short wakee") {
    for (const bool ps : {true, false}) {
        CAPTURE(ps);
        test::sched_harness h(eevdf, {{"PREEMPT_SHORT", ps}});
        auto& s = h.make("short", 0);
        s.se.custom_slice = 100 * us;
        h.s->add_initial_task(s, 0, 0);
        CHECK(s.se.slice == 100 * us);
        CHECK(s.se.deadline == 50 * static_cast<std::int64_t>(us)); // half a slice at fork
        auto& hog = h.add("hog", 0, 0);
        CHECK(hog.se.slice == 3 * ms);
        REQUIRE(&h.schedule(0, 0) == &s); // the earlier deadline goes first, and sleeps at once
        REQUIRE(&h.block(0, 0) == &hog);  // lag 0: a real dequeue
        REQUIRE_FALSE(s.on_rq);
        CHECK(hog.se.vlag == hog.se.deadline); // protected until v reaches 1.5 ms
        h.wake(s, 0, 1 * ms);
        CHECK(h.eevdf().entity_eligible(h.q(), s.se));
        CHECK(s.se.deadline == s.se.vruntime + 100 * static_cast<std::int64_t>(us));
        CHECK(s.se.deadline < hog.se.deadline);
        // With PREEMPT_SHORT the hog's protection is cancelled (vlag = deadline + 1) and s is picked.
        CHECK((hog.se.vlag == hog.se.deadline + 1) == ps);
        CHECK(h.s->need_resched(0) == ps);
    }
}

TEST_CASE("EEVDF 5: a task with a 0.1 ms slice woken periodically next to a hog runs within 0.2 ms") {
    test::kernel_rig r(test::rig_config(eevdf));
    auto& hog = r.hog("hog", 0);
    workloads::spawn_spec s;
    s.comm = "short";
    s.allowed = test::kernel_rig::only(0);
    s.custom_slice = 100 * us;
    s.body = std::make_shared<workloads::scripted_program>(
        std::vector<workloads::op>{workloads::op::compute(50'000, nullptr),
                                   workloads::op::sleep(2 * ms + 130 * us)},
        -1);
    auto& sh = r.k.spawn(s, 0);
    run_to(r, 2'000 * ms);
    const double mean_wait =
        static_cast<double>(sh.t.stats.run_delay) / static_cast<double>(sh.t.stats.wait_count);
    CAPTURE(sh.t.stats.nr_wakeups, sh.t.stats.wait_max, mean_wait, sh.t.stats.pcount);
    CHECK(sh.t.stats.nr_wakeups >= 900);
    const scheduler::nsec cs =
        static_cast<scheduler::nsec>(r.m.platform().kernel_costs.context_switch_ps / 1000);
    CHECK(sh.t.stats.wait_max <= 200 * us + cs);
    // Every wakeup gets the CPU, and each 50 us run fits in the 0.1 ms request: never preempted.
    CHECK(sh.t.stats.pcount == sh.t.stats.nr_wakeups + 1);
    CHECK(sh.t.stats.nr_involuntary_switches == 0);
    CHECK(hog.t.se.sum_exec_runtime > 1'900 * ms);
}

// ---- 6. Delayed dequeue: an ineligible sleeper stays queued and wakes where it is. ----------------------

TEST_CASE("EEVDF 6: a task that sleeps while ineligible stays counted in h_nr_running until it is picked") {
    test::sched_harness h(eevdf);
    auto& a = h.add("a", 0, 0, 0, sched_policy::normal, false);
    auto& b = h.add("b", 0, 0, 0, sched_policy::normal, false);
    REQUIRE(&h.schedule(0, 0) == &a);
    h.ticks(0, 0, 8 * ms); // a 0-4, b 4-8, a again from 8 ms (both at v = 4 ms)
    REQUIRE(h.curr() == &a);
    // a runs 1 ms more (v = 5 ms > V = 4.5 ms) and sleeps: ineligible, so it stays queued.
    REQUIRE(&h.block(0, 9 * ms) == &b);
    CHECK(h.eevdf().avg_vruntime(h.q()) - a.se.vruntime == -vms / 2);
    CHECK_FALSE(h.eevdf().entity_eligible(h.q(), a.se));
    CHECK(a.state == task_state::sleeping);
    CHECK(a.se.sched_delayed);
    CHECK(a.on_rq);
    CHECK(h.q().h_nr_running == 2);
    CHECK(h.q().nr_running == 2);
    CHECK(h.rq().nr_running == 2);
    CHECK(h.q().load == 2048);
    // b runs (v from 4 ms, deadline 7 ms); a becomes eligible once b passes it. At the 12 ms tick b's
    // request ends and b (v = 7 ms > V = 6 ms) is no longer eligible: a (deadline 7 ms) is picked, and
    // being delayed it is dequeued for real; the pick repeats and finds b.
    h.ticks(0, 9 * ms, 11 * ms);
    CHECK(h.q().h_nr_running == 2);
    CHECK(h.tick(0, 12 * ms));
    CHECK(h.curr() == &b);
    CHECK_FALSE(a.se.sched_delayed);
    CHECK_FALSE(a.on_rq);
    CHECK(h.q().h_nr_running == 1);
    CHECK(h.rq().nr_running == 1);
    CHECK(h.q().load == 1024);
}

TEST_CASE("EEVDF 6: a delayed sleeper woken from another CPU is requeued on its own CPU while others idle") {
    test::sched_harness h(eevdf);
    auto& a = h.add("a", 0, 0, 0, sched_policy::normal, false); // not pinned
    auto& b = h.add("b", 0, 0, 0, sched_policy::normal, false);
    REQUIRE(&h.schedule(0, 0) == &a);
    h.ticks(0, 0, 8 * ms);
    REQUIRE(&h.block(0, 9 * ms) == &b);
    REQUIRE(a.se.sched_delayed);
    for (unsigned c = 1; c < 8; ++c) REQUIRE(h.rq(c).is_idle());
    const auto w = h.wake(a, 3, 9'500 * us); // woken by code on idle CPU 3
    CHECK(w.woken);
    CHECK(w.queued); // ttwu_runnable: no CPU selection
    CHECK(w.cpu == 0);
    CHECK_FALSE(w.migrated);
    CHECK(a.cpu == 0);
    CHECK(a.state == task_state::running);
    CHECK_FALSE(a.se.sched_delayed);
    CHECK(h.q().h_nr_running == 2);
    CHECK(a.stats.nr_wakeups_remote == 1);
    CHECK(a.stats.nr_migrations == 0);
}

// ---- 7. Lag is preserved across sleep; DELAY_ZERO clips the positive lag of a delayed dequeue. ---------

TEST_CASE(
    "EEVDF 7: a task dequeued with vlag +2 ms rejoins a queue of equal weight at V - 4 ms with lag +2 ms") {
    test::sched_harness h(eevdf);
    auto& a = h.add("a", 0, 0);
    auto& w = h.add("w", 0, 0);
    REQUIRE(&h.schedule(0, 0) == &a);
    h.tick(0, 4 * ms); // a: v = 4 ms; w: v = 0, V = 2 ms
    REQUIRE(h.curr() == &w);
    REQUIRE(&h.block(0, 4 * ms) == &a); // eligible: dequeued for real with lag V - v
    CHECK_FALSE(w.se.sched_delayed);
    CHECK_FALSE(w.on_rq);
    CHECK(w.se.vlag == 2 * vms);
    h.ticks(0, 4 * ms, 12 * ms);
    h.wake(w, 0, 13 * ms);
    const std::int64_t V = a.se.vruntime; // a alone: W = w = 1024
    CHECK(V == 13 * vms);
    CHECK(w.se.vruntime == V - 4 * vms); // lag x (W + w) / W
    CHECK(w.se.deadline == w.se.vruntime + 3 * vms);
    const std::int64_t V_after = h.eevdf().avg_vruntime(h.q());
    CHECK(V_after == V - 2 * vms);
    CHECK(V_after - w.se.vruntime == 2 * vms); // its lag after joining: +2 ms, as when it left
}

TEST_CASE("EEVDF 7: DELAY_ZERO clips the positive lag of a delayed-dequeued task to zero") {
    for (const bool zero : {true, false}) {
        CAPTURE(zero);
        test::sched_harness h(eevdf, {{"DELAY_ZERO", zero}});
        auto& a = h.add("a", 0, 0);
        auto& b = h.add("b", 0, 0);
        REQUIRE(&h.schedule(0, 0) == &a);
        h.ticks(0, 0, 8 * ms);
        REQUIRE(&h.block(0, 9 * ms) == &b); // a sleeps ineligible (v = 5 ms, V = 4.5 ms): delayed
        REQUIRE(a.se.sched_delayed);
        CHECK(h.eevdf().avg_vruntime(h.q()) - a.se.vruntime == -vms / 2);
        // At the 12 ms tick b (v = 7 ms) renews its request; a is picked and dequeued with lag
        // V - v = 6 - 5 = +1 ms, which DELAY_ZERO clips to 0.
        h.ticks(0, 9 * ms, 12 * ms);
        REQUIRE_FALSE(a.on_rq);
        CHECK(a.se.vlag == (zero ? 0 : 1 * vms));
        // When it wakes next to b (W = w) it is placed at V - 2 x vlag.
        h.wake(a, 0, 13 * ms);
        CHECK(a.se.vruntime == b.se.vruntime - (zero ? 0 : 2 * vms));
    }
}

TEST_CASE("EEVDF 7: a delayed task woken with positive lag is placed at V with a fresh request") {
    test::sched_harness h(eevdf);
    auto& a = h.add("a", 0, 0);
    auto& b = h.add("b", 0, 0);
    REQUIRE(&h.schedule(0, 0) == &a);
    h.ticks(0, 0, 8 * ms);
    REQUIRE(&h.block(0, 9'500 * us) == &b); // v = 5.5 ms, V = 4.75 ms: delayed with lag -0.75 ms
    REQUIRE(a.se.sched_delayed);
    CHECK(h.eevdf().avg_vruntime(h.q()) - a.se.vruntime == -3 * vms / 4);
    // The 12 ms tick: b (picked at 9.5 ms, v = 4 ms, deadline 7 ms) has v = 6.5 ms, request not used up.
    CHECK_FALSE(h.tick(0, 12 * ms));
    CHECK(b.se.vruntime == 6'500 * static_cast<std::int64_t>(us));
    CHECK(h.eevdf().avg_vruntime(h.q()) - a.se.vruntime == vms / 2); // its lag is now +0.5 ms
    const auto r = h.wake(a, 0, 13 * ms);
    CHECK(r.queued);
    CHECK_FALSE(a.se.sched_delayed);
    // DELAY_ZERO: lag 0, re-placed at V of the others (b's 6.5 ms as of its last update), full request.
    CHECK(a.se.vlag == 0);
    CHECK(a.se.vruntime == 6'500 * static_cast<std::int64_t>(us));
    CHECK(a.se.deadline == a.se.vruntime + 3 * vms);
    CHECK(h.q().h_nr_running == 2);
}

// ---- 8. sched_yield pushes the deadline back one slice. ---------------------------------------------

TEST_CASE("EEVDF 8: yield pushes the yielder's deadline back one slice and the other hog runs next") {
    test::sched_harness h(eevdf);
    auto& a = h.add("a", 0, 0);
    auto& b = h.add("b", 0, 0);
    REQUIRE(&h.schedule(0, 0) == &a);
    // 1 ms in: v = 1 ms, still before the initial deadline (half a slice, 1.5 ms).
    const std::int64_t before = a.se.deadline;
    CHECK(before == 3 * vms / 2);
    h.s->yield(0, 1 * ms);
    CHECK(a.se.vruntime == 1 * vms);
    CHECK(a.se.deadline == before + 3 * vms);
    CHECK(h.rq().stats.yld_count == 1);
    CHECK(&h.schedule(0, 1 * ms, false) == &b);
    CHECK(a.stats.nr_involuntary_switches == 1); // sched_yield counts as involuntary
    CHECK(b.se.deadline < a.se.deadline);
}

TEST_CASE(
    "EEVDF 8: a nice-5 yielder's deadline moves by its own vslice and yield does not bypass eligibility") {
    test::sched_harness h(eevdf);
    auto& b = h.add("b", 0, 0);
    auto& a = h.add("a", 0, 0, 5);
    REQUIRE(&h.schedule(0, 0) == &b);
    CHECK(h.tick(0, 4 * ms)); // b used its request: v = 4 ms
    REQUIRE(h.curr() == &a);  // v = 0, deadline 3 ms x 1024 / 335 / 2
    const std::int64_t vslice = scheduler::fair_class::calc_delta_fair(3 * ms, a.se);
    CHECK(vslice == Approx(3e6 * 1024 / 335).margin(2));
    CHECK(a.se.deadline == vslice / 2);
    h.s->yield(0, 5 * ms);
    CHECK(a.se.deadline == vslice / 2 + vslice);
    // a (v = 3.06 ms) is still eligible, b (v = 4 ms) is not: yield only moves the deadline, a runs on.
    CHECK(h.eevdf().entity_eligible(h.q(), a.se));
    CHECK_FALSE(h.eevdf().entity_eligible(h.q(), b.se));
    CHECK(&h.schedule(0, 5 * ms, false) == &a);
}
