// What the twin's guest runs, written as the two shell scripts the guest's /init runs
// (twin/guest/init.sh): setup.sh gives the guest kernel the run's scheduler settings and cgroups, and
// start.sh starts the experiment's workloads at once, each under twin_runner, and waits for them.
//
// Settings: every feature flag and tunable the model's kernel has is written with the model's value
// where the guest kernel has it too (the model's CFS is v5.15, the referee 6.1: SIS_PROP vs SIS_UTIL is
// such a difference), so both sides run the same heuristics; setup.sh logs "feature NAME on|off|absent"
// and "sysctl NAME VALUE|absent" lines, which the report turns into notes.
//
// Workloads: the command lines the model runs, for the real tools Debian packages (hackbench and
// cyclictest from rt-tests, perf bench from linux-perf, fio, rt-app, tbench from dbench, `[time] make
// -jN` with GNU make and gcc building a generated tree of the workload's `objects`: guest_build_tree.h).
// A tool without a package is refused. `taskset -c LIST` is rewritten into guest CPU numbers
// (guest_machine.h); an rt-app JSON file is copied into the guest.
#pragma once

#include "sim/experiment.h"
#include "twin/guest_machine.h"

#include <string>
#include <vector>

namespace warmsched::twin {

struct guest_run {
    std::string setup_sh, start_sh;
    std::vector<std::string> tools;                            // binaries to pack (make-initramfs.sh)
    std::vector<std::pair<std::string, std::string>> inputs;   // host file -> name under /twin/files/
    std::vector<std::pair<std::string, std::string>> files;    // path under /twin/ -> its content (a build tree)
    std::vector<std::string> notes;                            // what the guest cannot run as the model does
};

// Throws config_error (key "workloads.N") for a workload the twin cannot run in the guest.
guest_run make_guest_run(const sim::experiment& e, const guest_machine& g);

// The tools `warmsched twin --help` names, and those it refuses.
const std::vector<std::string>& guest_tools();
const std::vector<std::string>& tools_without_package();

// 'word' quoted for sh.
std::string shell_quote(const std::string& word);

} // namespace warmsched::twin
