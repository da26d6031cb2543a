// Wakeup placement (reference/scheduler/03-wakeup-placement.md, "What to test" 1-4 and 6) through the
// scheduler API, on the mini platform's layout: 4 cores x 2 threads (CPU c and c + 4 are siblings),
// cores 0-1 (CPUs 0, 1, 4, 5) in LLC 0 and cores 2-3 (CPUs 2, 3, 6, 7) in LLC 1; F = sd_llc_size = 4.
#include "scheduler/fair/load_avg.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace warmsched;
using scheduler::kernel_version;
using scheduler::WF_SYNC;
using test::ms;

namespace {
// A task that ran on `cpu` and went to sleep there at `now` (affinity: every CPU).
scheduler::task& sleeper(test::sched_harness& h, const std::string& comm, unsigned cpu, scheduler::nsec now) {
    scheduler::task& t = h.add(comm, cpu, now, 0, scheduler::sched_policy::normal, false);
    h.schedule(cpu, now);
    REQUIRE(h.curr(cpu) == &t);
    h.block(cpu, now);
    return t;
}
// A task running on `cpu` from `now`.
scheduler::task& runner(test::sched_harness& h, const std::string& comm, unsigned cpu, scheduler::nsec now) {
    scheduler::task& t = h.add(comm, cpu, now, 0, scheduler::sched_policy::normal, false);
    h.schedule(cpu, now);
    REQUIRE(h.curr(cpu) == &t);
    return t;
}
} // namespace

TEST_CASE(
    "03 1: a sync wakee stays on its idle cache-affine prev, or moves to an idle CPU of the waker's LLC") {
    for (auto k : {kernel_version::cfs_v5_15, kernel_version::eevdf_v6_12}) {
        test::sched_harness h(k, {}, {}, test::smt_machine());
        runner(h, "waker", 0, 0);
        auto& near = sleeper(h, "near", 1, 0);
        auto& far = sleeper(h, "far", 2, 0);
        auto r = h.wake(near, 0, 1 * ms, WF_SYNC);
        CHECK(r.cpu == 1); // prev is idle and shares the LLC
        CHECK_FALSE(r.migrated);
        // far's prev (CPU 2) is idle but in the other LLC: wake_affine_idle picks the waker's CPU (sync,
        // the waker alone there), and select_idle_sibling moves it on to an idle core of that LLC.
        r = h.wake(far, 0, 1 * ms, WF_SYNC);
        CHECK(h.s->layout().llc_of[r.cpu] == 0);
        CHECK(r.cpu != 0);
        CHECK(r.migrated);
        CHECK(far.stats.nr_wakeups_affine == 1);
        CHECK(far.stats.nr_wakeups_affine_attempts == 1);
        // Counted on the waker's lowest domain spanning the CPUs involved: wake_affine decided both
        // wakeups (near's in MC, far's in PKG: the sync waker's CPU), and both wakees ran elsewhere.
        std::uint64_t affine = 0, remote = 0;
        for (const auto& sd : h.s->domains().domains(0)) {
            affine += sd.stats.ttwu_move_affine;
            remote += sd.stats.ttwu_wake_remote;
        }
        CHECK(affine == 2);
        CHECK(remote == 2);
        CHECK(h.s->domains().domains(0)[1].stats.ttwu_wake_remote == 2);     // MC: both ended in LLC 0
        CHECK(h.s->domains().domains(0).back().stats.ttwu_move_affine == 1); // PKG: far
        // The target is in the waker's LLC: the wake list only for an idle target, and only in v6.12.
        CHECK(r.via_wake_list == (k == kernel_version::eevdf_v6_12));
    }
}

namespace {
// A dispatcher on CPU 0 wakes `workers` sleepers round robin `rounds` times; each runs and sleeps
// again at once. Returns the affine attempts of the last round.
std::uint64_t dispatch(test::sched_harness& h, unsigned workers, unsigned rounds) {
    auto& d = runner(h, "dispatcher", 0, 0);
    std::vector<scheduler::task*> w;
    for (unsigned i = 0; i < workers; ++i) w.push_back(&sleeper(h, "w" + std::to_string(i), 1 + i % 7, 0));
    scheduler::nsec t = 1 * ms;
    std::uint64_t before = 0, last = 0;
    for (unsigned round = 0; round < rounds; ++round) {
        before = 0;
        for (auto* p : w) before += p->stats.nr_wakeups_affine_attempts;
        for (auto* p : w) {
            t += 1000;
            const auto r = h.wake(*p, 0, t);
            if (r.cpu != 0) {
                h.schedule(r.cpu, t);
                if (h.curr(r.cpu) == p) h.block(r.cpu, t);
            }
        }
        last = 0;
        for (auto* p : w) last += p->stats.nr_wakeups_affine_attempts;
    }
    (void)d;
    return last - before;
}
} // namespace

TEST_CASE(
    "03 2: a dispatcher waking 4F workers stays affine in mainline, with WAKEE_FLIPS_COUPLE it wakes wide") {
    const unsigned f = 4, workers = 4 * f;
    {
        test::sched_harness h(kernel_version::cfs_v5_15, {}, {}, test::smt_machine());
        // Workers wake nobody: their flips stay 0 < F, so wake_wide never fires.
        CHECK(dispatch(h, workers, 5) == workers);
    }
    {
        test::sched_harness h(kernel_version::cfs_v5_15, {{"WAKEE_FLIPS_COUPLE", true}}, {},
                              test::smt_machine());
        // Once the dispatcher's flips reach (F/2)F = 8 with slaves below F, or 4x the workers' inherited
        // flips, wake_wide fires and wake_affine is no longer tried.
        CHECK(dispatch(h, workers, 5) == 0);
        const auto& d = *h.curr(0);
        CHECK(d.wakee_flips >= (f / 2) * f);
    }
}

TEST_CASE("03 3: with every CPU busy the wakee goes to the waker's CPU (sync) and SIS_UTIL scans nothing") {
    test::sched_harness h(kernel_version::eevdf_v6_12, {}, {}, test::smt_machine());
    auto& b = sleeper(h, "b", 2, 0);
    for (unsigned c = 0; c < 8; ++c) runner(h, "hog" + std::to_string(c), c, 0);
    // 300 ms of ticks: every queue's utilization saturates, above SIS_UTIL's ~85% cut-off.
    for (unsigned c = 0; c < 8; ++c) h.ticks(c, 0, 300 * ms);
    REQUIRE(scheduler::cpu_util(h.rq(2)) > 900);
    auto r = h.wake(b, 0, 300 * ms + 1, WF_SYNC);
    CHECK(r.cpu == 0); // affine: the waker's CPU, nothing idle to move to
    REQUIRE(r.probed);
    // Only prev was looked at: no idle-CPU scan in an overloaded LLC.
    CHECK(std::count(r.probed->begin(), r.probed->end(), 6u) == 0);
    CHECK(std::count(r.probed->begin(), r.probed->end(), 1u) == 0);
    CHECK(h.s->fair().name() != nullptr);
}

TEST_CASE("03 4: with one busy thread on half the cores a wakeup lands on a fully idle core, not a busy "
          "core's sibling") {
    for (auto k : {kernel_version::cfs_v5_15, kernel_version::eevdf_v6_12}) {
        test::sched_harness h(k, {}, {}, test::smt_machine());
        auto& b = sleeper(h, "b", 2, 0);
        runner(h, "busy0", 0, 0);
        runner(h, "busy2", 2, 0); // core 2 busy; core 3 (CPUs 3, 7) idle; CPU 6 idles beside busy CPU 2
        // Woken by the busy CPU 0 without sync: wake_affine keeps prev (CPU 2, busy), and the LLC scan
        // looks for a whole idle core.
        const auto r = h.wake(b, 0, 1 * ms);
        CHECK((r.cpu == 3 || r.cpu == 7));
    }
}

TEST_CASE(
    "03 6: a wakeup across LLCs goes through the wake list, a same-LLC wakeup to a busy CPU is direct") {
    for (auto k : {kernel_version::cfs_v5_15, kernel_version::eevdf_v6_12}) {
        test::sched_harness h(k, {}, {}, test::smt_machine());
        runner(h, "waker", 0, 0);
        auto& near = h.add("near", 1, 0); // pinned to CPU 1: runs once and sleeps, then busy1 takes CPU 1
        h.schedule(1, 0);
        REQUIRE(h.curr(1) == &near);
        h.block(1, 0);
        runner(h, "busy1", 1, 0);
        auto& far = h.add("far", 2, 0); // pinned to CPU 2
        h.schedule(2, 0);
        REQUIRE(h.curr(2) == &far);
        h.block(2, 0);
        REQUIRE(near.state == scheduler::task_state::sleeping);
        REQUIRE(far.state == scheduler::task_state::sleeping);
        auto r = h.wake(near, 0, 1 * ms);
        CHECK(r.cpu == 1);
        CHECK_FALSE(r.via_wake_list); // same LLC, busy target: the waker enqueues directly
        r = h.wake(far, 0, 1 * ms);
        CHECK(r.cpu == 2);
        CHECK(r.via_wake_list); // another LLC: wake list + IPI
    }
}

TEST_CASE("03 6: a wakeup to an idle CPU of the waker's LLC goes through its wake list exactly when the "
          "version change TTWU_QUEUE_IDLE (v6.0) is on, in either kernel") {
    const std::pair<kernel_version, std::vector<std::pair<std::string, bool>>> runs[] = {
        {kernel_version::cfs_v5_15, {}},
        {kernel_version::eevdf_v6_12, {}},
        {kernel_version::cfs_v5_15, {{"TTWU_QUEUE_IDLE", true}}},
        {kernel_version::eevdf_v6_12, {{"TTWU_QUEUE_IDLE", false}}},
    };
    for (const auto& [k, features] : runs) {
        test::sched_harness h(k, features, {}, test::smt_machine());
        const bool idle_list = h.s->config().features[scheduler::feature::TTWU_QUEUE_IDLE];
        CAPTURE(scheduler::to_string(k), idle_list);
        CHECK(idle_list == (features.empty() ? k == kernel_version::eevdf_v6_12 : features[0].second));
        runner(h, "waker", 0, 0);
        auto& near = sleeper(h, "near", 1, 0);
        const auto r = h.wake(near, 0, 1 * ms);
        REQUIRE(r.cpu == 1); // its idle previous CPU, in the waker's LLC
        CHECK(r.via_wake_list == idle_list);
    }
}
