// Cgroup trees for scheduler tests: a group spec by path, parent and cpu.weight, and a tree of them in
// the order given (parents first), as the experiment reader would build them.
#pragma once

#include "scheduler/group/cgroup_tree.h"

#include <initializer_list>
#include <string>

namespace warmsched::test {

inline scheduler::cgroup_spec group(const std::string& path, scheduler::group_id parent,
                                    unsigned weight = 100) {
    scheduler::cgroup_spec g;
    g.path = path;
    g.parent = parent;
    g.weight = weight;
    return g;
}

inline scheduler::cgroup_tree tree(std::initializer_list<scheduler::cgroup_spec> groups) {
    scheduler::cgroup_tree t;
    for (const auto& g : groups) t.groups.push_back(g);
    return t;
}

} // namespace warmsched::test
