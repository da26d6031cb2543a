// `warmsched run --repeat N` (experiment key `repeat: N`): the same configuration run with seeds seed,
// seed+1, ..., seed+N-1, each into DIR/seed-<s>/ and each printing its usual stdout after a
// `=== seed S ===` line. SystemC elaborates one design per process, so each run is a forked child; the
// parent only reads configurations, starts children and waits. Up to `jobs` children run at once
// (`run -j N`, default: the host's CPUs). With one job a child writes straight to the terminal; with more,
// each child's stdout and stderr go to unnamed temporary files, printed in seed order once its run ended,
// so the output is the same text whatever the number of jobs. Each run owns its seeded RNG and its
// results directory: the results do not depend on `jobs`.
//
// Results safety. DIR must be absent or empty (--force clears it first; --resume keeps the seed-<s>/ runs
// already there whose config.yaml is this configuration's, and runs only the others). DIR/repeat.yaml
// names the seeds the directory holds when complete; compare refuses a directory that lacks some. Each
// seed is written whole or not at all (results_dir.h). SIGINT, SIGTERM or SIGHUP to the parent stops the
// running children, removes their partial directories, names the seeds left to run and exits 130; a
// SIGKILLed parent takes its children with it (PR_SET_PDEATHSIG), so nothing goes on writing.
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
struct repeat_options {
    std::uint64_t first_seed = 1;
    unsigned repeat = 1;
    unsigned jobs = 1;
    bool replace = false; // --force
    bool resume = false;  // --resume
};

int run_repeated(const std::string& experiment_file, const std::vector<std::string>& overrides,
                 const command_workload& command, const repeat_options& o, const std::string& out_dir,
                 std::ostream& out);

// DIR/repeat.yaml's seeds, or empty when there is none. Throws config_error when it is malformed.
std::vector<std::uint64_t> repeat_seeds(const std::string& dir);

// The default for `run -j`: the CPUs this process may run on (at least 1).
unsigned host_cpus();

} // namespace warmsched::sim
