// rt-app (scheduler-tools/rt-app), the JSON-described synthetic workload LISA users run: `rt-app FILE.json`.
// The main thread creates every task's instances as threads of one process (pthread_create: clone),
// which meet at a start barrier; the first thread's start is the clock reference t_zero. The main thread
// then sleeps the use case's duration (global.duration), stops the threads -- each finishes its current
// event, unlocks what it holds and exits, and threads blocked on a condition or barrier are woken -- and
// joins them; without a duration it joins them when their loops end.
//
// `run` is calibrated work: rt-app measures pLoad, the ns one iteration of its busy loop takes on the
// calibration CPU, and a run of N us executes floor(N*1000/pLoad) iterations. Here one iteration is
// `instructions_per_loop` instructions of compute without memory traffic, and pLoad is what that costs on
// the platform's core (instructions x base CPI / frequency, truncated to whole ns as rt-app's calibration
// truncates), so run N takes about N us on an idle core, more when the SMT sibling is busy. An integer
// "calibration" (ns per loop measured on another machine) is used as given, so the run takes
// N x (simulated ns per loop / given ns per loop) us, as it would on real hardware of another speed.
//
// Output: rt-app prints only notices on stderr; its results are the per-thread log files
// (<log_basename>-<thread>.log: one line per phase iteration), written into the run's results directory.
// The report has the pLoad notice and a per-thread summary of the same figures (see docs/workloads.md).
#pragma once

#include "workloads/cli/workload_params.h"
#include "workloads/rtapp/rtapp_runtime.h"
#include "workloads/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

class rt_app final : public workload {
public:
    rt_app(rtapp::config cfg, const rtapp::rtapp_params& params, int log_level, std::string command);

    // `rt-app [-l LEVEL] FILE.json`; `params`: the experiment file's parameters (rtapp_params). Throws
    // usage_error, with the file and JSON path for a bad use case.
    static std::unique_ptr<rt_app> from_command_line(const std::vector<std::string>& args,
                                                     const std::string& command, unsigned ncpus,
                                                     workload_params& params);

    std::string command() const override { return command_; }
    std::uint64_t tasks_needed() const override; // rt-app and the threads it creates at start
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override { return w_->main_done; }
    std::uint64_t expected_end_ns() const override;
    void report(std::ostream& out) const override;
    void write_files(const std::string& dir) const override;
    std::string runs_until_stopped() const override;
    std::string blocked_for_good() const override; // a deadlock: who waits on what (rtapp_runtime.h)
    // The tasks' "taskgroup" paths; each thread of such a task moves itself into its group when it starts.
    std::vector<std::pair<std::string, std::string>> cgroups_named() const override;
    void use_cgroups(const scheduler::cgroup_tree& tree) override;

    const rtapp::world& state() const { return *w_; }
    // Thread `ind`'s log file: its name and its text, as rt-app writes them.
    std::string log_file_name(int ind) const;
    std::string log_file_text(int ind) const;

private:
    std::shared_ptr<rtapp::world> w_;
    int log_level_;
    std::string command_;
};

} // namespace warmsched::workloads
