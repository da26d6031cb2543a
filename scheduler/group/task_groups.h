// The run's task groups (struct task_group of kernel/sched/core.c) built from its cgroup_tree: each
// group's place in the hierarchy, its shares (cpu.weight * 1024 / 100), the chain of groups a task's
// time is charged to (itself up to the root, as cgroup v2 reports usage hierarchically), the part of
// that chain that has a cpu.max quota (the levels bandwidth control charges and can throttle), and the
// usage counters of cpu.stat. Which group a task is in is task::cgroup; a forked child inherits its
// parent's.
//
// The per-CPU group queues and entities are the fair class's (group/group_rq.h). Left out: RT group
// scheduling; user/system time split of usage (the simulated kernel keeps utime/stime per task).
#pragma once

#include "scheduler/group/cgroup_tree.h"
#include "scheduler/task/task.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::scheduler {

struct task_group {
    group_id id = 0, parent = 0;
    unsigned depth = 0;                // the root is 0
    std::uint64_t shares = 1024;       // cpu.weight * 1024 / 100 (scale_load_down'ed)
    std::vector<group_id> chain;       // itself, its parent, ... the root
    std::vector<group_id> quota_chain; // the groups of `chain` with a cpu.max quota, bottom-up
    nsec usage_ns = 0;                 // fair-class run time of its tasks and its descendants' tasks
};

class task_groups {
public:
    // Only the root group: everything flat, nothing to charge.
    task_groups() { build(cgroup_tree{}); }
    void build(const cgroup_tree& tree);

    // Whether the run has groups other than the root (otherwise the hot paths skip all group work).
    bool enabled() const { return enabled_; }
    // Whether some group has a quota.
    bool any_quota() const { return any_quota_; }
    unsigned size() const { return static_cast<unsigned>(groups_.size()); }
    const task_group& operator[](group_id g) const { return groups_[g]; }
    const cgroup_spec& spec(group_id g) const { return tree_.groups[g]; }
    const cgroup_tree& tree() const { return tree_; }
    // Is `g` the group `ancestor` or below it?
    bool in_subtree(group_id g, group_id ancestor) const;

    // Charges `delta` of run time to the task's group and all its ancestors.
    void charge_usage(const task& p, nsec delta) {
        for (group_id g : groups_[p.cgroup].chain) groups_[g].usage_ns += delta;
    }

private:
    cgroup_tree tree_;
    std::vector<task_group> groups_;
    bool enabled_ = false, any_quota_ = false;
};

} // namespace warmsched::scheduler
