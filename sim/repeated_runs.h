// `warmsched run --repeat N` (experiment key `repeat: N`): the same configuration run with seeds seed,
// seed+1, ..., seed+N-1, each into DIR/seed-<s>/ and each printing its usual stdout after a
// `=== seed S ===` line. SystemC elaborates one design per process, so each run is a forked child; the
// parent only reads configurations and waits. Runs are sequential (no parallel children).
#pragma once

#include "sim/experiment.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

// Reads the experiment once per seed (the overrides plus seed=<s>), runs each in a child process and
// returns the worst exit status (0 if all succeeded). Configuration errors throw before any run starts.
int run_repeated(const std::string& experiment_file, const std::vector<std::string>& overrides,
                 const command_workload& command, std::uint64_t first_seed, unsigned repeat,
                 const std::string& out_dir, std::ostream& out);

} // namespace warmsched::sim
