// A fair run queue (struct cfs_rq) as a data structure: the root queue of a CPU or a task group's queue
// on that CPU (group/group_rq.h). It holds the queued entities other than curr -- tasks and, under
// cgroups, child groups' entities -- in a tree ordered by their key (CFS: vruntime; EEVDF: virtual
// deadline) and augmented with subtree minima (fair/entity_tree.h), the queue's load and counts (curr
// included; h_nr_running counts the tasks of the whole subtree), the monotonic min_vruntime, the buddies,
// EEVDF's running average of vruntime (avg_vruntime = sum w*(v - min_vruntime), avg_load = sum w over the
// tree), its PELT sums, and for a group queue its contribution to the group's load (tg->load_avg), pending
// load propagation to its entity and its throttle state. Decisions are made by the fair classes (cfs_class,
// eevdf_class); this file only keeps the bookkeeping exact.
#pragma once

#include "scheduler/fair/entity_tree.h"
#include "scheduler/task/task.h"

#include <cstdint>

namespace warmsched::scheduler {

struct cfs_rq {
    static constexpr std::uint64_t never_updated = ~0ull;
    entity_tree tree; // queued entities except curr, leftmost first, with subtree minima
    sched_entity* curr = nullptr;
    sched_entity* next = nullptr; // buddies
    sched_entity* last = nullptr;
    sched_entity* skip = nullptr;
    std::uint64_t load = 0; // sum of weights of queued entities, curr included
    unsigned nr_running = 0;
    unsigned h_nr_running = 0;
    unsigned idle_h_nr_running = 0; // SCHED_IDLE tasks among h_nr_running
    std::int64_t min_vruntime = 0;
    std::int64_t avg_vruntime = 0; // EEVDF
    std::int64_t avg_load = 0;     // EEVDF
    std::uint64_t insertions = 0;
    std::uint64_t nr_spread_over = 0;
    unsigned h_nr_delayed = 0; // EEVDF: delayed-dequeue sleepers still queued (not runnable for PELT)
    sched_avg avg;             // PELT sums of the queue's entities (sleeping ones decaying in place)
    struct {
        std::uint64_t load_avg = 0, util_avg = 0, runnable_avg = 0;
        unsigned nr = 0;
    } removed;                           // averages of entities that left by migration, to subtract
    std::uint64_t util_est_enqueued = 0; // sum of the queued tasks' util_est
    // Group scheduling (the root queue keeps these zero).
    unsigned tg = 0;                         // the task group whose queue this is (0 = root)
    sched_entity* se = nullptr;              // the group's entity on this CPU; nullptr for root
    std::int64_t* tg_load_avg = nullptr;     // the group's tg->load_avg (sum of its queues' contribs)
    std::uint64_t tg_load_avg_ratelimit = 0; // v6.12: a contribution changes at most once per 1 ms
    std::int64_t tg_load_avg_contrib = 0;    // update_tg_load_avg: last contribution to tg
    std::uint64_t last_update_tg_load_avg = never_updated; // when it was made (ns)
    bool propagate = false;                                // add_tg_cfs_propagate: pending for the parent
    std::int64_t prop_runnable_sum = 0;
    // CFS bandwidth control: this level throttled (per-cfs_rq model: its entity is off its parent), the
    // throttled levels at and above it (throttle_count), and the PELT clock, stopped below a throttle
    // (per-cfs_rq model: from the throttle on; task-based model: while the queue is empty).
    bool throttled = false;
    unsigned throttle_count = 0;
    bool pelt_stopped = false;
    std::uint64_t throttled_clock_pelt = 0, throttled_clock_pelt_time = 0;

    // Inserts `se` keyed by `key`.
    void insert(sched_entity* se, std::int64_t key) {
        se->key = key;
        se->order = ++insertions;
        tree.insert(se);
        avg_vruntime += static_cast<std::int64_t>(se->weight) * (se->vruntime - min_vruntime);
        avg_load += se->weight;
    }
    void erase(sched_entity* se) {
        tree.erase(se);
        avg_vruntime -= static_cast<std::int64_t>(se->weight) * (se->vruntime - min_vruntime);
        avg_load -= se->weight;
    }
    sched_entity* first() const { return tree.first(); }
    // The entity after `se` in tree order, or nullptr.
    sched_entity* after(sched_entity* se) const { return tree.after(se); }
    // Smallest vruntime in the tree (the augmented subtree minimum at its root); false if empty.
    bool tree_min_vruntime(std::int64_t& v) const {
        if (tree.empty()) return false;
        v = tree.min_vruntime();
        return true;
    }
    // Sets a queued entity's requested slice, keeping the tree's minima exact (the kernel's
    // min_vruntime_cb_propagate after `se->slice = slice` in enqueue_task_fair); `se` keeps its place.
    void set_slice(sched_entity* se, std::uint64_t slice) {
        if (!se->run_node.linked) {
            se->slice = slice;
            return;
        }
        tree.erase(se);
        se->slice = slice;
        tree.insert(se);
    }
    // Moves min_vruntime forward to `v` if later, re-basing avg_vruntime (which is relative to it).
    void advance_min_vruntime(std::int64_t v) {
        const std::int64_t delta = v - min_vruntime;
        if (delta > 0) {
            avg_vruntime -= avg_load * delta;
            min_vruntime = v;
        }
    }
    // cfs_rq_clock_pelt: the queue's PELT clock at run queue clock `now` (it does not advance while
    // stopped).
    std::uint64_t clock_pelt(std::uint64_t now) const {
        return pelt_stopped ? throttled_clock_pelt - throttled_clock_pelt_time
                            : now - throttled_clock_pelt_time;
    }
    // cfs_rq_min_slice (EEVDF): the shortest requested slice of the queued entities, curr included
    // (the tree's augmented subtree minimum at its root); ~0 when nothing is queued.
    std::uint64_t min_slice() const {
        std::uint64_t m = ~0ull;
        if (curr && curr->on_rq) m = curr->slice;
        if (!tree.empty() && tree.min_slice() < m) m = tree.min_slice();
        return m;
    }
    void clear_buddies(const sched_entity* se) {
        if (next == se) next = nullptr;
        if (last == se) last = nullptr;
        if (skip == se) skip = nullptr;
    }
};

// The kernel's entity helpers (kernel/sched/fair.c, CONFIG_FAIR_GROUP_SCHED). cfs_rq_of needs the
// run queue for the root case: see core/runqueue.h.
inline cfs_rq* group_cfs_rq(const sched_entity& se) {
    return se.my_q;
}
inline bool entity_is_task(const sched_entity& se) {
    return se.owner != nullptr;
}
inline sched_entity* parent_entity(const sched_entity& se) {
    return se.parent;
}
// Both queued on the same queue (a null cfs_rq is the root queue of the entity's CPU).
inline bool is_same_group(const sched_entity& a, const sched_entity& b) {
    return a.cfs_rq == b.cfs_rq;
}

} // namespace warmsched::scheduler
