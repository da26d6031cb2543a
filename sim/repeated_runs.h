// `warmsched run --repeat N` (experiment key `repeat: N`): the same configuration run with seeds seed,
// seed+1, ..., seed+N-1, each into DIR/seed-<s>/ and each printing its usual stdout after a
// `=== seed S ===` line. SystemC elaborates one design per process, so each run is a forked child; the
// parent only reads configurations, starts children and waits. Up to `jobs` children run at once
// (`run -j N`, default: the host's CPUs). With one job a child writes straight to the terminal; with more,
// each child's stdout and stderr go to unnamed temporary files, printed in seed order once its run ended,
// so the output is the same text whatever the number of jobs. Each run owns its seeded RNG and its
// results directory: the results do not depend on `jobs`.
#pragma once

#include "sim/experiment.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

// Reads the experiment once per seed (the overrides plus seed=<s>), runs each in a child process, at
// most `jobs` at a time, and returns the worst exit status (0 if all succeeded). Configuration errors
// throw before any run starts.
int run_repeated(const std::string& experiment_file, const std::vector<std::string>& overrides,
                 const command_workload& command, std::uint64_t first_seed, unsigned repeat, unsigned jobs,
                 const std::string& out_dir, std::ostream& out);

// The default for `run -j`: the CPUs this process may run on (at least 1).
unsigned host_cpus();

} // namespace warmsched::sim
