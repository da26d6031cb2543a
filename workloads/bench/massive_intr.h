// massive_intr (Satoru Takeuchi, LKML 2007, "massive interactive processes"; the test behind the CFS
// fairness discussions): `massive_intr NPROC RUNTIME` forks NPROC processes, each of which sleeps 200 ms
// (usleep(200000)), waits for the parent's SIGUSR1, then loops "work 8 ms, nanosleep 1 ms, count++"
// until RUNTIME seconds have passed since the parent signalled, and prints "%06d\t%08d\n" -- its pid and
// its loop count -- as it finishes (so lines come in the order the processes end). A fair scheduler
// gives every process about the same count.
//
// The 8 ms of work is a calibrated busy loop: the parent times 10^9 iterations of an empty loop once,
// and each child then runs 8 ms worth of iterations -- a fixed amount of work, not a wall-clock time, so
// a preempted child takes longer. Here the calibration is taken as what it would measure on an idle CPU
// of the simulated machine: 8 ms / (base CPI x cycle time) instructions, with no memory accesses (the
// loop counter lives in a stack slot that never leaves L1). The calibration run itself (about a second
// of one CPU before the children are forked) is not simulated. SIGUSR1 is modelled as a futex broadcast
// that the children wait on after their 200 ms sleep.
//
// warmsched extension: RUNTIME may be fractional (the original's strtol takes whole seconds, and its
// time() has 1 s resolution; here the end test uses the simulated clock exactly).
#pragma once

#include "workloads/cli/workload_params.h"
#include "workloads/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

struct massive_intr_options {
    unsigned nproc = 0;
    double runtime_s = 0;
};

// What is not on massive_intr's command line (experiment-file keys; docs/workloads.md).
struct massive_intr_model {
    double work_ms = 8;          // WORK_MSECS of the source
    double sleep_ms = 1;         // SLEEP_MSECS of the source
    double start_delay_ms = 200; // each child's usleep(200000) before it waits for the start signal
};

class massive_intr final : public workload {
public:
    massive_intr(const massive_intr_options& o, const massive_intr_model& m, std::string command);
    // `massive_intr NPROC RUNTIME`. Throws usage_error.
    static std::unique_ptr<massive_intr> from_command_line(const std::vector<std::string>& args,
                                                           const std::string& command,
                                                           workload_params& params);

    std::string command() const override { return command_; }
    std::uint64_t tasks_needed() const override { return 1ull + o_.nproc; }
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override { return result_->done; }
    void report(std::ostream& out) const override;

    const massive_intr_options& options() const { return o_; }
    const massive_intr_model& model() const { return m_; }

    struct child_result {
        int pid = 0;
        std::uint64_t loops = 0;
        std::uint64_t started_ns = 0, finished_ns = 0; // first work, the print
    };
    struct result {
        bool done = false;
        std::uint64_t first_ns = 0;          // the parent's time(first), when it signals the children
        std::uint64_t work_instructions = 0; // one 8 ms work phase
        std::vector<child_result> children;  // in the order they printed
    };
    const result& outcome() const { return *result_; }

private:
    massive_intr_options o_;
    massive_intr_model m_;
    std::string command_;
    std::shared_ptr<result> result_ = std::make_shared<result>();
};

} // namespace warmsched::workloads
