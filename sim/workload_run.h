// Running an experiment's workloads: elaborates the machine and the simulated kernel, starts each
// workload command line, simulates until they finish (or the experiment's duration), then prints the
// tools' own output and the run summary, and writes config.yaml, report.txt and stats.txt -- whole or not
// at all (results_dir.h): `out_dir` must be absent or empty unless `replace` (run --force). With a
// warm-up (`warmup:`), the counters are read when it ends and every output but the tools' own covers the
// rest of the run (base/stats/stats_window.h, docs/outputs.md "The measured window").
#pragma once

#include "sim/experiment.h"

#include <ostream>
#include <string>

namespace warmsched::sim {

int run_workloads(const experiment& e, const std::string& out_dir, std::ostream& out, bool replace = false);

} // namespace warmsched::sim
