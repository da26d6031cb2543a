// Group scheduling (cpu.weight) against reference/scheduler/06-bandwidth-throttle.md's "What to test"
// items 5 and 6 on the simulated kernel (kernel_rig), and the cgroup API the experiment reader uses --
// attach, inheritance at fork, hierarchical usage, calc_group_shares -- with the scheduler alone.
#include "support/cgroup_specs.h"
#include "support/kernel_rig.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

using namespace warmsched;
using scheduler::kernel_version;
using test::group;
using test::ms;
using test::run_to;
using test::tree;

namespace {

constexpr auto cfs = kernel_version::cfs_v5_15;
constexpr auto eevdf = kernel_version::eevdf_v6_12;
constexpr scheduler::nsec sec = 1'000'000'000;

// Item 5: groups of cpu.weight 100 and 300, one hog of each pinned to each of CPUs 0 and 1: each CPU
// splits 25/75 (each group's entity weighs shares * 1024 / 2048 on each CPU: 512 and 1536; the
// group's load is its queues' PELT load_avg, a hog's just under its weight, hence the 1% margins).
void weights_100_300(kernel_version k) {
    test::kernel_rig r(test::rig_config(k));
    auto& s = r.k.sched();
    s.set_cgroups(tree({group("/light", 0, 100), group("/heavy", 0, 300)}));
    std::vector<workloads::kernel_task*> light, heavy;
    for (unsigned c = 0; c < 2; ++c) {
        light.push_back(&r.hog("light" + std::to_string(c), c));
        s.attach_task(light.back()->t, 1, 0);
        heavy.push_back(&r.hog("heavy" + std::to_string(c), c));
        s.attach_task(heavy.back()->t, 2, 0);
    }
    run_to(r, 2 * sec);
    for (unsigned c = 0; c < 2; ++c) {
        CAPTURE(c);
        CHECK(test::share(*light[c], *heavy[c]) == Approx(0.25).margin(0.01));
        const auto* wl = s.group_rq(c, 1);
        const auto* wh = s.group_rq(c, 2);
        REQUIRE(wl);
        REQUIRE(wh);
        CHECK(wl->se.weight == Approx(512).epsilon(0.01));
        CHECK(wh->se.weight == Approx(1536).epsilon(0.01));
        // each hog is queued on its group's queue, whose entity is on the CPU's root queue
        CHECK(light[c]->t.se.cfs_rq == &wl->q);
        CHECK(light[c]->t.se.parent == &wl->se);
        CHECK(wl->se.cfs_rq == nullptr);
        CHECK(wl->q.h_nr_running == 1);
    }
    CHECK(s.tg_load_avg(1) == Approx(2048).epsilon(0.01));
    CHECK(s.rq(0).cfs.nr_running == 2); // two group entities
    CHECK(s.rq(0).cfs.h_nr_running == 2);
}

// Item 6: group A (weight 100) with a hog on each of CPUs 0-3 and a root nice-0 hog on CPU 0: A's
// entity on CPU 0 weighs about 1024 / 4 = 256, so the root hog gets about 80% of CPU 0.
void group_entity_quarter_weight(kernel_version k) {
    test::kernel_rig r(test::rig_config(k));
    auto& s = r.k.sched();
    s.set_cgroups(tree({group("/A", 0)}));
    std::vector<workloads::kernel_task*> a;
    for (unsigned c = 0; c < 4; ++c) {
        a.push_back(&r.hog("a" + std::to_string(c), c));
        s.attach_task(a.back()->t, 1, 0);
    }
    auto& root_hog = r.hog("root", 0);
    run_to(r, 200 * ms);
    const scheduler::nsec a0 = a[0]->t.se.sum_exec_runtime, rh0 = root_hog.t.se.sum_exec_runtime;
    run_to(r, 2200 * ms);
    const double root_share =
        static_cast<double>(root_hog.t.se.sum_exec_runtime - rh0) /
        static_cast<double>(root_hog.t.se.sum_exec_runtime - rh0 + a[0]->t.se.sum_exec_runtime - a0);
    CHECK(root_share == Approx(0.80).margin(0.01));
    CHECK(s.group_rq(0, 1)->se.weight == Approx(256).epsilon(0.01));
    for (unsigned c = 1; c < 4; ++c) CHECK(a[c]->t.se.sum_exec_runtime > 1900 * ms); // alone on its CPU
}

} // namespace

TEST_CASE("Groups 5: cpu.weight 100 vs 300 with a hog each on two CPUs split each CPU 25/75 (v5.15)") {
    weights_100_300(cfs);
}
TEST_CASE("Groups 5: cpu.weight 100 vs 300 with a hog each on two CPUs split each CPU 25/75 (v6.12)") {
    weights_100_300(eevdf);
}
TEST_CASE("Groups 6: a group spread over 4 CPUs weighs 256 on each so a root hog gets 80 percent (v5.15)") {
    group_entity_quarter_weight(cfs);
}
TEST_CASE("Groups 6: a group spread over 4 CPUs weighs 256 on each so a root hog gets 80 percent (v6.12)") {
    group_entity_quarter_weight(eevdf);
}

TEST_CASE("Groups API: attach, fork inheritance, hierarchical usage and the root-only case") {
    for (auto k : {cfs, eevdf}) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        h.s->set_cgroups(tree({group("/a", 0), group("/a/b", 1)}));
        CHECK(h.s->groups()[2].chain == std::vector<scheduler::group_id>{2, 1, 0});
        auto& parent = h.add("parent", 0, 0);
        auto& other = h.add("other", 0, 0);
        h.s->attach_task(parent, 2, 0);
        CHECK(h.s->task_group_of(parent) == 2);
        CHECK(h.s->task_group_of(other) == 0);
        CHECK_THROWS_AS(h.s->attach_task(parent, 9, 0), std::invalid_argument);
        h.schedule(0, 0);
        scheduler::nsec now = 0;
        while (h.curr(0) != &parent) { // until the parent runs
            now += h.cfg.tick_ns();
            h.tick(0, now);
        }
        auto& child = h.make("child", 0);
        h.s->sched_fork(child, 0, now);
        CHECK(h.s->task_group_of(child) == 2); // cgroup_fork: the parent's group
        h.s->wake_up_new_task(child, 0, now);
        for (int i = 0; i < 100; ++i) {
            now += h.cfg.tick_ns();
            h.tick(0, now);
        }
        const auto b = h.s->cpu_stat(2, now), a = h.s->cpu_stat(1, now), root = h.s->cpu_stat(0, now);
        CHECK(b.usage_ns == parent.se.sum_exec_runtime + child.se.sum_exec_runtime);
        CHECK(a.usage_ns == b.usage_ns); // /a has no task of its own
        CHECK(root.usage_ns == a.usage_ns + other.se.sum_exec_runtime);
        CHECK(b.nr_periods == 0); // no quota: no bandwidth counters
        // /a/b (parent and child) and the root task share CPU 0 like two root entities: /a's entity
        // weighs its shares, 1024, split between /a/b's two tasks.
        const scheduler::nsec ab = parent.se.sum_exec_runtime + child.se.sum_exec_runtime;
        CHECK(static_cast<double>(ab) / static_cast<double>(ab + other.se.sum_exec_runtime) ==
              Approx(0.5).margin(0.05));
        // Moving a queued task takes it off its group's queue and onto the root queue.
        const auto* gb = h.s->group_rq(0, 2);
        REQUIRE(gb);
        CHECK(gb->q.h_nr_running == 2);
        CHECK(h.s->rq(0).cfs.h_nr_running == 3);
        h.s->attach_task(child, 0, now);
        CHECK(gb->q.h_nr_running == 1);
        CHECK(h.s->group_rq(0, 1)->q.h_nr_running == 1);
        CHECK(h.s->rq(0).cfs.h_nr_running == 3);
        CHECK(h.s->rq(0).cfs.nr_running == 3); // /a's entity, other and child
        CHECK(child.se.cfs_rq == nullptr);
    }
    // Only the root: nothing is charged to groups (the hot paths skip them).
    test::sched_harness h(eevdf);
    CHECK_FALSE(h.s->groups().enabled());
}

namespace {

// Nested groups on one CPU: /a (100) holds /a/x (100) and /a/y (300); /b (100) is its sibling. One hog
// in each leaf: /a and /b split the CPU 50/50, and /a's half splits 1:3 -- 12.5%, 37.5%, 50%.
void nested_weights(kernel_version k) {
    test::kernel_rig r(test::rig_config(k));
    auto& s = r.k.sched();
    s.set_cgroups(
        tree({group("/a", 0, 100), group("/a/x", 1, 100), group("/a/y", 1, 300), group("/b", 0, 100)}));
    auto& x = r.hog("x", 0);
    auto& y = r.hog("y", 0);
    auto& b = r.hog("b", 0);
    s.attach_task(x.t, 2, 0);
    s.attach_task(y.t, 3, 0);
    s.attach_task(b.t, 4, 0);
    run_to(r, 3 * sec);
    const double total =
        static_cast<double>(x.t.se.sum_exec_runtime + y.t.se.sum_exec_runtime + b.t.se.sum_exec_runtime);
    CHECK(static_cast<double>(x.t.se.sum_exec_runtime) / total == Approx(0.125).margin(0.01));
    CHECK(static_cast<double>(y.t.se.sum_exec_runtime) / total == Approx(0.375).margin(0.01));
    CHECK(static_cast<double>(b.t.se.sum_exec_runtime) / total == Approx(0.50).margin(0.01));
    CHECK(s.cpu_stat(1, r.k.now()).usage_ns == x.t.se.sum_exec_runtime + y.t.se.sum_exec_runtime);
}

} // namespace

TEST_CASE("Groups: nested cpu.weight splits a CPU 12.5/37.5/50 between /a/x /a/y and /b (v5.15)") {
    nested_weights(cfs);
}
TEST_CASE("Groups: nested cpu.weight splits a CPU 12.5/37.5/50 between /a/x /a/y and /b (v6.12)") {
    nested_weights(eevdf);
}
