// `warmsched tutorial [NAME]`: lists the tutorials, or runs one end to end into a results directory:
//   DIR/runs/STEP/      the results of each `run` step (a normal results directory, docs/outputs.md)
//   DIR/runs/STEP.txt   each step's standard output (a probe's CSV, a run's report)
//   DIR/plots/          the figures, NAME.{gp,png,svg}, and their data files
//   DIR/report.md       what ran, the figures, the tables, the check and what to try next
//   DIR/tutorial.json   the same numbers for a program: the steps, the figures' data, the check
// The steps run as child processes of this binary, up to `jobs` at once; the results do not depend on
// `jobs` (each step owns its seed and its directory). DIR is written whole or not at all (results_dir.h);
// SIGINT/SIGTERM/SIGHUP stop the steps and leave nothing behind (exit 130). Exit status: 0 when the
// effect the tutorial teaches is there; 1 when a step failed (its command line and its stderr are printed,
// the other steps are stopped and nothing is kept) or when the effect did not appear (the results are
// kept, and the report says so); 2 for bad options.
#pragma once

#include "sim/tutorials/tutorial.h"

#include <ostream>
#include <string>

namespace warmsched::sim::tutorials {

struct tutorial_run_options {
    std::string out;      // empty: results/tutorial-NAME-<date>-<time>
    bool replace = false; // --force
    bool quick = false;   // --quick
    unsigned jobs = 1;    // -j
};

void list_tutorials(std::ostream& out);

int run_tutorial(const tutorial& t, const tutorial_run_options& o, std::ostream& out);

} // namespace warmsched::sim::tutorials
