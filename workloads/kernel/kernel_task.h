// A task as the simulated kernel runs it: the scheduler's task, the program it executes and where it
// is in it, its address space (process heap shared by its threads), its kernel lines (task_struct and
// kernel stack, touched by every switch and wakeup), the generators of its compute's memory accesses,
// its seeded RNG, its family (parent and live children), and user/kernel time.
#pragma once

#include "scheduler/task/task.h"
#include "workloads/kernel/compute_settling.h"
#include "workloads/kernel/memory_profile.h"
#include "workloads/kernel/program.h"

#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace warmsched::workloads {

// A process's address space: threads share it.
struct address_space {
    int tgid = 0;
    std::uint64_t heap_base = 0, heap_bytes = 0;
    std::uint64_t buffer_base = 0; // next free byte of per-thread user buffers
};

struct kernel_task {
    scheduler::task t;
    std::shared_ptr<program> prog;
    program_context ctx;
    std::optional<op> current;   // the operation in progress (a blocked syscall is retried)
    std::uint64_t remaining = 0; // compute: instructions left
    std::uint64_t done = 0;      // write: bytes written so far
    bool entered = false;        // the system call's entry cost has been charged
    bool resumed = false;        // the operation blocked and the task was woken since
    std::shared_ptr<address_space> mm;
    std::uint64_t task_struct = 0, kernel_stack = 0, user_buffer = 0; // addresses
    std::vector<std::pair<const memory_profile*, access_generator>> generators;
    std::mt19937_64 rng;
    double access_carry = 0;       // fractional access left over from the previous compute chunk
    double ps_per_instruction = 0; // running estimate, to size compute chunks
    compute_settling settling;     // may its compute run fast-forwarded?
    double sample_carry = 0;       // fractional sampled access left over (fast-forwarded chunks)
    kernel_task* parent = nullptr;
    int into_cgroup = -1; // LAUNCH_FORK_EXEC: the cgroup its launcher forks it into (-1: the launcher's)
    unsigned live_children = 0;
    std::deque<int> exited_children; // pids of children that exited and were not reaped by wait_child
    bool in_kernel = false;          // executing a system call or kernel path (vs user mode)
    scheduler::nsec utime = 0, stime = 0;
    scheduler::nsec created = 0, exited = 0;
};

} // namespace warmsched::workloads
