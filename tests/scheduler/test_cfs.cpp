// The CFS fair class (Linux v5.15) against the "What to test" list of reference/scheduler/01-fair-cfs.md,
// at f = 4 (8 CPUs): sched_latency 24 ms, min_granularity 3 ms, wakeup_granularity 4 ms, HZ = 250.
// Whole-run behaviour (shares, stint lengths, alternation) runs on the simulated kernel (kernel_rig, one
// SystemC elaboration per TEST_CASE); the exact formulas drive the scheduler directly (sched_harness).
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
namespace op = workloads;

namespace {

constexpr auto cfs = kernel_version::cfs_v5_15;

scheduler::cfs_class& cfs_of(test::kernel_rig& r) {
    return dynamic_cast<scheduler::cfs_class&>(r.k.sched().fair());
}
workloads::op compute_ms(double m) {
    return workloads::op::compute(static_cast<std::uint64_t>(m * 1e6), nullptr);
}

} // namespace

// ---- 1. Two nice-0 hogs: 50/50, stints of one slice (12 ms) plus up to one tick. -------------------

TEST_CASE("CFS 1: two nice-0 hogs on one CPU share it 50/50 in 12 ms slices plus at most one tick") {
    test::kernel_rig r(test::rig_config(cfs));
    auto& a = r.hog("a", 0);
    auto& b = r.hog("b", 0);
    run_to(r, 10'000 * ms);
    const double sa = share(a, b);
    CAPTURE(sa, mean_stint_ms(a.t), mean_stint_ms(b.t), a.t.stats.slice_max, b.t.stats.slice_max);
    CHECK(sa == Approx(0.5).margin(0.005)); // 50/50 within 1%
    CHECK(r.seconds(a) + r.seconds(b) > 9.9);
    // The slice of each: period(2) = 24 ms, halved.
    CHECK(cfs_of(r).sched_slice(r.k.sched().rq(0), a.t.se) == 12 * ms);
    CHECK(cfs_of(r).sched_period(2) == 24 * ms);
    // Tick preemption at HZ = 250: a stint ends at the first tick past 12 ms, so 12-16 ms.
    for (const auto* t : {&a, &b}) {
        CHECK(mean_stint_ms(t->t) >= 12.0);
        CHECK(mean_stint_ms(t->t) <= 16.1);
        CHECK(t->t.stats.slice_max > 12 * ms);
        CHECK(t->t.stats.slice_max <= 16 * ms + 100 * us);
        CHECK(t->t.stats.nr_involuntary_switches >= 300); // 10 s / 2 / 16 ms = 312 stints each
        CHECK(t->t.stats.nr_voluntary_switches == 0);
    }
}

// ---- 2. Nice shares follow the weights. -----------------------------------------------------------

TEST_CASE("CFS 2: nice 0 vs nice 5 on one CPU share it 75.35 / 24.65") {
    test::kernel_rig r(test::rig_config(cfs));
    auto& a = r.hog("n0", 0, 0);
    auto& b = r.hog("n5", 0, 5);
    run_to(r, 10'000 * ms);
    CAPTURE(mean_stint_ms(a.t), mean_stint_ms(b.t));
    CHECK(share(a, b) == Approx(0.7535).margin(0.01));
    CHECK(share(b, a) == Approx(0.2465).margin(0.01));
    // slice = 24 ms x w / (1024 + 335): 18.1 ms and 5.9 ms.
    CHECK(cfs_of(r).sched_slice(r.k.sched().rq(0), a.t.se) == Approx(24e6 * 1024 / 1359).margin(1e3));
    CHECK(cfs_of(r).sched_slice(r.k.sched().rq(0), b.t.se) == Approx(24e6 * 335 / 1359).margin(1e3));
}

TEST_CASE("CFS 2: nice 0 vs nice 19 on one CPU share it 98.56 / 1.44") {
    test::kernel_rig r(test::rig_config(cfs));
    auto& a = r.hog("n0", 0, 0);
    auto& b = r.hog("n19", 0, 19);
    run_to(r, 10'000 * ms);
    CAPTURE(mean_stint_ms(a.t), mean_stint_ms(b.t), b.t.stats.pcount);
    CHECK(share(a, b) == Approx(0.9856).margin(0.01));
    CHECK(share(b, a) == Approx(0.0144).margin(0.01));
    CHECK(share(b, a) > 0.0044); // it is not starved
    // The nice-19 slice, 24 ms x 15 / 1039 = 0.35 ms, is raised to min_granularity (BASE_SLICE).
    CHECK(cfs_of(r).sched_slice(r.k.sched().rq(0), b.t.se) == 3 * ms);
}

// ---- 3. 16 hogs: period 16 x min_granularity = 48 ms, slices of 3 ms. ----------------------------------

TEST_CASE("CFS 3: 16 hogs on one CPU make a 48 ms period of 3 ms slices") {
    // Stints exactly one tick long: the balancer's own time (softirq at some ticks) would shorten the
    // stint after it by microseconds and let equal hogs overtake one another. Those passes cost nothing
    // here.
    auto cfg = test::rig_config(cfs);
    cfg.tunables.lb_pass_cost_ns = cfg.tunables.lb_rq_cost_ns = 0;
    test::kernel_rig r(cfg);
    std::vector<workloads::kernel_task*> hogs;
    for (int i = 0; i < 16; ++i) hogs.push_back(&r.hog("h" + std::to_string(i), 0));
    // Initial placements differ (START_DEBIT with 1..16 queued); measure from 1 s on.
    run_to(r, 1'000 * ms);
    std::vector<scheduler::nsec> sum0;
    std::vector<std::uint64_t> p0;
    for (auto* h : hogs) {
        sum0.push_back(h->t.se.sum_exec_runtime);
        p0.push_back(h->t.stats.pcount);
        h->t.stats.wait_max = h->t.stats.slice_max = 0; // as writing 0 to /proc/<pid>/sched
    }
    run_to(r, 10'000 * ms);
    auto& c = cfs_of(r);
    CHECK(c.sched_period(8) == 24 * ms); // up to sched_nr_latency tasks: sched_latency
    CHECK(c.sched_period(9) == 27 * ms); // beyond: n x min_granularity
    CHECK(c.sched_period(16) == 48 * ms);
    REQUIRE(r.k.sched().rq(0).cfs.h_nr_running == 16);
    double total = 0;
    for (std::size_t i = 0; i < hogs.size(); ++i)
        total += static_cast<double>(hogs[i]->t.se.sum_exec_runtime - sum0[i]);
    CHECK(total > 8.99e9);
    for (std::size_t i = 0; i < hogs.size(); ++i) {
        const scheduler::task& t = hogs[i]->t;
        const double ran = static_cast<double>(t.se.sum_exec_runtime - sum0[i]);
        const double stint = ran / 1e6 / static_cast<double>(t.stats.pcount - p0[i]);
        CAPTURE(t.comm, ran / 1e6, stint, t.stats.wait_max, t.stats.slice_max);
        CHECK(c.sched_slice(r.k.sched().rq(0), t.se) == 3 * ms);
        CHECK(ran / total == Approx(1.0 / 16).epsilon(0.01)); // equal shares within 1%
        // Each stint is one slice, ended at the first tick past 3 ms (4 ms at HZ = 250).
        CHECK(stint >= 3.0);
        CHECK(stint <= 4.05);
        CHECK(t.stats.slice_max <= 4 * ms + 100 * us);
        // Between two of its stints the other 15 hogs run one stint each: 45 ms (15 x 3) to 60 ms (15 x 4).
        CHECK(t.stats.wait_max >= 45 * ms);
        CHECK(t.stats.wait_max <= 61 * ms);
    }
}

TEST_CASE("CFS 3: at HZ=1000 the 16 slices of 3 ms are ended within a 1 ms tick") {
    auto cfg = test::rig_config(cfs);
    cfg.hz = 1000;
    test::kernel_rig r(cfg);
    std::vector<workloads::kernel_task*> hogs;
    for (int i = 0; i < 16; ++i) hogs.push_back(&r.hog("h" + std::to_string(i), 0));
    run_to(r, 2'000 * ms);
    for (auto* h : hogs) {
        CAPTURE(h->t.comm, mean_stint_ms(h->t), h->t.stats.slice_max);
        CHECK(mean_stint_ms(h->t) >= 3.0);
        CHECK(mean_stint_ms(h->t) <= 4.05);
        CHECK(h->t.stats.slice_max <= 4 * ms + 100 * us);
    }
}

// ---- 4. A long sleeper gets at most sched_latency / 2 = 12 ms of credit. ------------------------------

TEST_CASE("CFS 4: a 1 s sleeper is placed at min_vruntime - 12 ms and preempts at once") {
    test::sched_harness h(cfs);
    auto& hog = h.add("hog", 0, 0);
    auto& s = h.add("sleeper", 0, 0);
    // Initial placement (START_DEBIT): min_vruntime + vslice, with the new task counted in the period.
    CHECK(hog.se.vruntime == 24 * vms);
    CHECK(s.se.vruntime == 12 * vms);
    REQUIRE(&h.schedule(0, 0) == &s);
    REQUIRE(&h.block(0, 1 * ms) == &hog); // sleeps at v = 13 ms
    CHECK(s.se.vruntime == 13 * vms);
    h.ticks(0, 1 * ms, 1000 * ms); // the hog runs alone for 1 s
    CHECK_FALSE(h.s->need_resched(0));
    const auto w = h.wake(s, 0, 1001 * ms);
    REQUIRE(w.woken);
    CHECK(w.cpu == 0);
    CHECK(hog.se.vruntime == 1024 * vms); // 24 ms + 1000 ms run
    CHECK(h.q().min_vruntime == 1024 * vms);
    CHECK(s.se.vruntime == h.q().min_vruntime - 12 * vms); // min_vruntime - latency / 2
    // 12 ms lead > wakeup_gran 4 ms: preempt now, and the sleeper becomes the next buddy.
    CHECK(h.s->need_resched(0));
    CHECK(h.q().next == &s.se);
    REQUIRE(&h.schedule(0, 1001 * ms) == &s);
    // It runs one slice (12 ms), ended by the first tick past it: 1004, 1008, 1012 (11 ms), 1016 (15 ms).
    h.ticks(0, 1001 * ms, 1015 * ms);
    CHECK(h.curr() == &s);
    CHECK(h.tick(0, 1016 * ms));
    CHECK(h.curr() == &hog);
    CHECK(s.se.sum_exec_runtime == 1 * ms + 15 * ms);
}

TEST_CASE("CFS 4: a short sleeper keeps its vruntime and a longer one is capped at 12 ms of credit") {
    for (const scheduler::nsec sleep : {2 * ms, 11 * ms, 13 * ms, 40 * ms}) {
        test::sched_harness h(cfs);
        auto& hog = h.add("hog", 0, 0);
        auto& s = h.add("sleeper", 0, 0);
        REQUIRE(&h.schedule(0, 0) == &s);
        h.ticks(0, 0, 12 * ms); // the sleeper runs 12 ms: v = 24 ms, as the hog
        REQUIRE(&h.block(0, 12 * ms) == &hog);
        CHECK(s.se.vruntime == 24 * vms);
        h.ticks(0, 12 * ms, 12 * ms + sleep);
        h.wake(s, 0, 12 * ms + sleep);
        CAPTURE(sleep);
        CHECK(hog.se.vruntime == static_cast<std::int64_t>(24 * ms + sleep));
        // v = max(v_old, min_vruntime - 12 ms): credit = min(sleep, 12 ms).
        const std::int64_t credit = static_cast<std::int64_t>(std::min(sleep, 12 * ms));
        CHECK(hog.se.vruntime - s.se.vruntime == credit);
        // It preempts only with a lead above wakeup_gran (4 ms).
        CHECK(h.s->need_resched(0) == (credit > static_cast<std::int64_t>(4 * ms)));
    }
}

TEST_CASE("CFS 4: a 1 s sleeper next to a hog preempts at once then runs one slice and the two alternate") {
    test::kernel_rig r(test::rig_config(cfs));
    auto& hog = r.hog("hog", 0);
    // Queued second, it starts first (v = 12 ms vs 24 ms), goes to sleep until 1 s, then computes.
    auto& s = r.start("sleeper", {workloads::op::sleep_until(1000 * ms), compute_ms(5000)}, 1, 0);
    run_to(r, 999 * ms);
    const scheduler::nsec s0 = s.t.se.sum_exec_runtime;
    CHECK(s0 < 100 * us);
    CHECK(s.t.state == task_state::sleeping);
    CHECK(hog.t.stats.nr_involuntary_switches == 0);
    run_to(r, 1001 * ms);
    // Woken at 1 s by its timer on CPU 0: it preempted the hog at once.
    CHECK(r.k.sched().rq(0).curr == &s.t);
    CHECK(hog.t.stats.nr_involuntary_switches == 1);
    CHECK(s.t.stats.wait_max < 20 * us);
    // Placed 12 ms behind the hog (for nice 0, v - sum_exec stays constant while running).
    const std::int64_t placed = s.t.se.vruntime - static_cast<std::int64_t>(s.t.se.sum_exec_runtime - s0);
    const std::int64_t behind = hog.t.se.vruntime - placed;
    CHECK(behind >= static_cast<std::int64_t>(12 * ms));
    CHECK(behind <= static_cast<std::int64_t>(12 * ms + 20 * us)); // the hog is charged the wakeup interrupt
    // One slice: 12 ms, up to the next tick.
    run_to(r, 1020 * ms);
    CHECK(r.k.sched().rq(0).curr == &hog.t);
    const scheduler::nsec first = s.t.se.sum_exec_runtime - s0;
    CHECK(first > 12 * ms);
    CHECK(first <= 16 * ms + 50 * us);
    // Then they alternate evenly, in stints of one slice (12 ms, up to the next tick).
    const scheduler::nsec s1 = s.t.se.sum_exec_runtime, h1 = hog.t.se.sum_exec_runtime;
    const auto sp1 = s.t.stats.pcount, hp1 = hog.t.stats.pcount;
    s.t.stats.slice_max = hog.t.stats.slice_max = 0; // as writing 0 to /proc/<pid>/sched
    run_to(r, 3000 * ms);
    const double ds = static_cast<double>(s.t.se.sum_exec_runtime - s1);
    const double dh = static_cast<double>(hog.t.se.sum_exec_runtime - h1);
    const auto ns = s.t.stats.pcount - sp1, nh = hog.t.stats.pcount - hp1;
    CAPTURE(ds / 1e6, dh / 1e6, ns, nh, s.t.stats.slice_max, hog.t.stats.slice_max);
    CHECK(ds / (ds + dh) == Approx(0.5).margin(0.005));
    CHECK(std::abs(static_cast<long>(ns) - static_cast<long>(nh)) <= 1);
    CHECK(ns >= 2000 / 16 / 2);
    for (const auto* t : {&s, &hog}) {
        CHECK(t->t.stats.slice_max > 12 * ms);
        CHECK(t->t.stats.slice_max <= 16 * ms + 50 * us);
    }
}

// ---- 5. A lead of at most wakeup_gran does not preempt. ----------------------------------------------

TEST_CASE("CFS 5: a wakee leading by at most 4 ms does not preempt and waits for the tick check") {
    struct variant {
        scheduler::nsec wake_at; // the hog runs from 14 ms at v = 24 ms; the wakee sleeps at v = 26 ms
        std::int64_t lead;
        bool preempts;
    };
    for (const variant v : {variant{18 * ms, 2 * vms, false}, variant{20 * ms, 4 * vms, false},
                            variant{20 * ms + 1, 4 * vms + 1, true}, variant{21 * ms, 5 * vms, true}}) {
        CAPTURE(v.lead);
        test::sched_harness h(cfs);
        auto& hog = h.add("hog", 0, 0);
        auto& w = h.add("wakee", 0, 0);
        REQUIRE(&h.schedule(0, 0) == &w);
        h.ticks(0, 0, 14 * ms);
        REQUIRE(&h.block(0, 14 * ms) == &hog);
        CHECK(w.se.vruntime == 26 * vms);
        h.ticks(0, 14 * ms, v.wake_at);
        h.wake(w, 0, v.wake_at);
        CHECK(hog.se.vruntime - w.se.vruntime == v.lead); // a short sleep: no credit beyond v_old
        CHECK(h.cfs().wakeup_preempt_entity(hog.se, w.se) == (v.preempts ? 1 : 0));
        CHECK(h.s->need_resched(0) == v.preempts);
        if (v.preempts) continue;
        // The hog was picked at 14 ms with a 12 ms slice; at 20 and 24 ms its lead over the wakee
        // (4, 8 ms) is under the slice, so the tick ends it only once it ran past 12 ms: at 28 ms.
        h.ticks(0, v.wake_at, 27 * ms);
        CHECK(h.curr() == &hog);
        CHECK(h.tick(0, 28 * ms));
        CHECK(h.curr() == &w);
        CHECK(w.stats.wait_max == 28 * ms - v.wake_at);
    }
}

TEST_CASE(
    "CFS 5: on the simulated kernel a wakee 2 ms ahead waits for the tick and one 5 ms ahead does not") {
    test::kernel_rig r(test::rig_config(cfs));
    // CPU 0: a hog and a task that computes 14 ms, sleeps until 18 ms (lead about 2 ms when it wakes).
    auto& hog = r.hog("hog", 0);
    auto& w = r.start("w", {compute_ms(14), workloads::op::sleep_until(18 * ms), compute_ms(2)}, 1, 0);
    // CPU 1: the same, sleeping until 21 ms (lead about 5 ms).
    auto& hog1 = r.hog("hog1", 1);
    auto& w1 = r.start("w1", {compute_ms(14), workloads::op::sleep_until(21 * ms), compute_ms(2)}, 1, 1);
    run_to(r, 27 * ms);
    CHECK(r.k.sched().rq(0).curr == &hog.t);
    CHECK(w.t.stats.pcount == 1);
    CHECK(hog.t.stats.nr_involuntary_switches == 0);
    CHECK(hog1.t.stats.nr_involuntary_switches == 1); // preempted by the wakeup
    CHECK(w1.t.stats.last_arrival >= 21 * ms);
    CHECK(w1.t.stats.last_arrival <= 21 * ms + 20 * us);
    run_to(r, 29 * ms);
    // The tick at 28 ms: the hog ran from about 14 ms, past its 12 ms slice.
    CHECK(r.k.sched().rq(0).curr == &w.t);
    CHECK(hog.t.stats.nr_involuntary_switches == 1);
    CHECK(w.t.stats.last_arrival >= 28 * ms);
    CHECK(w.t.stats.last_arrival <= 28 * ms + 20 * us);
    CHECK(w.t.stats.wait_max >= 10 * ms - 20 * us);
}

// ---- 6. Policies: SCHED_BATCH wakees never preempt, a SCHED_IDLE curr always yields to a normal one. --

TEST_CASE("CFS 6: a SCHED_BATCH wakee with a 12 ms lead does not preempt at wakeup") {
    for (const auto policy : {sched_policy::batch, sched_policy::normal}) {
        test::sched_harness h(cfs);
        auto& hog = h.add("hog", 0, 0);
        auto& w = h.add("wakee", 0, 0, 0, policy);
        REQUIRE(&h.schedule(0, 0) == &w);
        REQUIRE(&h.block(0, 1 * ms) == &hog);
        h.ticks(0, 1 * ms, 100 * ms);
        h.wake(w, 0, 101 * ms);
        CHECK(hog.se.vruntime - w.se.vruntime == static_cast<std::int64_t>(12 * ms));
        const bool batch = policy == sched_policy::batch;
        CAPTURE(batch);
        CHECK(h.s->need_resched(0) == !batch);
        if (!batch) continue;
        // The tick preempts it: the hog ran 100 ms, far past its slice.
        CHECK(h.tick(0, 104 * ms));
        CHECK(h.curr() == &w);
        CHECK(w.stats.wait_max == 3 * ms);
    }
}

TEST_CASE("CFS 6: a SCHED_BATCH task waking next to a hog runs only at the next tick") {
    test::kernel_rig r(test::rig_config(cfs));
    auto& hog = r.hog("hog", 0);
    // It runs at a tick T, computes 1 ms and sleeps 20.3 ms: it wakes at T + 21.3 ms with a 12 ms lead,
    // which would preempt a normal hog at once; as SCHED_BATCH it waits for the tick at T + 24 ms.
    auto& b = r.start("batch", {compute_ms(1), workloads::op::sleep(20 * ms + 300 * us)}, -1, 0, true, 0,
                      sched_policy::batch);
    run_to(r, 2000 * ms);
    const double mean_wait =
        static_cast<double>(b.t.stats.run_delay) / static_cast<double>(b.t.stats.wait_count);
    CAPTURE(b.t.stats.wait_count, mean_wait / 1e6, b.t.stats.wait_max);
    CHECK(b.t.stats.nr_wakeups >= 80);
    CHECK(b.t.stats.wait_max <= 2700 * us);
    CHECK(mean_wait >= 2.6e6);
    // The hog is only ever preempted at a tick: once per batch wakeup.
    CHECK(hog.t.stats.nr_involuntary_switches <= b.t.stats.nr_wakeups + 1);
}

TEST_CASE("CFS 6: a SCHED_IDLE curr is preempted by any normal wakee even one behind it in vruntime") {
    // Control: a nice-19 normal curr in the same position is not preempted.
    for (const auto curr_policy : {sched_policy::idle, sched_policy::normal}) {
        const bool idle = curr_policy == sched_policy::idle;
        CAPTURE(idle);
        test::sched_harness h(cfs);
        auto& w = h.add("wakee", 0, 0); // v = 24 ms
        auto& c = h.add("curr", 0, 0, idle ? 0 : 19, curr_policy);
        // The light curr starts at 3 ms (min_granularity) of vslice: 1024 ms (weight 3) or 205 ms (nice 19).
        CHECK(c.se.vruntime == Approx(3e6 * 1024 / (idle ? 3 : 15)).epsilon(1e-6));
        REQUIRE(&h.schedule(0, 0) == &w);
        // The wakee runs (no tick in between) until it is 10 ms ahead of curr, then sleeps.
        const scheduler::nsec block_at =
            static_cast<scheduler::nsec>(c.se.vruntime - w.se.vruntime) + 10 * ms;
        REQUIRE(&h.block(0, block_at) == &c);
        h.wake(w, 0, block_at + 1 * us);
        CAPTURE(c.se.vruntime, w.se.vruntime);
        CHECK(w.se.vruntime > c.se.vruntime); // behind curr: the vruntime rule alone would never preempt
        CHECK(h.cfs().wakeup_preempt_entity(c.se, w.se) == -1);
        CHECK(h.s->need_resched(0) == idle);
    }
}

TEST_CASE("CFS 6: a normal task waking next to a SCHED_IDLE hog runs at once") {
    test::kernel_rig r(test::rig_config(cfs));
    auto& idle_hog = r.hog("idle-hog", 0, 0, sched_policy::idle);
    auto& w = r.start("w", {compute_ms(1), workloads::op::sleep(10 * ms + 300 * us)}, -1, 0);
    run_to(r, 1000 * ms);
    CAPTURE(w.t.stats.wait_max, w.t.stats.nr_wakeups);
    CHECK(w.t.stats.nr_wakeups >= 80);
    CHECK(w.t.stats.wait_max < 20 * us);
    CHECK(idle_hog.t.stats.nr_involuntary_switches >= w.t.stats.nr_wakeups);
    CHECK(idle_hog.t.se.sum_exec_runtime > 800 * ms); // it gets the rest of the CPU
}

// ---- 7. Fork: START_DEBIT keeps the parent running; sched_child_runs_first hands over to the child. ---

TEST_CASE(
    "CFS 7: a child forked on a busy CPU starts one vslice past min_vruntime and the parent keeps running") {
    for (const bool child_first : {false, true}) {
        CAPTURE(child_first);
        test::sched_harness h(cfs, {}, [&](scheduler::sched_config& c) { c.child_runs_first = child_first; });
        auto& other = h.add("other", 0, 0); // v = 24 ms
        auto& parent = h.add("parent", 0, 0);
        REQUIRE(&h.schedule(0, 0) == &parent); // v = 12 ms
        h.ticks(0, 0, 4 * ms);
        REQUIRE(h.curr() == &parent);
        auto& child = h.make("child", 0);
        h.s->sched_fork(child, 0, 5 * ms);
        const unsigned cpu = h.s->wake_up_new_task(child, 0, 5 * ms);
        CHECK(cpu == 0);
        // vslice with 3 tasks: 24 ms x 1024 / 3072 = 8 ms; min_vruntime is the parent's v, 17 ms.
        CHECK(h.q().min_vruntime == 17 * vms);
        if (!child_first) {
            CHECK(child.se.vruntime == 25 * vms);
            CHECK(parent.se.vruntime == 17 * vms);
            CHECK_FALSE(h.s->need_resched(0)); // the parent keeps running
            // It runs out its 8 ms slice: ticks at 8 (ran 8, not past it), 12 (ran 12).
            h.ticks(0, 5 * ms, 8 * ms);
            CHECK(h.curr() == &parent);
            CHECK(h.tick(0, 12 * ms));
            CHECK(h.curr() == &other); // v 24 ms < the child's 25 ms
        } else {
            // Swapped: the child takes the parent's v and the parent its debit.
            CHECK(child.se.vruntime == 17 * vms);
            CHECK(parent.se.vruntime == 25 * vms);
            CHECK(h.s->need_resched(0));
            CHECK(&h.schedule(0, 5 * ms) == &child);
        }
    }
}

TEST_CASE("CFS 7: on the simulated kernel a forked child waits for the parent's slice") {
    test::kernel_rig r(test::rig_config(cfs));
    r.hog("other", 0);
    auto spec = std::make_shared<workloads::spawn_spec>();
    spec->comm = "child";
    spec->body = std::make_shared<workloads::scripted_program>(std::vector<workloads::op>{compute_ms(2)}, 1);
    auto& parent = r.start("parent", {workloads::op::fork(spec), compute_ms(30)}, 1, 0);
    run_to(r, 5 * ms);
    REQUIRE(r.k.forks() == 1);
    auto& child = *r.k.tasks().back();
    CHECK(child.t.cpu == 0); // the parent's affinity
    CHECK(r.k.sched().rq(0).curr == &parent.t);
    CHECK(parent.t.stats.nr_involuntary_switches == 0);
    CHECK(child.t.stats.pcount == 0);
    // START_DEBIT: one vslice (8 ms with three tasks) past the parent.
    const std::int64_t debit =
        child.t.se.vruntime - 12 * static_cast<std::int64_t>(ms) - static_cast<std::int64_t>(child.created);
    CHECK(debit >= static_cast<std::int64_t>(8 * ms));
    CHECK(debit <= static_cast<std::int64_t>(8 * ms + 50 * us));
    run_to(r, 40 * ms);
    // The parent ran its 8 ms slice (ended at the 8 or 12 ms tick); then the child (v about 20 ms) ran
    // before the other hog (24 ms).
    CHECK(child.t.stats.pcount >= 1);
    CHECK(child.t.stats.wait_max >= 7 * ms);
    CHECK(child.t.stats.wait_max <= 12 * ms + 50 * us);
    CHECK(parent.t.stats.nr_involuntary_switches >= 1);
}

TEST_CASE("CFS 7: with sched_child_runs_first=1 the forked child runs before its parent") {
    auto cfg = test::rig_config(cfs);
    cfg.child_runs_first = true;
    test::kernel_rig r(cfg);
    r.hog("other", 0);
    auto spec = std::make_shared<workloads::spawn_spec>();
    spec->comm = "child";
    spec->body = std::make_shared<workloads::scripted_program>(std::vector<workloads::op>{compute_ms(2)}, 1);
    auto& parent = r.start("parent", {workloads::op::fork(spec), compute_ms(30)}, 1, 0);
    run_to(r, 1 * ms);
    REQUIRE(r.k.forks() == 1);
    auto& child = *r.k.tasks().back();
    CHECK(r.k.sched().rq(0).curr == &child.t);
    CHECK(child.t.stats.wait_max < 20 * us);
    CHECK(parent.t.stats.nr_involuntary_switches == 1);
    run_to(r, 3 * ms);
    CHECK(child.t.state == task_state::dead); // ran its 2 ms to the end
    CHECK(r.k.sched().rq(0).curr == &parent.t);
}

// ---- 8. Optional patch (a): SCALE_WAKEUP_GRAN. -----------------------------------------------------

TEST_CASE(
    "CFS 8: with SCALE_WAKEUP_GRAN a 5 ms lead does not preempt a curr that ran 1 ms but does after 3.5 ms") {
    struct variant {
        scheduler::nsec block_at, wake_at; // the wakee runs from 0 at v = 12 ms; the hog has v = 24 ms
        scheduler::nsec curr_ran;
    };
    for (const bool patch : {true, false}) {
        for (const variant v : {variant{8 * ms, 9 * ms, 1 * ms}, variant{10'500 * us, 14 * ms, 3'500 * us}}) {
            CAPTURE(patch, v.curr_ran);
            test::sched_harness h(cfs, {{"SCALE_WAKEUP_GRAN", patch}});
            auto& hog = h.add("hog", 0, 0);
            auto& w = h.add("wakee", 0, 0);
            REQUIRE(&h.schedule(0, 0) == &w);
            h.ticks(0, 0, v.block_at);
            REQUIRE(&h.block(0, v.block_at) == &hog);
            h.ticks(0, v.block_at, v.wake_at);
            h.wake(w, 0, v.wake_at);
            CHECK(hog.se.sum_exec_runtime - hog.se.prev_sum_exec_runtime == v.curr_ran);
            CHECK(hog.se.vruntime - w.se.vruntime == static_cast<std::int64_t>(5 * ms));
            // gran = wakeup_gran (4 ms), + min_granularity (3 ms) while curr ran less than 3 ms.
            const bool short_run = v.curr_ran < 3 * ms;
            CHECK(h.cfs().wakeup_gran(hog.se, w.se) ==
                  static_cast<std::int64_t>(patch && short_run ? 7 * ms : 4 * ms));
            CHECK(h.s->need_resched(0) == !(patch && short_run));
        }
    }
}
