// `warmsched twin`: a real Linux kernel as the model's referee. Boots a Debian kernel in QEMU on the
// platform's topology (scaled down to --max-vcpus), runs the experiment's workloads there with the real
// tools, then runs the same experiment in the model, and prints the two side by side:
//
//   platform + overrides --scale_overrides--> the machine both sides run
//        |                                        |
//   guest_machine (QEMU -smp/-numa)            sim::run_experiment (results dir)
//   guest_settings (setup.sh, start.sh)           |
//   qemu_guest (boot, run, collect: twin/)        |
//        \------ kernel_counters (schedstat, ftrace) ------/
//                          |
//                 twin_report (real | model | model/real), domain_check
//
// With --topology only the guest's sched domains, LLC sharing and NUMA nodes are compared with the
// model's (exit 1 if they differ).
#pragma once

#include "sim/experiment.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::twin {

struct twin_settings {
    std::string experiment_file;
    std::vector<std::string> overrides; // as `run` builds them (platform=..., kernel.version=..., -p ...)
    sim::command_workload command;
    std::string out_dir;
    std::string guest_kernel; // name or bzImage path; "" = the default of the model's kernel
    unsigned max_vcpus = 8;
    std::uint64_t memory_mib = 2048;
    unsigned boot_timeout_s = 300;
    unsigned run_timeout_s = 3600;
    unsigned trace_buffer_kb = 32768;
    std::string append; // more guest kernel command line
    // A file of kprobe events (tracefs kprobe_events lines; '#' comments and blank lines skipped) the
    // guest adds and enables before the run, so that their events land in its trace.txt; "" = none.
    std::string kprobes_file;
    bool topology_only = false;
    unsigned guest_retries = 2; // boots again after a guest hang (qemu_guest.h)
    // The model's second run slowed to the guest's speed (platforms/time_dilation.h): < 0 measures the
    // factor (the guest's CPU time for the workload over the model's), 1 turns the run off.
    double dilation = -1;
};

// Returns the exit status. Throws config_error for bad input and twin_failure for a guest that failed.
int run_twin(const twin_settings& s, std::ostream& out);

} // namespace warmsched::twin
