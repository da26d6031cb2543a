// One run of a sweep, in this process: `warmsched sweep SWEEP.yaml --run-index I`, what a local pool's
// child and a Slurm array task execute. It claims the run in the database (a complete run is left
// alone: never run twice), writes SWEEPDIR/runs/<id>/ as `warmsched run` does (whole or not at all),
// then records the run's stats, metrics, host, build commit and wall time and marks it complete in one
// transaction; a run that fails is marked failed with its exit status. A results directory left by a
// process killed between the rename and the database's commit is removed and the run made again (the
// same seed gives the same results).
// Left out: retrying a failed run (the next `warmsched sweep` does).
#pragma once

#include "sim/sweep/sweep_spec.h"

#include <ostream>
#include <string>

namespace warmsched::sim::sweep {

// Returns the run's exit status (0: complete, or already complete). Throws config_error when the index
// is outside the grid, the sweep database is missing (the sweep was never started) or holds another
// grid (the file changed since).
int run_one(const sweep_spec& spec, std::size_t index, std::ostream& out);

// The `warmsched run` command line that makes the same run (recorded in the database).
std::string equivalent_run_command(const sweep_spec& spec, const sweep_run& r);

// The commit this binary was built from (`git rev-parse HEAD` at build time, -dirty with local changes),
// or "unknown".
std::string build_commit();

// SWEEPDIR/results.db.
std::string database_path(const sweep_spec& spec);

} // namespace warmsched::sim::sweep
