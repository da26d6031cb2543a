// The cgroup v2 hierarchy a run is given, as the cpu controller sees it: each group's place in the
// tree and its cpu.weight, cpu.max (quota and period) and cpu.max.burst, plus the cpu.stat counters
// the scheduler reports per group at the end of a run. This is the description only -- the
// scheduler builds its task groups (per-CPU group entities and cfs_rqs, bandwidth pools) from it.
// Left out: controllers other than cpu, cgroup v1 files, cpuset, uclamp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warmsched::scheduler {

using group_id = unsigned; // index into cgroup_tree::groups; 0 is the root group

struct cgroup_spec {
    std::string path;                      // "/" for the root, "/a/b" below it
    group_id parent = 0;                   // the root's parent is itself (0)
    unsigned weight = 100;                 // cpu.weight 1..10000 (shares = weight * 1024 / 100)
    std::optional<std::uint64_t> quota_ns; // cpu.max quota; empty = "max" (no limit)
    std::uint64_t period_ns = 100'000'000; // cpu.max period, 1 ms .. 1 s
    std::uint64_t burst_ns = 0;            // cpu.max.burst, <= quota
};

// Groups in creation order: the root first, every parent before its children.
struct cgroup_tree {
    std::vector<cgroup_spec> groups{cgroup_spec{"/", 0, 100, std::nullopt, 100'000'000, 0}};

    // The group with this path, or nullopt.
    std::optional<group_id> find(const std::string& path) const {
        for (group_id g = 0; g < groups.size(); ++g)
            if (groups[g].path == path) return g;
        return std::nullopt;
    }
    bool only_root() const { return groups.size() == 1; }
};

// cpu.stat of one group (cgroup v2 names; times in ns, printed as usec).
struct cgroup_cpu_stat {
    std::uint64_t usage_ns = 0, user_ns = 0, system_ns = 0;
    std::uint64_t nr_periods = 0, nr_throttled = 0, throttled_ns = 0;
    std::uint64_t nr_bursts = 0, burst_ns = 0;
};

} // namespace warmsched::scheduler
