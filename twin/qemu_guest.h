// Booting the twin's guest: packs the initramfs (twin/guest/make-initramfs.sh) with the run's scripts
// and tools, starts QEMU with the guest machine's topology and the guest kernel, watches the console for
// init.sh's "TWIN:" progress lines, and unpacks what the guest sent over its second serial port into
// the results directory's twin/.
//
// Time: QEMU's TCG without instruction counting, multi-threaded (one host thread per vCPU). The guest's
// clock is the host's, and the guest runs 1.3x (user-space loops) to 300x (hackbench) slower than the machine
// it stands for, so its absolute times are not the platform's; see docs/twin.md for what that means and for
// why -icount is not used (with more than one vCPU, QEMU 7.2's round-robin icount mode stops the guest's
// clock at SMP bring-up).
//
// Every wait has a timeout: a guest that has not booted in `boot_timeout_s` or not finished in
// `run_timeout_s` is killed, and run_guest throws twin_failure with one line saying why.
#pragma once

#include "twin/guest_kernel.h"
#include "twin/guest_machine.h"
#include "twin/guest_settings.h"

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>

namespace warmsched::twin {

// A run of the twin that failed (no QEMU, a guest that did not boot, ...): the run's fault, exit 1.
struct twin_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// A guest that stopped making progress: its console repeats soft-lockup and RCU-stall reports with
// every CPU idle ("rcu_preempt kthread timer wakeup didn't happen"): multi-threaded TCG lost a timer
// interrupt. Seen here in about 1 boot of 20 (Linux 6.1, 4 vCPUs, 2 host cores); booting again works.
// Also a guest that never reached its /init within the boot timeout with nothing on its (quiet)
// console: seen 3 times in the clean-clone and local suites of 2026-12-02/03 (8 vCPUs, once while the
// host compiled on both cores), the next boot of the same guest in 10 s.
struct guest_hang : twin_failure {
    using twin_failure::twin_failure;
};

struct guest_options {
    guest_kernel kernel;
    std::uint64_t memory_mib = 2048;
    unsigned trace_buffer_kb = 32768; // ftrace ring buffer per CPU
    unsigned boot_timeout_s = 300;
    unsigned run_timeout_s = 3600;
    std::string append; // more kernel command line
};

struct guest_times {
    double boot_s = 0;  // wall seconds from QEMU's start to init.sh's "booted"
    double run_s = 0;   // wall seconds from "run start" to "run end"
    double total_s = 0; // QEMU's whole life
    std::string qemu_command;
};

// `twin_dir` (created) receives the guest's files, console.txt and qemu.cmd. Progress lines go to `log`.
// Throws guest_hang for a hung guest (the caller may boot it again), twin_failure for the rest.
guest_times run_guest(const guest_machine& g, const guest_run& r, const guest_options& o,
                      const std::string& twin_dir, std::ostream& log);

} // namespace warmsched::twin
