// report.json: the workloads' reports (report.txt's text per workload, as the real tools print it) and
// their headline metrics parsed the way `warmsched compare` parses report.txt (hackbench "Time:", perf
// bench "Total time:", netperf's transaction rate, schbench "average rps", tbench "Throughput"), for
// scripts that would rather not parse text. The run summary and cost-of-migration report are in
// stats.json and migration_report.json. Left out: metrics of tools compare does not parse (they are in
// "output" as text).
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace warmsched::sim {

struct workload_output {
    std::string command; // the workload's command line
    std::string output;  // what its report printed
};

// run: the provenance, first; policy: the loaded policy and its ejection (policy_exit_report.h), last.
void write_report_json(std::ostream& out, const std::vector<workload_output>& workloads,
                       const nlohmann::ordered_json& run = nullptr, const nlohmann::ordered_json& policy = nullptr);

} // namespace warmsched::sim
