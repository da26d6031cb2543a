// The numbers `warmsched compare` reads from one results directory: the workloads' headline metrics
// parsed from report.txt (the lines their users parse: hackbench "Time:", perf bench "Total time:",
// netperf's transaction rate, schbench "average rps", tbench "Throughput ... MB/sec") and key counters
// from stats.json (migrations, and by distance when the cost-of-migration tracker ran; context
// switches; share of L2 misses served by another L3 and the number of such cross-LLC transfers;
// load-balance pulls per idle type and per domain level).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace warmsched::sim {

// Named values in a fixed order: workload metrics in report order, then the counters.
using run_metrics = std::vector<std::pair<std::string, double>>;

// Workload metrics of a report.txt's text. A metric seen twice (two workloads of one tool) gets "#2".
run_metrics parse_report_metrics(const std::string& report_txt);

// Every stat of a stats.json (base/stats/stats_writers.h), by dotted name, in file order; a value JSON
// cannot spell (null: NaN or infinite) is left out. Throws config_error naming the file when it is not
// one (malformed JSON, no "simulation" list, a stat without a numeric value).
run_metrics read_stats_json(const std::string& path);

// Workload metrics and key counters of one run's directory. Throws config_error naming the directory
// when it has no stats.json.
run_metrics read_run_metrics(const std::string& run_dir);

// The runs of a compare argument: its seed-<s>/ subdirectories (a --repeat directory), in seed order,
// or the directory itself. Throws config_error when it is neither.
std::vector<std::string> runs_of(const std::string& dir);

} // namespace warmsched::sim
