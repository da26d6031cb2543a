// `warmsched compare SWEEPDIR` (or SWEEPDIR/results.db) and `warmsched plot --sweep SWEEPDIR --x AXIS`:
// the tables and the plot of compare and plot --sweep, from a sweep's database instead of results
// directories. One column (or plot point) per grid point, its complete runs' seeds as the samples;
// runs not complete are not counted, and the closing `runs:` line says how many each point has. The
// columns are named p0000, p0001, ...; a legend after the table gives each point's axis values, and a
// sweep with runs not complete gets a line `incomplete sweep: DB: 5 of 8 runs complete`.
// Left out: mixing sweep databases and results directories in one table.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim::sweep {

// The database `arg` names: a file ending in .db, or a directory holding results.db; "" otherwise.
std::string sweep_database_of(const std::string& arg);

// compare over the complete runs of the databases (the first point of the first is the baseline).
int compare_sweeps(std::ostream& out, const std::vector<std::string>& databases, bool wide);
// compare --by AXIS of one sweep: the points that differ only in AXIS side by side (kernel.version=cfs
// against eevdf at the same groups), one table per combination of the other axes, the first value of
// AXIS the baseline of each. Refused (config_error) when AXIS is not one of the sweep's axes.
int compare_sweep_by(std::ostream& out, const std::string& database, const std::string& axis, bool wide);

// plot --sweep: `metric` (default: the first) against the axis `x_axis` (numeric values), one line per
// combination of the other axes.
void plot_sweep_database(const std::string& database, const std::string& x_axis, const std::string& metric,
                         const std::string& out_dir, std::ostream& out);

} // namespace warmsched::sim::sweep
