// Task groups built from the cgroup tree; see task_groups.h.
#include "scheduler/group/task_groups.h"

#include <stdexcept>

namespace warmsched::scheduler {

void task_groups::build(const cgroup_tree& tree) {
    tree_ = tree;
    groups_.assign(tree.groups.size(), task_group{});
    any_quota_ = false;
    for (group_id g = 0; g < groups_.size(); ++g) {
        const cgroup_spec& s = tree.groups[g];
        task_group& tg = groups_[g];
        tg.id = g;
        tg.parent = g == 0 ? 0 : s.parent;
        if (g != 0 && s.parent >= g)
            throw std::invalid_argument("cgroup " + s.path + ": its parent must come before it in the tree");
        tg.depth = g == 0 ? 0 : groups_[tg.parent].depth + 1;
        tg.shares = static_cast<std::uint64_t>(s.weight) * 1024 / 100;
        tg.chain.push_back(g);
        if (g != 0)
            for (group_id a : groups_[tg.parent].chain) tg.chain.push_back(a);
        for (group_id a : tg.chain)
            if (tree.groups[a].quota_ns) tg.quota_chain.push_back(a);
        any_quota_ = any_quota_ || s.quota_ns.has_value();
    }
    enabled_ = groups_.size() > 1;
}

bool task_groups::in_subtree(group_id g, group_id ancestor) const {
    for (group_id a : groups_[g].chain)
        if (a == ancestor) return true;
    return false;
}

} // namespace warmsched::scheduler
