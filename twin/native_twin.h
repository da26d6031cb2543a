// `warmsched twin --native`: the machine warmsched runs on as the model's referee, at full speed. The
// command runs natively, --repeat times, each time twice: untraced, for the tool's own figures and the
// user and system time (tracing slows every switch and wakeup by the cost of its events), then traced
// for the kernel's counters; each run under twin_runner (twin/guest/twin_runner.cpp, the guest's own
// helper: process group, rusage, exit status) with the host's tracefs recording its sched events
// (tracefs_session.h); then the same command runs once in the model of this machine -- the platform file
// given, or by default a fresh `warmsched calibrate` of it -- and the two are printed side by side with
// the QEMU twin's rows (twin_report.h), the real column the median over the repeats with min and max.
//
//   native_twin (this)
//     |-- tracefs_session      mount if needed, save, enable the sched events, record, restore
//     |-- twin_runner x 2N     DIR/native/rK/{stdout, rusage, exit, pid, trace.txt}, rK/untraced/
//     |-- warmsched calibrate  DIR/platform.yaml (unless --platform)
//     |-- warmsched run        DIR/model/ (model_side.h)
//     '-- twin_report          DIR/comparison.txt, comparison.json
//
// An experiment file's workloads (commands, as `run` reads them) run at once, each under its own
// twin_runner (cyclictest beside a CPU hog). tbench's server is started first, outside the workload, as
// the QEMU twin's guest starts it. It runs only what the commands name (no cgroups, no settings written: the host kernel runs with its own
// tunables, and the model is told them where it has them -- none today, so the model runs its own
// defaults; docs/twin.md says which differ). Refused with one line and exit 2: an experiment file
// (only a command after --), a tool the model does not know, a tool not installed here, and a tracefs that
// is not usable (tracefs_session.h). Each command runs in its own output directory (DIR/native/rK[/wI]),
// not the caller's: what a tool writes where it runs (rt-app's logs) stays with the run's results and
// never overwrites the user's files; an argument that names a file of the caller's directory is given
// as its absolute path (command_with_absolute_files).
#pragma once

#include "sim/experiment.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::twin {

struct native_settings {
    std::string experiment_file;        // "" = the default experiment with `command`
    sim::command_workload command;
    std::vector<std::string> overrides; // the model's: -p, --kernel, --seed as `run` builds them
    std::string platform_file;          // "" = calibrate this machine first
    unsigned repeat = 3;                // native runs
    unsigned calibrate_repeat = 3;      // calibrate's --repeat when it runs
    std::string out_dir;
    std::uint64_t trace_buffer_kb = 65536; // per CPU
    unsigned run_timeout_s = 3600;         // per native run
};

int run_native_twin(const native_settings& s, std::ostream& out);

// The executables a command line runs (the first word, and the command after taskset, chrt, nice, time
// and their options), for the "is it installed" check.
std::vector<std::string> command_programs(const std::vector<std::string>& words);

// The command with each argument that names an existing file relative to the working directory (not an
// option, not a number or CPU list, not absolute: rt-app's taskset.json) replaced by its absolute path, so that it still names the
// file when the command runs in another directory.
std::vector<std::string> command_with_absolute_files(const std::vector<std::string>& words);

} // namespace warmsched::twin
