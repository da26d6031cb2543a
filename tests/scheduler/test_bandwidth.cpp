// CFS bandwidth control against the "What to test" list of reference/scheduler/06-bandwidth-throttle.md:
// a group's share under cpu.max (items 1 and 2), what a throttled group's tasks do mid-syscall under the
// per-cfs_rq and the task-based models (item 3), a child throttled by its parent's quota (item 4) --
// on the simulated kernel (kernel_rig), where the period timer is a real interrupt -- and the load
// balancer's rules for throttled hierarchies (item 7) with the scheduler alone (sched_harness).
#include "scheduler/group/cfs_bandwidth.h"
#include "support/cgroup_specs.h"
#include "support/kernel_rig.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace warmsched;
using scheduler::kernel_version;
using test::ms;
using test::run_to;
using workloads::op;

namespace {

constexpr auto cfs = kernel_version::cfs_v5_15;
constexpr auto eevdf = kernel_version::eevdf_v6_12;
constexpr scheduler::nsec sec = 1'000'000'000;

// The root plus /a (cpu.max QUOTA PERIOD), optionally /a/b without a quota of its own.
scheduler::cgroup_tree tree_with(scheduler::nsec quota, scheduler::nsec period, bool child = false) {
    auto a = test::group("/a", 0);
    a.quota_ns = quota;
    a.period_ns = period;
    return child ? test::tree({a, test::group("/a/b", 1)}) : test::tree({a});
}

// Item 1: one hog in a group with cpu.max 50000 100000 gets 50% +- 1% of its CPU; each period it runs
// about 50 ms and then nothing until the period boundary; nr_throttled ~ nr_periods.
void one_hog_half_cpu(kernel_version k) {
    test::kernel_rig r(test::rig_config(k));
    auto& s = r.k.sched();
    s.set_cgroups(tree_with(50 * ms, 100 * ms));
    auto& hog = r.hog("hog", 0);
    s.attach_task(hog.t, 1, 0);
    REQUIRE(s.task_group_of(hog.t) == 1);
    run_to(r, 100 * ms);
    for (int period = 1; period < 10; ++period) {
        const scheduler::nsec start = static_cast<scheduler::nsec>(period) * 100 * ms;
        const scheduler::nsec before = hog.t.se.sum_exec_runtime;
        run_to(r, start + 60 * ms); // past its 50 ms (plus at most a tick of overshoot)
        const scheduler::nsec ran = hog.t.se.sum_exec_runtime - before;
        CHECK(ran >= 44 * ms);
        CHECK(ran <= 56 * ms);
        CHECK(s.bandwidth().task_throttled(hog.t));
        const scheduler::nsec at_60 = hog.t.se.sum_exec_runtime;
        run_to(r, start + 99 * ms);
        CHECK(hog.t.se.sum_exec_runtime == at_60); // no CPU until the boundary
        run_to(r, start + 100 * ms);
    }
    run_to(r, 10 * sec + 1 * ms);
    const double share = static_cast<double>(hog.t.se.sum_exec_runtime) / static_cast<double>(10 * sec);
    CHECK(share == Approx(0.50).margin(0.01));
    const auto st = s.cpu_stat(1, r.k.now());
    CHECK(st.nr_periods == 100);
    CHECK(st.nr_throttled >= st.nr_periods - 1);
    CHECK(st.nr_throttled <= st.nr_periods);
    CHECK(st.usage_ns == hog.t.se.sum_exec_runtime);
    // Throttled ~50 ms per period.
    CHECK(static_cast<double>(st.throttled_ns) / 1e9 == Approx(5.0).margin(0.2));
    CHECK(s.cpu_stat(0, r.k.now()).usage_ns >= st.usage_ns); // the root's usage includes /a's
}

} // namespace

TEST_CASE("Bandwidth 1: CFS -- cpu.max 50000 100000 gives one hog 50 percent in 50 ms runs") {
    one_hog_half_cpu(cfs);
}

TEST_CASE("Bandwidth 1: EEVDF -- cpu.max 50000 100000 gives one hog 50 percent in 50 ms runs") {
    one_hog_half_cpu(eevdf);
}

namespace {

// Item 2: four hogs of the group on four CPUs share 0.5 CPU per period, plus at most about 1 ms of
// per-CPU leftover (and a tick of overshoot each, repaid at the next refill).
void four_hogs_half_cpu(kernel_version k) {
    test::kernel_rig r(test::rig_config(k));
    auto& s = r.k.sched();
    s.set_cgroups(tree_with(50 * ms, 100 * ms));
    std::vector<workloads::kernel_task*> hogs;
    for (unsigned c = 0; c < 4; ++c) {
        hogs.push_back(&r.hog("hog" + std::to_string(c), c));
        s.attach_task(hogs.back()->t, 1, 0);
    }
    run_to(r, 200 * ms);
    scheduler::nsec before = 0;
    for (auto* h : hogs) before += h->t.se.sum_exec_runtime;
    run_to(r, 2 * sec);
    scheduler::nsec total = 0;
    for (auto* h : hogs) total += h->t.se.sum_exec_runtime;
    const double cpus = static_cast<double>(total - before) / static_cast<double>(2 * sec - 200 * ms);
    CHECK(cpus >= 0.49);
    CHECK(cpus <= 0.5 + 4 * 0.001 / 0.1 + 0.01); // 1 ms of leftover per CPU and period, and rounding
    for (auto* h : hogs) CHECK(h->t.se.sum_exec_runtime > 200 * ms); // each CPU got its slices
    const auto st = s.cpu_stat(1, r.k.now());
    CHECK(st.nr_periods >= 19); // the 20th boundary is at 2 s exactly
    CHECK(st.nr_periods <= 20);
    CHECK(st.nr_throttled >= st.nr_periods - 1);
}

// Item 4: /a has a 20% quota, its child /a/b none; b's hog is throttled by a's pool: throttle_count > 0
// at b's level, which is not throttled itself.
void child_throttled_by_parent(kernel_version k) {
    test::kernel_rig r(test::rig_config(k));
    auto& s = r.k.sched();
    s.set_cgroups(tree_with(20 * ms, 100 * ms, true));
    auto& hog = r.hog("hog", 0);
    s.attach_task(hog.t, 2, 0);
    run_to(r, 350 * ms); // 50 ms into the fourth period, past its 20 ms
    CHECK(s.bandwidth().throttle_count(2, 0) == 1);
    CHECK(s.bandwidth().state(2, 0) == nullptr); // no quota of its own: never throttled at its level
    REQUIRE(s.bandwidth().state(1, 0) != nullptr);
    CHECK(s.bandwidth().state(1, 0)->throttled);
    CHECK(s.bandwidth().task_throttled(hog.t));
    run_to(r, 2 * sec);
    const double share = static_cast<double>(hog.t.se.sum_exec_runtime) / static_cast<double>(2 * sec);
    CHECK(share == Approx(0.20).margin(0.01));
    CHECK(s.cpu_stat(2, r.k.now()).nr_throttled == 0); // the stats are the quota's group's
    CHECK(s.cpu_stat(1, r.k.now()).nr_throttled >= 19);
    CHECK(s.cpu_stat(1, r.k.now()).usage_ns == s.cpu_stat(2, r.k.now()).usage_ns);
}

// Item 3: a group (20 ms per 100 ms) with a hog and a reader blocked in read() on a pipe that a root
// task on CPU 1 writes every 10 ms. Per-cfs_rq model: once the group is throttled, the woken reader is
// parked mid-syscall (in the kernel) and gets no CPU until the next period. Task-based model: the
// reader finishes its read() in the throttled window and stops only at its return to user mode.
struct syscall_run {
    scheduler::nsec reader_cpu_in_throttled_windows = 0, hog_cpu_in_throttled_windows = 0;
    unsigned parked_in_kernel = 0, parked_in_user = 0;
};
syscall_run reader_in_throttled_group(kernel_version k, bool task_based) {
    auto cfg = test::rig_config(k, {{"TASK_BASED_THROTTLE", task_based},
                                    {"THROTTLED_LB_PAIR", !task_based},
                                    {"LB_THROTTLED_DEST", task_based}});
    test::kernel_rig r(cfg);
    auto& s = r.k.sched();
    s.set_cgroups(tree_with(20 * ms, 100 * ms));
    auto& ch = r.k.make_channel(workloads::channel_kind::pipe);
    auto& hog = r.hog("hog", 0);
    auto& reader = r.start("reader", {op::read(ch, 64), op::compute(100'000, nullptr)}, -1, 0);
    r.start("writer", {op::sleep(10 * ms), op::write(ch, 64)}, -1, 1);
    s.attach_task(hog.t, 1, 0);
    s.attach_task(reader.t, 1, 0);
    syscall_run out;
    for (int period = 1; period < 10; ++period) {
        const scheduler::nsec start = static_cast<scheduler::nsec>(period) * 100 * ms;
        run_to(r, start + 10 * ms);
        const auto* a = s.bandwidth().state(1, 0);
        while (!a->throttled && r.k.now() < start + 60 * ms) run_to(r, r.k.now() + 100'000);
        REQUIRE(a->throttled); // the group ran out at about +20 ms
        const scheduler::nsec reader0 = reader.t.se.sum_exec_runtime, hog0 = hog.t.se.sum_exec_runtime;
        const scheduler::nsec throttled_at = r.k.now();
        run_to(r, std::max(start + 75 * ms, throttled_at + 25 * ms)); // the writer wrote twice or more
        if (s.bandwidth().task_throttled(reader.t))
            ++(reader.in_kernel ? out.parked_in_kernel : out.parked_in_user);
        run_to(r, start + 99 * ms);
        out.reader_cpu_in_throttled_windows += reader.t.se.sum_exec_runtime - reader0;
        out.hog_cpu_in_throttled_windows += hog.t.se.sum_exec_runtime - hog0;
        run_to(r, start + 100 * ms);
    }
    return out;
}

} // namespace

TEST_CASE("Bandwidth 2: four hogs of a 50 percent group on four CPUs share half a CPU (v5.15)") {
    four_hogs_half_cpu(cfs);
}
TEST_CASE("Bandwidth 2: four hogs of a 50 percent group on four CPUs share half a CPU (v6.12)") {
    four_hogs_half_cpu(eevdf);
}
TEST_CASE("Bandwidth 4: a child without a quota is throttled by its parent's 20 percent (v5.15)") {
    child_throttled_by_parent(cfs);
}
TEST_CASE("Bandwidth 4: a child without a quota is throttled by its parent's 20 percent (v6.12)") {
    child_throttled_by_parent(eevdf);
}
TEST_CASE("Bandwidth 3: per-cfs_rq model -- a task woken mid-syscall in a throttled group waits (v6.12)") {
    const syscall_run run = reader_in_throttled_group(eevdf, false);
    CHECK(run.reader_cpu_in_throttled_windows == 0);
    CHECK(run.hog_cpu_in_throttled_windows == 0);
    CHECK(run.parked_in_kernel >= 8); // parked inside read()
    CHECK(run.parked_in_user == 0);
}
TEST_CASE("Bandwidth 3: task-based model -- it finishes its syscall and stops on return to user (v6.12)") {
    const syscall_run run = reader_in_throttled_group(eevdf, true);
    CHECK(run.reader_cpu_in_throttled_windows > 0); // the read()s it finished while throttled
    CHECK(run.hog_cpu_in_throttled_windows == 0);   // a user-mode hog stops at once
    CHECK(run.parked_in_kernel == 0);               // limbo only at the return to user mode
    CHECK(run.parked_in_user >= 8);
}
TEST_CASE("Bandwidth 3: per-cfs_rq model -- a task woken mid-syscall in a throttled group waits (v5.15)") {
    const syscall_run run = reader_in_throttled_group(cfs, false);
    CHECK(run.reader_cpu_in_throttled_windows == 0);
    CHECK(run.parked_in_kernel >= 8);
}

// ---- 7. The balancer and throttled hierarchies (the scheduler alone). --------------------------------

namespace {

scheduler::fair_class& fair(scheduler::scheduler& s) {
    return dynamic_cast<scheduler::fair_class&>(s.fair());
}
scheduler::sched_domain& mc_domain(scheduler::scheduler& s, unsigned cpu) {
    for (auto& sd : s.domains().domains(cpu))
        if (std::string(sd.name) == "MC") return sd;
    throw std::runtime_error("no MC domain");
}

struct throttled_cpu0 {
    test::sched_harness h;
    std::vector<scheduler::task*> grp, root;
    scheduler::nsec now = 0;
    // Three movable tasks of /a (cpu.max 1000 1000000) and two of the root on CPU 0; ticks until /a is
    // throttled there. Task-based: then until an /a task picked returns to user mode (limbo).
    throttled_cpu0(kernel_version k, std::vector<std::pair<std::string, bool>> features) : h(k, features) {
        h.s->set_cgroups(tree_with(1 * ms, 1000 * ms)); // no refill during the test
        for (int i = 0; i < 3; ++i) {
            grp.push_back(&h.add("a" + std::to_string(i), 0, 0, 0, scheduler::sched_policy::normal, false));
            h.s->attach_task(*grp.back(), 1, 0);
        }
        for (int i = 0; i < 2; ++i)
            root.push_back(&h.add("r" + std::to_string(i), 0, 0, 0, scheduler::sched_policy::normal, false));
        h.schedule(0, 0);
        const auto* st = h.s->bandwidth().state(1, 0);
        while (!st->throttled && now < 100 * ms) {
            now += h.cfg.tick_ns();
            h.tick(0, now);
        }
        REQUIRE(st->throttled);
        // Task-based: the /a tasks picked reach user mode and go to limbo, until the first one has.
        for (int i = 0; i < 30 && h.s->config().features[scheduler::feature::TASK_BASED_THROTTLE]; ++i) {
            if (h.curr(0)->throttle_work) {
                h.s->return_to_user(0, now);
                h.schedule(0, now);
                break;
            }
            now += h.cfg.tick_ns();
            h.tick(0, now);
        }
        REQUIRE(st->throttled);
    }
    bool moved(const scheduler::task& t) const {
        for (const auto& m : h.hooks.migrations)
            if (m.pid == t.pid) return true;
        return false;
    }
    unsigned balance(unsigned cpu) {
        h.hooks.migrations.clear();
        h.s->set_calling_cpu(cpu);
        bool continue_balancing = true;
        return fair(*h.s).balancer().load_balance(cpu, mc_domain(*h.s, cpu), scheduler::CPU_IDLE,
                                                  continue_balancing, now + 1 * ms);
    }
};

} // namespace

TEST_CASE("Bandwidth 7: v5.15 -- a queued task of a throttled group is never pulled") {
    throttled_cpu0 t(cfs, {});
    // queued in their group, whose entity left CPU 0's root queue
    for (auto* p : t.grp) CHECK(t.h.s->bandwidth().task_throttled(*p));
    CHECK_FALSE(t.h.s->group_rq(0, 1)->se.on_rq);
    CHECK(t.h.rq(0).nr_running == 2);
    // They stay on CPU 0's cfs_tasks, so a pass may spend its budget (loop_max = nr_running = 2) on
    // them, refusing and rotating them; the next pass then finds a root task.
    unsigned moved = t.balance(1);
    for (auto* p : t.grp) CHECK_FALSE(t.moved(*p));
    if (moved == 0) moved = t.balance(1);
    CHECK(moved == 1); // one of the two root tasks
    for (auto* p : t.grp) CHECK_FALSE(t.moved(*p));
    // throttled_lb_pair on either side, for a task still on a queue.
    CHECK(t.h.s->bandwidth().lb_refuses(*t.grp[0], 0, 1));
    CHECK(t.h.s->bandwidth().lb_refuses(*t.grp[0], 1, 0));
    CHECK_FALSE(t.h.s->bandwidth().lb_refuses(*t.root[0], 0, 1));
    // Wakeup preemption ignores tasks of a throttled hierarchy.
    for (auto* p : t.grp) CHECK(t.h.s->bandwidth().ignore_wakeup(*p, 0));
}

TEST_CASE("Bandwidth 7: v6.18 -- limbo tasks are never pulled and nothing moves into a throttled cfs_rq") {
    throttled_cpu0 t(
        eevdf, {{"TASK_BASED_THROTTLE", true}, {"THROTTLED_LB_PAIR", false}, {"LB_THROTTLED_DEST", true}});
    unsigned limbo = 0, queued = 0;
    for (auto* p : t.grp) (p->throttled ? limbo : queued) += 1;
    CHECK(limbo >= 1); // the /a task that ran went to limbo at its return to user mode
    // Runnable tasks of the throttled hierarchy may leave (the destination is not throttled) ...
    for (auto* p : t.grp) CHECK_FALSE(t.h.s->bandwidth().lb_refuses(*p, 0, 1));
    // Only limbo tasks are special for wakeup preemption (the follow-up "do not special case tasks in
    // throttled hierarchy").
    CHECK(queued >= 1);
    for (auto* p : t.grp) CHECK(t.h.s->bandwidth().ignore_wakeup(*p, 0) == p->throttled);
    // ... but never into a CPU where their group is throttled.
    CHECK(t.h.s->bandwidth().lb_refuses(*t.grp[0], 1, 0));
    for (int pass = 0; pass < 3; ++pass) {
        t.balance(1);
        for (auto* p : t.grp)
            if (p->throttled) CHECK_FALSE(t.moved(*p));
    }
    // With LB_THROTTLED_DEST off too (patch 5 alone), the destination check is gone.
    throttled_cpu0 t2(eevdf, {{"TASK_BASED_THROTTLE", true}, {"THROTTLED_LB_PAIR", false}});
    CHECK_FALSE(t2.h.s->bandwidth().lb_refuses(*t2.grp[0], 1, 0));
}

// ---- Burst and slack. ------------------------------------------------------------------------------

namespace {

// cpu.max 20000 100000 with cpu.max.burst `burst`: a light task uses ~1 ms of each period for half a
// second (the unused quota accumulates up to the burst), then a hog of the group starts: in its first
// period it may use quota + burst; the refill after it counts the burst.
scheduler::cgroup_cpu_stat burst_run(scheduler::nsec burst, scheduler::nsec& hog_first_period) {
    test::kernel_rig r(test::rig_config(eevdf));
    auto& s = r.k.sched();
    auto t = tree_with(20 * ms, 100 * ms);
    t.groups[1].burst_ns = burst;
    s.set_cgroups(t);
    auto& light = r.start("light", {op::compute(3'000'000, nullptr), op::sleep(99 * ms)}, 6, 0);
    auto& hog = r.start("hog", {op::sleep(605 * ms), op::compute(~0ull >> 8, nullptr)}, 1, 0);
    s.attach_task(light.t, 1, 0);
    s.attach_task(hog.t, 1, 0);
    run_to(r, 600 * ms);
    const scheduler::nsec at_600 = hog.t.se.sum_exec_runtime;
    run_to(r, 699 * ms);
    hog_first_period = hog.t.se.sum_exec_runtime - at_600;
    run_to(r, 1000 * ms);
    return s.cpu_stat(1, r.k.now());
}

} // namespace

TEST_CASE("Bandwidth burst: unused quota accumulates up to cpu.max.burst and is counted when used") {
    scheduler::nsec first = 0;
    const auto st = burst_run(20 * ms, first);
    CHECK(first >= 35 * ms); // quota + burst in the first full period of the hog
    CHECK(first <= 45 * ms);
    CHECK(st.nr_bursts >= 1);
    CHECK(st.burst_ns >= 15 * ms);
    CHECK(st.burst_ns <= 25 * ms);
}

TEST_CASE("Bandwidth burst: without cpu.max.burst nothing accumulates") {
    scheduler::nsec first = 0;
    const auto st = burst_run(0, first);
    CHECK(first <= 25 * ms); // the quota and at most a tick of overshoot
    CHECK(st.nr_bursts == 0);
    CHECK(st.burst_ns == 0);
}

TEST_CASE("Bandwidth slack: a queue that empties returns its runtime above 1 ms to the pool") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        h.s->set_cgroups(tree_with(50 * ms, 100 * ms));
        auto& a = h.add("a", 0, 0);
        h.s->attach_task(a, 1, 0);
        h.schedule(0, 0);
        const auto& bw = h.s->bandwidth();
        // Moving into the empty group queue took a 5 ms slice (check_enqueue_throttle); 4 ms of it are
        // charged at the tick.
        h.tick(0, 4 * ms);
        CHECK(bw.state(1, 0)->runtime_remaining == 1 * static_cast<std::int64_t>(ms));
        CHECK(bw.pool(1)->runtime == 45 * static_cast<std::int64_t>(ms));
        // 1 ms more empties the local runtime: another 5 ms slice; then the queue is empty and all but
        // 1 ms goes back: 5 - 1 = 4 ms.
        h.block(0, 5 * ms);
        CHECK(bw.state(1, 0)->runtime_remaining == 1 * static_cast<std::int64_t>(ms));
        CHECK(bw.pool(1)->runtime == 44 * static_cast<std::int64_t>(ms));
        CHECK(bw.next_timer() == 100 * ms); // the period timer; no slack timer without a throttled queue
    }
}

TEST_CASE("Bandwidth: a throttled task moved to the root group (cgroup.procs) runs again") {
    throttled_cpu0 t(cfs, {});
    scheduler::task& p = *t.grp[0];
    REQUIRE(t.h.s->bandwidth().task_throttled(p));
    const unsigned before = t.h.rq(0).nr_running;
    t.h.s->attach_task(p, 0, t.now + 1 * ms);
    CHECK_FALSE(t.h.s->bandwidth().task_throttled(p));
    CHECK(p.on_rq);
    CHECK(p.se.on_rq);
    CHECK(t.h.rq(0).nr_running == before + 1);
    CHECK(t.h.s->task_group_of(p) == 0);
    // And back into the throttled group: queued there again, not on the CPU.
    t.h.s->attach_task(p, 1, t.now + 2 * ms);
    CHECK(t.h.s->bandwidth().task_throttled(p));
    CHECK(p.se.on_rq);
    CHECK(p.se.cfs_rq == &t.h.s->group_rq(0, 1)->q);
    CHECK_FALSE(t.h.s->group_rq(0, 1)->se.on_rq);
    CHECK(t.h.rq(0).nr_running == before);
}

// distribute_cfs_runtime (06, procedure 4): v6.12 unthrottles another CPU's queue asynchronously -- the
// period timer's CPU queues it and sends an IPI, and that CPU unthrottles when it takes it (CSD);
// v5.15 unthrottles every CPU's queue from the timer.
TEST_CASE(
    "Bandwidth: the refill unthrottles a remote CPU's queue through its IPI in v6.12 and at once in v5.15") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        h.s->set_cgroups(tree_with(10 * ms, 100 * ms));
        auto& a0 = h.add("a0", 0, 0);
        auto& a1 = h.add("a1", 1, 0);
        h.s->attach_task(a0, 1, 0);
        h.s->attach_task(a1, 1, 0);
        h.schedule(0, 0);
        h.schedule(1, 0);
        const auto& bw = h.s->bandwidth();
        for (scheduler::nsec now = h.cfg.tick_ns(); now < 100 * ms; now += h.cfg.tick_ns()) {
            h.tick(0, now);
            h.tick(1, now);
        }
        REQUIRE(bw.state(1, 0)->throttled);
        REQUIRE(bw.state(1, 1)->throttled);
        h.hooks.kicks.clear();
        h.tick(0, 100 * ms); // the period timer runs on CPU 0
        CHECK_FALSE(bw.state(1, 0)->throttled);
        const bool async = k == eevdf;
        CHECK(bw.state(1, 1)->throttled == async);
        CHECK(h.s->cfsb_csd_pending(1) == async);
        if (async) CHECK(std::count(h.hooks.kicks.begin(), h.hooks.kicks.end(), 1u) >= 1); // the CSD IPI
        h.s->cfsb_csd(1, 100 * ms + 2 * test::us); // CPU 1 takes the IPI
        CHECK_FALSE(bw.state(1, 1)->throttled);
        CHECK_FALSE(h.s->cfsb_csd_pending(1));
        CHECK(h.rq(1).nr_running == 1);
        CHECK(bw.pool(1)->throttled_cpus.empty());
    }
}
