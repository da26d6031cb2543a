// `warmsched compare DIR...`: an mmtests-style table (compare-kernels layout) of the workloads' metrics
// and key counters across results directories, one column per directory (header: its basename), each
// value the mean over the directory's runs (its seed-*/ runs, or the one run).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

// Prints the table in compare-kernels' layout, so that mmtests' readers parse it: a single-token metric
// column, values with 4 decimals, each cell's gain against the first column `(  -2.56%)`, `*  25.26%*`
// where the mean's difference is significant; blocks Min, Amean (Hmean for throughputs), Stddev,
// CoeffVar, Max. Returns the process exit code. Throws config_error for a directory that is not a
// results directory.
int print_comparison(std::ostream& out, const std::vector<std::string>& dirs);

// A column of the table from elsewhere (a sweep's database): its header and each metric's samples.
struct compare_column {
    std::string name;
    std::map<std::string, std::vector<double>> samples; // metric -> one value per run
};
// The same tables of given columns; `order` lists the metrics (rows) in order.
int print_comparison(std::ostream& out, const std::vector<compare_column>& cols,
                     const std::vector<std::string>& order);
int print_comparison_wide(std::ostream& out, const std::vector<compare_column>& cols,
                          const std::vector<std::string>& order);
// `compare --wide`: warmsched's own wider view -- the metrics' full names, Amean (Stddev) in one cell,
// 6 significant digits, the change as (new - base) / base.
int print_comparison_wide(std::ostream& out, const std::vector<std::string>& dirs);
// A metric's name as one token ("hackbench Time (s)" -> "hackbench-Time-s", "other-L3 share (%)" ->
// "other-L3-share-pct").
std::string metric_token(const std::string& name);
// Throughputs (Trans/s, rps, MB/s) are better higher; times and counters lower.
bool higher_is_better(const std::string& name);
// One change: the gain of v over base in percent (positive: better), `*...*` when significant.
std::string gain_cell(double base, double v, bool higher_better, bool significant);

// One cell of a column after the first: `value (stddev)` then the change against the base mean in
// percent, `*` on both sides when p < 0.05 (mmtests marks significant changes so), else in brackets.
std::string percent_cell(double base_mean, double mean, double p_value);

} // namespace warmsched::sim
