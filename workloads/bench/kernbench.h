// kernbench (Con Kolivas, v0.42) and `make -jN`: a kernel build as a batch load. make is a job server
// that keeps N jobs running; each job is a process make forks that execs the compiler (cc1: the sh, gcc
// driver and as of a real job folded into one process), computes for its object's compile time with a
// multi-MiB working set, and exits; make reaps it (wait) and forks the next. The tree's objects have
// fixed, seeded compile times (lognormal), so runs differ only by scheduling and caches.
//
//   kernbench --fork--> make -jN --fork--> job --exec--> cc1: compute(instructions, cc1 profile), exit
//       ^  wait4 (rusage)   |  ^   wait() any child          |
//       +-------------------+  +-----------------------------+
//
// kernbench prints what its script prints: the preamble, "<load> run number i..." and per load the
// "Average <load> Run (std deviation):" block of GNU time's figures (elapsed, user, system, percent CPU,
// involuntary context switches, voluntary sleeps) over make and its children. `make -jN` prints what
// bash's `time make -jN` adds (real/user/sys). Left out: the build's file I/O and page faults (System
// Time is far below a real build's), dependencies between objects and the link steps (every object can
// start at once), and make's own parsing beyond a fixed cost per job. Parameters beyond the command
// line (workload_params, docs/workloads.md): objects, job_instructions_median, job_instructions_sigma,
// cc1_working_set_mib, cc1_accesses_per_kilo_instruction, cc1_write_fraction, cc1_hot_fraction,
// cc1_hot_access, make_instructions_per_job.
#pragma once

#include "workloads/cli/workload_params.h"
#include "workloads/kernel/memory_profile.h"
#include "workloads/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

struct kernbench_params {
    unsigned objects = 2500;                // compile jobs in one build
    double job_instructions_median = 800e6; // per object (lognormal median)
    double job_instructions_sigma = 1.0;    // lognormal shape
    double cc1_working_set_mib = 48;        // cc1's working set
    double cc1_accesses_per_kilo_instruction = 20;
    double cc1_write_fraction = 0.3;
    double cc1_hot_fraction = 0.1;          // share of the working set that is hot
    double cc1_hot_access = 0.9;            // share of accesses that go to the hot part
    double make_instructions_per_job = 2e6; // make's own work per job it starts and reaps
};

struct kernbench_options {
    unsigned runs = 5;      // -n
    unsigned opti_jobs = 0; // -o (0: 4 x CPUs)
    bool single = false;    // -s
    bool half = true;       // -H turns off
    bool opti = true;       // -O turns off
    bool max = true;        // -M turns off
    bool fast = false;      // -f
    bool runs_given = false;
    double time_limit_s = 0; // -t (warmsched): repeat the runs until this much simulated time has passed
};

class kernbench final : public workload {
public:
    enum class style { kernbench, make };
    kernbench(const kernbench_options& o, const kernbench_params& p, style s, unsigned make_jobs,
              std::string command);

    // `kernbench [-n runs] [-o jobs] [-s] [-H] [-O] [-M] [-f] [-j jobs] [-t seconds]`; throws usage_error.
    static std::unique_ptr<kernbench> from_kernbench(const std::vector<std::string>& args,
                                                     const std::string& command, workload_params& params);
    // `[time] make [-j [N]] [--jobs[=N]]`: one build (no warm-up, no pause).
    static std::unique_ptr<kernbench> from_make(const std::vector<std::string>& args,
                                                const std::string& command, workload_params& params);
    static kernbench_params read_params(workload_params& params, const std::string& tool);

    std::string command() const override { return command_; }
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override;
    void report(std::ostream& out) const override;

    // One run of make, as GNU time measures it (make and every child it waited for).
    struct run {
        std::string load;  // "Half load -j 16"
        unsigned jobs = 0; // 0: make -j (no limit)
        bool warmup = false;
        bool done = false;
        std::uint64_t start_ns = 0, stop_ns = 0;
        double user_s = 0, sys_s = 0;
        std::uint64_t involuntary = 0, voluntary = 0;
        std::uint64_t objects = 0; // jobs completed
    };
    struct result {
        unsigned cpus = 0;
        std::string kernel_release;
        std::vector<std::string> preamble;
        std::vector<run> runs; // in order, warm-up first
        bool done = false;
        std::uint64_t jobs_forked = 0, jobs_reaped = 0;
    };
    const result& outcome() const { return *result_; }
    const kernbench_params& params() const { return p_; }
    // The compile job sizes (instructions), one per object of the tree, after start().
    const std::vector<std::uint64_t>& object_instructions() const { return *objects_; }

private:
    kernbench_options o_;
    kernbench_params p_;
    style style_;
    unsigned make_jobs_; // make: -j N (0: unlimited); kernbench: unused
    std::string command_;
    std::shared_ptr<result> result_ = std::make_shared<result>();
    std::shared_ptr<std::vector<std::uint64_t>> objects_ = std::make_shared<std::vector<std::uint64_t>>();
    std::shared_ptr<memory_profile> cc1_ = std::make_shared<memory_profile>();
    std::shared_ptr<memory_profile> make_ = std::make_shared<memory_profile>();
};

} // namespace warmsched::workloads
