// `warmsched sweep --executor slurm`: the pending runs as one Slurm job array. It writes
// SWEEPDIR/slurm/job.sh (an sbatch script: `#SBATCH --array=` the pending run indices, one output file
// per task in SWEEPDIR/slurm/, each task executing `warmsched sweep SWEEP.yaml --run-index
// $SLURM_ARRAY_TASK_ID`, run_one.h), submits it with `sbatch --parsable`, records the job id in the
// database and, unless --no-wait, polls `squeue` until the array has left the queue, then prints the
// summary. A start that finds the job of an earlier start still queued or running waits for it first
// (its tasks record themselves), then resubmits whatever is still not complete: a killed sweep loses
// nothing and runs nothing twice. sbatch, squeue and scancel come from PATH; SLURM_CONF is passed on.
// Left out: per-run resources beyond one CPU (add them with --sbatch-arg), and sacct (accounting is
// often not configured; a run's outcome is in the database).
#pragma once

#include "sim/sweep/sweep_session.h"

#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim::sweep {

struct slurm_options {
    bool wait = true;                     // --no-wait: submit and return
    std::vector<std::string> sbatch_args; // --sbatch-arg: more #SBATCH lines, e.g. --partition=debug
    double poll_s = 1.0;
};

int run_slurm(sweep_session& session, const slurm_options& o, std::ostream& out);

// "0-3,5,7-9": the array ranges of sorted indices.
std::string array_ranges(const std::vector<std::size_t>& indices);

} // namespace warmsched::sim::sweep
