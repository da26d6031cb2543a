// The simulated kernel's pid_max: how many tasks can exist at once. Linux sets it at boot
// (kernel/pid.c pid_idr_init) to max(PID_MAX_DEFAULT = 32768, PIDS_PER_CPU_DEFAULT = 1024 x possible
// CPUs), at most PID_MAX_LIMIT = 4194304 on 64-bit. A workload asking for more tasks than that would fail
// in fork() with EAGAIN on the real machine; the model refuses it before the run, naming the limit,
// instead of allocating task after task until the host runs out of memory.
// Left out: sysctl kernel.pid_max (raising it), threads-max and RLIMIT_NPROC, which are larger by default.
#pragma once

#include <algorithm>
#include <cstdint>

namespace warmsched::workloads {

constexpr std::uint64_t pid_max(unsigned ncpus) {
    return std::min<std::uint64_t>(4'194'304, std::max<std::uint64_t>(32'768, 1024ull * ncpus));
}

} // namespace warmsched::workloads
