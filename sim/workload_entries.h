// The `workloads:` list of an experiment file. Each entry is a workload command line, or a map with
// `command:` and the workload's parameters beyond its command line (workloads/cli/workload_params.h):
//
//     workloads:
//       - hackbench -p -g 10
//       - command: schbench -m 2 -t 16 -r 1
//         instructions_per_iteration: 7
//       - {command: hackbench -p -g 1, cgroup: /tenant0}   # its tasks start in that cgroup
//
// Every command is checked with the real tool's parser; its usage error, or a parameter the workload
// does not know, becomes a config error at the entry's file position. The resolved list written to
// config.yaml has a map with every parameter's value (defaults included) for workloads that have
// parameters, and the plain command line for those that have none.
#pragma once

#include "platforms/config/config_error.h"
#include "platforms/config/config_node.h"
#include "scheduler/group/cgroup_tree.h"
#include "workloads/cli/workload_params.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warmsched::sim {

struct workload_entry {
    std::string command;               // as written, e.g. "schbench -m 2"
    workloads::workload_params params; // as given (not yet read)
    std::string cgroup;                // `cgroup:` -- the group its tasks start in ("": the root)
    config::origin where;              // the entry in the file
};

// One entry (a command line or a {command: ...} map); nullopt after adding its errors.
std::optional<workload_entry> read_workload_entry(const config::config_node& item,
                                                  const std::string& key_path, config::error_list& errors);

// Reads the list (a single command line is accepted too); `key_path` names it in errors. Appends the
// resolved list to `resolved` under "workloads". An entry's `cgroup` must be a group of `groups`.
// `tasks`, when given, gets the tasks the valid entries create together (workload::tasks_needed()).
std::vector<workload_entry> read_workload_entries(const config::config_node& list,
                                                  const std::string& key_path, unsigned cpus,
                                                  config::error_list& errors, config::config_node& resolved,
                                                  const scheduler::cgroup_tree& groups = {},
                                                  std::uint64_t* tasks = nullptr);

// The resolved form of one entry (a plain command line, or a map with the resolved parameters) after
// checking it -- the groups the workload names itself (rt-app's taskgroup) must be in `groups`; throws
// workloads::usage_error. `tasks`, when given, gets the tasks the workload creates over the run.
config::config_node resolve_workload_entry(const workload_entry& entry, unsigned cpus,
                                           const scheduler::cgroup_tree& groups = {},
                                           std::uint64_t* tasks = nullptr);

} // namespace warmsched::sim
