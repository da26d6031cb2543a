// `warmsched compare DIR...`: an mmtests-style table (compare-kernels layout) of the workloads' metrics
// and key counters across results directories, one column per directory (header: its basename), each
// value the mean over the directory's runs (its seed-*/ runs, or the one run).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

// Prints the table; returns the process exit code. Throws config_error for a directory that is not a
// results directory.
int print_comparison(std::ostream& out, const std::vector<std::string>& dirs);

// One cell of a column after the first: `value (stddev)` then the change against the base mean in
// percent, `*` on both sides when p < 0.05 (mmtests marks significant changes so), else in brackets.
std::string percent_cell(double base_mean, double mean, double p_value);

} // namespace warmsched::sim
