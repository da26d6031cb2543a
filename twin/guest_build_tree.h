// The source tree `make -jN` builds in the twin's guest: a Makefile and one C file per object, compiled
// by the real gcc (driver, cc1 and as from Debian's gcc-12 and binutils, packed into the initramfs).
// The model's `make` (workloads/bench/kernbench.h) is a synthetic kernel build whose objects take
// `job_instructions_median` instructions each; in the guest every object is one generated file of the
// same size, so the guest's build has `objects` equal compile jobs that make runs N at a time.
//
// What differs, and is said in the notes: a real job is three processes (make execs gcc, which forks and
// execs cc1, then as, waiting for each), the model's one (its cc1 folds them); the guest's objects are
// all the same size where the model draws them from a lognormal (set job_instructions_sigma small).
// Each file is 8 functions of a loop over a switch: 0.07-0.09 s of user time for `gcc -O2 -c` on this
// project's host (Debian 12, gcc 12.2); the instruction count the model's experiment gives for it
// (configs/experiments/twin-make.yaml) is an estimate from that time, since the host has no counters.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace warmsched::twin {

// C source of object `index`: deterministic, different function names per object.
std::string build_object_source(unsigned index);

// The tree's files, relative to its directory: "Makefile", "obj_0.c", ...
std::vector<std::pair<std::string, std::string>> build_tree_files(unsigned objects);

} // namespace warmsched::twin
