// The augmented timeline of a fair run queue; see entity_tree.h.
#include "scheduler/fair/entity_tree.h"

#include <algorithm>
#include <stdexcept>

namespace warmsched::scheduler {

namespace {
std::uint64_t priority_of(std::uint64_t order) { // splitmix64: a fixed, well-spread hash
    std::uint64_t z = order + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
// The heap order: higher priority nearer the root; the order breaks (improbable) ties.
bool above(const sched_entity* a, const sched_entity* b) {
    return a->run_node.priority != b->run_node.priority ? a->run_node.priority > b->run_node.priority
                                                        : a->order < b->order;
}
} // namespace

// min_vruntime_update: a node's minima from its own fields and its children's.
void entity_tree::update(sched_entity* n) {
    timeline_node& r = n->run_node;
    r.min_vruntime = n->vruntime;
    r.min_slice = n->slice;
    for (const sched_entity* c : {r.left, r.right})
        if (c) {
            r.min_vruntime = std::min(r.min_vruntime, c->run_node.min_vruntime);
            r.min_slice = std::min(r.min_slice, c->run_node.min_slice);
        }
}

// Splits t into the entities before `at` (l) and the rest (r).
void entity_tree::split(sched_entity* t, const sched_entity* at, sched_entity*& l, sched_entity*& r) {
    if (!t) {
        l = r = nullptr;
    } else if (before(t, at)) {
        split(t->run_node.right, at, t->run_node.right, r);
        l = t;
        update(t);
    } else {
        split(t->run_node.left, at, l, t->run_node.left);
        r = t;
        update(t);
    }
}

// Joins a and b, every entity of a being before every entity of b.
sched_entity* entity_tree::merge(sched_entity* a, sched_entity* b) {
    if (!a) return b;
    if (!b) return a;
    if (above(a, b)) {
        a->run_node.right = merge(a->run_node.right, b);
        update(a);
        return a;
    }
    b->run_node.left = merge(a, b->run_node.left);
    update(b);
    return b;
}

sched_entity* entity_tree::insert(sched_entity* t, sched_entity* se) {
    if (!t) return se;
    if (above(se, t)) {
        split(t, se, se->run_node.left, se->run_node.right);
        update(se);
        return se;
    }
    if (before(se, t))
        t->run_node.left = insert(t->run_node.left, se);
    else
        t->run_node.right = insert(t->run_node.right, se);
    update(t);
    return t;
}

sched_entity* entity_tree::erase(sched_entity* t, const sched_entity* se) {
    if (!t) throw std::logic_error("entity_tree::erase: entity not in the tree");
    if (t == se) return merge(t->run_node.left, t->run_node.right);
    if (before(se, t))
        t->run_node.left = erase(t->run_node.left, se);
    else
        t->run_node.right = erase(t->run_node.right, se);
    update(t);
    return t;
}

void entity_tree::insert(sched_entity* se) {
    timeline_node& n = se->run_node;
    if (n.linked) throw std::logic_error("entity_tree::insert: entity already queued");
    n.left = n.right = nullptr;
    n.priority = priority_of(se->order);
    n.linked = true;
    update(se);
    root_ = insert(root_, se);
    if (!leftmost_ || before(se, leftmost_)) leftmost_ = se;
}

void entity_tree::erase(sched_entity* se) {
    if (!se->run_node.linked) throw std::logic_error("entity_tree::erase: entity not queued");
    const bool was_first = se == leftmost_;
    sched_entity* const next = was_first ? after(se) : nullptr;
    root_ = erase(root_, se);
    se->run_node = timeline_node{};
    if (was_first) leftmost_ = next;
}

sched_entity* entity_tree::after(const sched_entity* se) const {
    sched_entity* succ = nullptr;
    for (sched_entity* n = root_; n;) {
        if (before(se, n)) {
            succ = n;
            n = n->run_node.left;
        } else {
            n = n->run_node.right;
        }
    }
    return succ;
}

} // namespace warmsched::scheduler
