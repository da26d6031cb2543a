// From what the host's microbenchmarks measured to the model's direct kernel costs (kernel_costs), with
// nothing counted twice. Pure arithmetic: no I/O, no model run; calibrate_run.h gathers the inputs.
//
// Each microbenchmark (calibrate/microbench.c) isolates one operation. Its time per operation on the host
// is the sum of the direct costs the model charges for that operation and of what the model charges
// besides them: the cache misses of the lines the path touches and the tool's own user-mode work. That
// second part, the *residual*, is what the model takes for the same microbenchmark with every direct cost
// at zero. So, per operation (ns; S is one system call's entry and exit):
//
//   syscall         = getppid                                          (the model touches no line)
//   pipe_write      = pipe write  - S - residual(pipe write)
//   pipe_read       = pipe read   - S - residual(pipe read)
//   unix_skb_alloc  = socket write - S - pipe_write - residual(socket write)
//   unix_skb_free   = socket read  - S - pipe_read  - residual(socket read)
//   context_switch  = sched_yield between two threads, per switch - S - residual(switch)
//   mm_switch       = the same between two processes - the same between threads (the residuals cancel)
//   wakeup          = (pipe round trip between threads on one CPU - residual) / 2
//                     - (2 S + pipe_write + pipe_read + context_switch)
//   the same on two CPUs, each thread on its own, measured twice: its time and the two threads' CPU time
//   (CLOCK_THREAD_CPUTIME_ID) per round trip. With L = 2 S + pipe_write + pipe_read + wakeup +
//   context_switch, the path of one hand-off that both cases share:
//   ipi_send        = (CPU time per round trip - residual CPU) / 2 - L: what the waker spends more when the
//                     wakee is on another, idle CPU: the wake-list path (TTWU_QUEUE, taken for an idle
//                     target) queues the task there and sends the IPI; on a VM without IPI
//                     virtualization the ICR write is a VM exit. (remote_enqueue, the locked remote enqueue
//                     of a busy target, is not isolated here and stays an estimate.)
//   ipi, ipi_handler, idle_exit
//                   = (round trip - residual) / 2 - L - ipi_send: the latency from the waker's IPI to
//                     the wakee running, one measured sum split in the estimated table's proportions
//                     (1.5 : 0.5 : 1.0); the file says the split is an estimate
//   fork, clone     = the call's own time in the parent - S   (Linux runs the parent first after fork)
//   exit            = from the child's _exit to waitpid's return in the parent
//                     - (S + wakeup + context_switch + mm_switch)
//   exec            = from just before execve to the new image's main - S  (the image is static: its
//                     start-up is a few hundred instructions, left in)
//
// The decomposition runs repeat by repeat (the i-th sample of every microbenchmark together), and each
// solved cost's median, min and max are over those repeats. A solved cost below zero is clamped to zero
// and flagged: the model then charges more for the operation than the host takes, through its residual.
#pragma once

#include "platforms/platform_params.h"

#include <string>
#include <vector>

namespace warmsched::calibrate {

struct spread {
    double median = 0, min = 0, max = 0;
    std::size_t n = 0;
};
spread spread_of(std::vector<double> samples);

// Nanoseconds per operation, one sample per repeat, every vector of the same length.
struct host_costs {
    std::vector<double> syscall, pipe_write, pipe_read, unix_write, unix_read;
    std::vector<double> yield_threads, yield_procs; // per switch
    std::vector<double> pipe_rt_threads;            // one CPU, per round trip
    std::vector<double> pipe_rt_threads_2cpu;       // each thread on its own CPU
    std::vector<double> pipe_rt_threads_2cpu_cpu;   // the two threads' CPU time per round trip there
    std::vector<double> fork_call, exit_reap, clone_call, exec;
};

// What the model charges for the same operations with every direct cost at zero (ns per operation).
struct model_residuals {
    double pipe_write = 0, pipe_read = 0, unix_write = 0, unix_read = 0;
    double yield_switch = 0;
    double pipe_rt_threads = 0, pipe_rt_threads_2cpu = 0;
    double pipe_rt_threads_2cpu_cpu = 0; // the model's CPU time per round trip on two CPUs
};

struct solved_cost {
    std::string key;             // kernel_costs key
    std::vector<double> ns;      // one value per repeat
    std::string how;             // the equation, in words
    double estimate_ns = 0;      // what the estimated table (`estimates`) says
    bool split_estimated = false; // a share of a measured sum, split as the estimates are
    bool clamped = false;        // some repeat solved below zero
};

// `estimates`: the table whose proportions split the remote hand-off's sum.
std::vector<solved_cost> decompose_costs(const host_costs& host, const model_residuals& residuals,
                                         const platform::kernel_cost_params& estimates);

// The kernel_costs keys the decomposition solves (the others keep their estimates).
const std::vector<std::string>& solved_cost_keys();

} // namespace warmsched::calibrate
