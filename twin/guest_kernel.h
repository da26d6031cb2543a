// The kernel the twin's guest boots: one of the Debian kernels `make deps` unpacks into
// <build>/twin/kernels/ (twin/guest/fetch-kernels.sh), or a bzImage of the user's own.
//
//   cloud-6.1   Debian linux-image-cloud-amd64, Linux 6.1 (CFS): the default referee of --kernel cfs
//   cloud-6.12  Debian linux-image-6.12-cloud-amd64, Linux 6.12 (EEVDF): the default of --kernel eevdf
//   rt-6.1      Debian linux-image-rt-amd64, Linux 6.1 PREEMPT_RT: the referee of the RT class
//
// The model's "cfs" is Linux v5.15, and Debian has no 5.15: the 6.1 kernel referees it. Where the two
// differ in a feature flag, the twin runs the guest with the model's setting (guest_settings.h).
#pragma once

#include "scheduler/core/scheduler.h"

#include <string>

namespace warmsched::twin {

struct guest_kernel {
    std::string name;    // cloud-6.1, ..., or the user's path
    std::string image;   // the bzImage
    std::string package; // "linux-image-6.1.0-57-cloud-amd64 6.1.192-3", or "user's bzImage"
    // Kernel command line this kernel needs under TCG. 6.12: tsc=unstable. Its sched_clock becomes stable
    // late in boot, which flips a static key by int3 text patching while the other vCPUs run; under
    // multi-threaded TCG a vCPU then trapped on the int3 and the guest panicked ("Oops: int3" in
    // sched_clock_cpu) in 2 of 4 boots on 16 vCPUs here, none in 5 boots with tsc=unstable. rt-6.1:
    // noirqdebug. Its threaded 8250 handler let the spurious-IRQ check call the second serial port's IRQ
    // 3 unhandled ("irq 3: nobody cared ... Disabling IRQ #3") while the results were being sent, which
    // then crawled (110 KB in 5 minutes).
    std::string append;
};

// Where fetch-kernels.sh put the kernels: twin/kernels/ next to the warmsched binary.
std::string kernels_dir();

// `choice`: a name above, a path to a bzImage, or "" for the default of `k`. Throws config_error (key
// --guest-kernel) for an unknown name, a missing file, or a kernel that was never fetched.
guest_kernel find_guest_kernel(const std::string& choice, scheduler::kernel_version k);

} // namespace warmsched::twin
