// cyclictest (rt-tests v2.x, Thomas Gleixner / Clark Williams / John Kacur): the wakeup-latency test of
// the real-time community. `cyclictest [-n] [-p PRIO] [-t [N]] [-i US] [-d US] [-l LOOPS] [-D TIME]
// [-a [CPUS]] [-h US] [-q] [-m] [--priospread] [--policy NAME] [--laptop]` starts N measurement threads
// (default 1; -t without N: one per CPU). Thread k sleeps with clock_nanosleep(CLOCK_MONOTONIC,
// TIMER_ABSTIME) on a grid of expiries (first = its start time + its interval), reads the clock when it
// runs again and records latency = now - expiry in microseconds (truncated, as calcdiff does), then
// moves the expiry on by one interval -- and past any it already missed.
//
// rt-tests v2.x semantics, as its source does them (not as older man pages say):
//   - interval of thread k = i + k*d (-d default 500 us), but with -h every thread gets i (the distance
//     is ignored, with the warning "distance is ignored and set to 0, if histogram enabled");
//   - priority: every thread gets -p's priority; only --priospread gives thread k priority p - k (the
//     v1.x rule "p - k unless -h" is gone); -p implies SCHED_FIFO; --policy fifo|rr|other|batch|idle;
//     without -p the threads are SCHED_OTHER and print P: 0;
//   - -a without a list pins thread k to CPU k % ncpus, -a LIST to the k-th CPU of LIST (round robin);
//   - -l LOOPS stops a thread after LOOPS wakeups; -D TIME stops all threads once a thread sees TIME pass
//     (each sleeping thread still records the wakeup it is in; suffixes s, m, h, d; warmsched also takes
//     a fractional number of seconds, e.g. -D 0.3);
//   - output: per thread `T:%2d (%5d) P:%2d I:%ld C:%7lu Min:%7ld Act:%5ld Avg:%5ld Max:%8ld` (tid,
//     priority, interval, cycles, min/last/average/max latency in us), printed at the end (-q: only at
//     the end; without -q the real tool also refreshes it on the terminal every 10 ms); with -h the
//     histogram (print_hist: "# Histogram", one "%06d " row per microsecond below -h with each thread's
//     count "%06lu" tab-separated, "# Total:", "# Min/Avg/Max Latencies:", "# Histogram Overflows:",
//     "# Histogram Overflow at cycle number:"); with -q and -h only the histogram.
// The main thread (SCHED_OTHER) wakes every 10 ms (usleep(10000)) to check whether all threads stopped,
// as the real one does between its refreshes.
//
// Each wakeup's latency is whatever the simulated kernel's path costs: the hrtimer interrupt on the CPU
// the thread slept on, the idle exit if that CPU idled, the RT wakeup placement (select_task_rq_rt,
// cpupri or the linear scan) and any push, the IPI to another CPU, the context switch, and the cache
// misses on the way (task_struct, stack, run-queue lines, the thread's own lines after a migration).
// Not modelled: the PM QoS request cyclictest makes (/dev/cpu_dma_latency = 0, which keeps idle CPUs in
// the polling state; set the platform's kernel_costs.idle_polling to model it), -m's mlockall (accepted,
// nothing to lock: the model has no paging), tracing options, -N, -v, -r, -s, -U, --smi. -S is -a -t
// with one priority; --json=FILE writes rt-tests 2.40's JSON file into the results directory.
#pragma once

#include "workloads/cli/workload_params.h"
#include "workloads/kernel/memory_profile.h"
#include "workloads/workload.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

struct cyclictest_options {
    bool nanosleep = false; // -n (clock_nanosleep; the only mode modelled: -n is the default here)
    int priority = 0;       // -p: 0..99
    enum class sched { other, fifo, rr, batch, idle } policy = sched::other;
    bool priospread = false; // --priospread
    unsigned threads = 1;    // -t
    long interval_us = 1000; // -i (DEFAULT_INTERVAL)
    long distance_us = -1;   // -d (-1: not given, DEFAULT_DISTANCE 500)
    unsigned long loops = 0; // -l: 0 = endless
    double duration_s = 0;   // -D: 0 = none
    enum class affinity { unspecified, specified, use_all } affinity_mode = affinity::unspecified;
    std::vector<unsigned> affinity_cpus; // -a LIST, in order
    unsigned histogram_us = 0;           // -h: 0 = no histogram
    bool quiet = false;                  // -q
    bool mlockall = false;               // -m
    std::string json_file; // --json=FILE: the final results as JSON (written to the results dir)
};

// What is not on cyclictest's command line (experiment-file keys; docs/workloads.md).
struct cyclictest_model {
    // The user-space work of one cycle after the wakeup: clock_gettime (vDSO), calcdiff, the statistics
    // and histogram updates, the next expiry (estimated: ~400 instructions).
    double loop_instructions = 400;
    // The lines that work touches: the thread's stack frame, its thread_stat and histogram slot
    // (estimated: 8 KiB).
    double working_set_kb = 8;
};

class cyclictest final : public workload {
public:
    cyclictest(const cyclictest_options& o, const cyclictest_model& m, std::string command, unsigned ncpus);
    // The arguments after "cyclictest". Throws usage_error.
    static std::unique_ptr<cyclictest> from_command_line(const std::vector<std::string>& args,
                                                         const std::string& command, unsigned ncpus,
                                                         workload_params& params);

    std::string command() const override { return command_; }
    std::uint64_t tasks_needed() const override { return 1ull + o_.threads; }
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override { return state_->done; }
    std::uint64_t expected_end_ns() const override { return static_cast<std::uint64_t>(o_.duration_s * 1e9); }
    void report(std::ostream& out) const override;
    // --json=FILE: rt-tests' rt_write_json layout, into the results directory under FILE's name.
    void write_files(const std::string& dir) const override;
    void write_json(std::ostream& out) const;

    const cyclictest_options& options() const { return o_; }
    const cyclictest_model& model() const { return m_; }

    // One measurement thread's parameters and statistics (struct thread_param / thread_stat).
    struct thread_stat {
        int tid = 0;
        int prio = 0;
        long interval_us = 0;
        int cpu = -1;      // -a: the CPU it is pinned to
        int node = -1;     // --json's "node": the NUMA node of its CPU when not pinned (rt-tests 2.40)
        int json_cpu = -1; // --json's "cpu": the pinned CPU, or thread k's k-th CPU
        std::uint64_t cycles = 0;
        long min = 1000000, max = 0, act = 0; // us; min starts at 1000000 as in the source
        double avg = 0;                       // sum of the latencies (us); printed as avg / cycles
        std::vector<std::uint64_t> hist;      // -h: count per us below the limit
        std::uint64_t hist_overflow = 0;
        std::vector<std::uint64_t> outliers; // cycle numbers of overflows (at most -h of them)
        bool stopped = false;
    };
    struct state {
        bool done = false;
        bool shutdown = false;                  // -D elapsed (seen by a thread)
        std::uint64_t start_ns = 0, end_ns = 0; // ns: when main started and saw every thread stop
        std::string release;                    // uname -r of the simulated kernel (--json's sysinfo)
        std::vector<thread_stat> threads;
    };
    const state& outcome() const { return *state_; }
    // The interval, priority and pinned CPU thread k gets (rt-tests' main loop).
    long thread_interval_us(unsigned k) const;
    int thread_priority(unsigned k) const;
    int thread_cpu(unsigned k) const;

private:
    cyclictest_options o_;
    cyclictest_model m_;
    std::string command_;
    unsigned ncpus_;
    std::shared_ptr<state> state_ = std::make_shared<state>();
    std::shared_ptr<memory_profile> profile_; // the cycle's work, shared by the threads
};

} // namespace warmsched::workloads
