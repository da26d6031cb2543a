// Why and when the loaded policy was ejected: sched_ext's struct scx_exit_info (kind, reason, msg) and
// what the run adds to it (the simulated time, the task and CPU concerned, the callback that was
// running). The kernel fills it at the first error (scx_ops_error_kind: later errors are dropped), and
// its disable work (scx_ops_disable_workfn) then moves the policy's tasks to the fair class; the run
// prints it in its summary and records it in report.json and the stats (kernel.ext).
#pragma once

#include "scheduler/task/task.h"

#include <string>

namespace warmsched::scheduler {

// enum scx_exit_kind, the error kinds (include/linux/sched/ext.h of v6.12).
enum class ext_exit_kind : unsigned {
    none = 0,
    error = 1024,       // SCX_EXIT_ERROR: the kernel found the policy doing something invalid
    error_bpf = 1025,   // SCX_EXIT_ERROR_BPF: the policy called scx_bpf_error (kernel::error)
    error_stall = 1026, // SCX_EXIT_ERROR_STALL: a runnable task stalled, or a callback did not return
};
// scx_exit_reason(): "runtime error", "scx_bpf_error", "runnable task stall".
const char* exit_reason(ext_exit_kind k);
// "SCX_EXIT_ERROR" ...
const char* exit_kind_name(ext_exit_kind k);

struct ext_exit_info {
    ext_exit_kind kind = ext_exit_kind::none;
    std::string policy; // the policy's name
    std::string msg;    // what went wrong (ei->msg)
    std::string op;     // the callback that was running ("dispatch"), "" if none was
    nsec at = 0;        // simulated time of the error
    int pid = -1;       // the task concerned (-1: none)
    std::string comm;
    int cpu = -1; // the CPU concerned (-1: none)
    // Filled by the disable work: when the tasks went to the fair class, and how many did.
    bool ejected = false;
    nsec ejected_at = 0;
    unsigned tasks_moved = 0;

    bool failed() const { return kind != ext_exit_kind::none; }
    // `policy NAME ejected (REASON) at T simulated s: MSG`, as the kernel's two lines say it
    // ("sched_ext: BPF scheduler "NAME" disabled (REASON)", "sched_ext: NAME: MSG").
    std::string line() const;
};

} // namespace warmsched::scheduler
