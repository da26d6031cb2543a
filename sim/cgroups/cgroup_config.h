// The experiment file's cgroup v2 hierarchy for the cpu controller: the `cgroups:` list of groups by path
// and the `cgroup_generator:` that builds a large regular tree (N levels, a fan-out per level, settings
// per level, one workload per leaf) in a few lines:
//
//     cgroups:
//       - path: /db                       # parents must be listed before their children (mkdir, not -p)
//         cpu.max: "200000 100000"        # QUOTA PERIOD in us ("max PERIOD": no limit); cpu.max.burst
//       - {path: /db/batch, cpu.weight: 50}   # cpu.weight 1..10000, or cpu.weight.nice -20..19
//     cgroup_generator:                   # a map, or a list of them
//       name: tenant                      # level-1 groups tenant0, tenant1, ...; below: l2_0, l3_4, ...
//       fanout: [2, 2, 2, 5, 5]           # 5 levels, 200 leaves: /tenant1/l2_0/l3_1/l4_4/l5_2
//       level_1: {cpu.max: "5000000 100000"}
//       leaf_workload: hackbench -p -g 1 -l 10    # or {command: ..., parameters}: one per leaf
//
// Values are checked as the kernel's cgroup files check them (cpu.max period 1 ms..1 s, quota >= 1 ms,
// cpu.max.burst <= quota); every error is one line with the file position, the key path
// (`cgroups[3].cpu.max`) and what is wrong. The resolved configuration lists every group (generated ones
// too) with all four settings, and the generator with `expanded: true`, so that config.yaml runs again as
// it is. Left out: controllers other than cpu, cgroup v1 files, cpuset, the root group's own settings
// (cgroup v2 has none).
#pragma once

#include "platforms/config/config_reader.h"
#include "scheduler/group/cgroup_tree.h"
#include "sim/workload_entries.h"

#include <string>
#include <vector>

namespace warmsched::sim {

struct cgroup_setup {
    scheduler::cgroup_tree tree;
    std::vector<workload_entry> leaf_workloads; // the generators' workloads, one per leaf, cgroup set
};

// Reads `cgroups` and `cgroup_generator` from the experiment's top-level reader `r`, resolving both into
// `resolved_root`. Errors go to `errors`; the tree then holds what could be read.
cgroup_setup read_cgroups(config::config_reader& r, config::error_list& errors,
                          config::config_node& resolved_root);

// cpu.weight for cpu.weight.nice `nice`: the nice table's weight as shares, read back as cpu.weight
// (rounded to nearest, 1..10000) -- what the kernel's cpu.weight file then shows.
unsigned cgroup_weight_of_nice(int nice);

// "QUOTA PERIOD" / "max PERIOD" in us, as cpu.max prints it.
std::string cpu_max_text(const scheduler::cgroup_spec& g);

} // namespace warmsched::sim
