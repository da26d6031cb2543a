// Where a results directory came from, recorded in it: the exact command line of the warmsched process
// (argv[0] written as "warmsched"), and per run the seed, platform, kernel and workload command lines.
// config.yaml's header names the command line; every results JSON the run writes (stats.json,
// report.json, migration_report.json, trace.json) carries the same "run" object. Left out on purpose:
// the host, the wall time and the build's commit, which would make two runs of one seed differ (the same
// seed gives byte-identical results; wall time goes to stderr).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace warmsched::sim {

struct experiment;

// Called once by main with its argv; a word with a blank or a shell character is single-quoted.
void set_command_line(int argc, char** argv);
// "warmsched run --seed 1 -- hackbench -p" (empty when main did not set it: a test calling the library).
const std::string& command_line();

// {"command_line": ..., "seed": 1, "platform": "zen3-5950x", "kernel": "eevdf", "workloads": [...]}.
nlohmann::ordered_json run_provenance(const experiment& e);

} // namespace warmsched::sim
