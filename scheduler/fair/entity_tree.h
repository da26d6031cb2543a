// The fair run queue's timeline (cfs_rq->tasks_timeline): the queued entities other than curr, ordered by
// their key (CFS: vruntime; EEVDF: virtual deadline) and, among equal keys, by insertion (a later one goes
// right, as the kernel's rb_add does). Like fair.c's min_vruntime_cb, every node is augmented with the
// smallest vruntime and the smallest slice of its subtree, so that EEVDF's update_min_vruntime and
// cfs_rq_min_slice read them at the root and pick_eevdf finds the earliest-deadline eligible entity by the
// kernel's heap search, each in O(log n) instead of a walk over the queue.
//
// The kernel balances the tree as a red-black tree; this one is a treap (a binary search tree that is
// also a heap on a per-node priority), which is shorter and equally O(log n) in expectation. The priority
// is a hash of the entity's insertion number, so the shape -- and with it every result -- is the same in
// every run. Which entity an operation finds depends only on the order, never on the shape, so the choice
// of balancing cannot change a scheduling decision. The nodes are intrusive (sched_entity::run_node): no
// allocation per enqueue.
#pragma once

#include "scheduler/task/task.h"

#include <cstdint>

namespace warmsched::scheduler {

class entity_tree {
public:
    bool empty() const { return root_ == nullptr; }
    // The leftmost entity (earliest key), or nullptr.
    sched_entity* first() const { return leftmost_; }
    // The entity after `se` in tree order, or nullptr; `se` must be in the tree.
    sched_entity* after(const sched_entity* se) const;
    // Inserts `se` with the key and order it carries; it must not be in a tree.
    void insert(sched_entity* se);
    // Removes `se`, which must be in this tree.
    void erase(sched_entity* se);
    // The augmented minima over the whole tree (meaningful only when not empty).
    std::int64_t min_vruntime() const { return root_->run_node.min_vruntime; }
    std::uint64_t min_slice() const { return root_->run_node.min_slice; }
    // pick_eevdf's heap search: the leftmost entity whose vruntime satisfies `eligible`, which must be
    // monotone (true for every vruntime at or below some bound), or nullptr if there is none.
    template <class Eligible> sched_entity* first_eligible(Eligible eligible) const {
        const sched_entity* node = root_;
        while (node) {
            const sched_entity* left = node->run_node.left;
            if (left && eligible(left->run_node.min_vruntime)) { // the left subtree holds earlier deadlines
                node = left;
                continue;
            }
            if (eligible(node->vruntime)) return const_cast<sched_entity*>(node);
            node = node->run_node.right;
        }
        return nullptr;
    }
    // Calls f(se) for every entity in tree order (debugging and tests).
    template <class F> void for_each(F f) const { visit(root_, f); }

private:
    static bool before(const sched_entity* a, const sched_entity* b) {
        return a->key != b->key ? a->key < b->key : a->order < b->order;
    }
    static void update(sched_entity* n);
    static void split(sched_entity* t, const sched_entity* at, sched_entity*& l, sched_entity*& r);
    static sched_entity* merge(sched_entity* a, sched_entity* b);
    static sched_entity* insert(sched_entity* t, sched_entity* se);
    static sched_entity* erase(sched_entity* t, const sched_entity* se);
    template <class F> static void visit(const sched_entity* n, F& f) {
        if (!n) return;
        visit(n->run_node.left, f);
        f(const_cast<sched_entity*>(n));
        visit(n->run_node.right, f);
    }

    sched_entity* root_ = nullptr;
    sched_entity* leftmost_ = nullptr;
};

} // namespace warmsched::scheduler
