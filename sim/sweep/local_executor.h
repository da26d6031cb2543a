// The default executor of `warmsched sweep`: a pool of up to `jobs` child processes on this host
// (default: its CPUs), each executing `warmsched sweep SWEEP.yaml --run-index I` (run_one.h), so each
// run elaborates its own SystemC design and records itself in the database. A child's stdout and
// stderr go to SWEEPDIR/logs/<id>.txt; the parent prints one line per finished run. A SIGKILLed parent
// takes its children with it (PR_SET_PDEATHSIG); SIGINT, SIGTERM or SIGHUP stop the children and exit
// 130. Either way, starting the same sweep again resumes it (sweep_session.h).
// Left out: running on other hosts (the Slurm executor does).
#pragma once

#include "sim/sweep/sweep_session.h"

#include <ostream>

namespace warmsched::sim::sweep {

// Runs the pending runs; returns the sweep's exit status (0: every run complete).
int run_local(sweep_session& session, unsigned jobs, std::ostream& out);

} // namespace warmsched::sim::sweep
