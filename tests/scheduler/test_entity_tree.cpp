// The fair queue's augmented timeline (scheduler/fair/entity_tree.h) against the plain definitions the
// kernel's augmented rbtree stands for: tree order by (key, insertion), the leftmost entity, the
// successor, the minimum vruntime and slice of the queued entities, and pick_eevdf's "earliest deadline
// among the eligible" -- checked after every step of a long seeded sequence of inserts, erases and slice
// changes, with the duplicate keys and the growth to thousands of entities a real queue sees.
#include "scheduler/fair/cfs_rq.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

using namespace warmsched::scheduler;

namespace {
// The queue as a sorted vector: what the tree must agree with.
std::vector<sched_entity*> in_order(const std::vector<sched_entity*>& queued) {
    std::vector<sched_entity*> v = queued;
    std::sort(v.begin(), v.end(), [](const sched_entity* a, const sched_entity* b) {
        return a->key != b->key ? a->key < b->key : a->order < b->order;
    });
    return v;
}

void check_against_scan(const cfs_rq& q, const std::vector<sched_entity*>& queued, std::int64_t bound) {
    const std::vector<sched_entity*> v = in_order(queued);
    std::vector<sched_entity*> walked;
    q.tree.for_each([&](sched_entity* se) { walked.push_back(se); });
    REQUIRE(walked == v);
    REQUIRE(q.first() == (v.empty() ? nullptr : v.front()));
    for (std::size_t i = 0; i < v.size(); ++i)
        REQUIRE(q.after(v[i]) == (i + 1 < v.size() ? v[i + 1] : nullptr));
    std::int64_t min_v = 0;
    const bool any = q.tree_min_vruntime(min_v);
    REQUIRE(any == !v.empty());
    std::uint64_t min_slice = ~0ull;
    sched_entity* eligible = nullptr;
    for (sched_entity* se : v) {
        min_slice = std::min(min_slice, se->slice);
        if (!eligible && se->vruntime <= bound) eligible = se;
    }
    if (any)
        REQUIRE(min_v == std::min_element(v.begin(), v.end(),
                                          [](auto* a, auto* b) { return a->vruntime < b->vruntime; })[0]
                             ->vruntime);
    REQUIRE(q.min_slice() == min_slice); // curr is null here: the queued entities only
    REQUIRE(q.tree.first_eligible([&](std::int64_t vr) { return vr <= bound; }) == eligible);
}
} // namespace

TEST_CASE(
    "the augmented timeline agrees with a scan of the queue after every insert, erase and slice change") {
    std::mt19937_64 rng(12345);
    std::deque<sched_entity> pool(5000);
    cfs_rq q;
    std::vector<sched_entity*> queued, idle;
    for (auto& se : pool) idle.push_back(&se);
    // Keys from a small range, so that many are equal and insertion order must break the ties.
    std::uniform_int_distribution<std::int64_t> key(0, 400), vr(-1000, 1000);
    std::uniform_int_distribution<std::uint64_t> slice(100'000, 3'000'000);
    for (int step = 0; step < 12000; ++step) {
        const int what = static_cast<int>(rng() % 10);
        const bool grow = step < 8000; // grow to thousands, then mostly shrink
        if ((what < (grow ? 7 : 3) || queued.empty()) && !idle.empty()) {
            sched_entity* se = idle.back();
            idle.pop_back();
            se->vruntime = vr(rng);
            se->slice = slice(rng);
            q.insert(se, key(rng));
            queued.push_back(se);
        } else if (what < 9 && !queued.empty()) {
            const std::size_t i = rng() % queued.size();
            sched_entity* se = queued[i];
            q.erase(se);
            REQUIRE_FALSE(se->run_node.linked);
            queued.erase(queued.begin() + static_cast<long>(i));
            idle.push_back(se);
        } else if (!queued.empty()) {
            sched_entity* se = queued[rng() % queued.size()];
            const std::uint64_t order = se->order;
            q.set_slice(se, slice(rng));
            REQUIRE(se->order == order); // it keeps its place
        }
        // The full check is O(n log n): every step while small, then every 97th.
        if (queued.size() < 64 || step % 97 == 0) check_against_scan(q, queued, vr(rng));
    }
    check_against_scan(q, queued, 0);
}

TEST_CASE("the augmented timeline: an empty queue, one entity, and the errors that are bugs") {
    cfs_rq q;
    REQUIRE(q.first() == nullptr);
    std::int64_t v = 7;
    REQUIRE_FALSE(q.tree_min_vruntime(v));
    REQUIRE(q.min_slice() == ~0ull);
    REQUIRE(q.tree.first_eligible([](std::int64_t) { return true; }) == nullptr);
    sched_entity a;
    a.vruntime = 5;
    a.slice = 3;
    q.insert(&a, 10);
    REQUIRE(q.first() == &a);
    REQUIRE(q.after(&a) == nullptr);
    REQUIRE(q.tree_min_vruntime(v));
    REQUIRE(v == 5);
    REQUIRE(q.tree.first_eligible([](std::int64_t vr) { return vr <= 4; }) == nullptr);
    REQUIRE(q.tree.first_eligible([](std::int64_t vr) { return vr <= 5; }) == &a);
    REQUIRE_THROWS_AS(q.tree.insert(&a), std::logic_error); // queued twice
    q.erase(&a);
    REQUIRE(q.tree.empty());
    REQUIRE_THROWS_AS(q.tree.erase(&a), std::logic_error); // not queued
}
