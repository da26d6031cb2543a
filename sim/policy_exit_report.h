// What a run with a policy of one's own says of it: whether the kernel ejected it, why (sched_ext's exit
// info: kind, reason, message), when, and about which task and CPU. The same facts go to the stats
// (kernel.ext: integers and times only), to the run summary on stdout and report.txt, to report.json
// ("policy"), and to one line on stderr at the end of a run whose policy was ejected. A run without a
// policy has none of them.
#pragma once

#include "base/stats/stats_group.h"
#include "scheduler/core/scheduler.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace warmsched::sim {

// kernel.ext: ejected (0/1), exitKind (scx_exit_kind), and for an ejected policy exitSeconds,
// ejectSeconds, tasksMoved, exitPid and exitCpu (when known). All are levels: a warm-up window keeps them.
void add_policy_exit_stats(stats::group& kernel, const scheduler::scheduler& s);
// The summary's lines: "policy  NAME ejected (REASON) at T s ..." and the message; nothing when the
// policy ran to the end or none was loaded.
void print_policy_exit(std::ostream& out, const scheduler::scheduler& s);
// report.json's "policy" object (null without a policy).
nlohmann::ordered_json policy_exit_json(const scheduler::scheduler& s);
// The line on stderr for an ejected policy ("" if it was not): "warmsched: policy NAME ejected ...".
std::string policy_exit_stderr_line(const scheduler::scheduler& s);

} // namespace warmsched::sim
