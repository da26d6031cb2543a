// schbench (Chris Mason, Meta; github.com/masoncl/schbench, schbench.c as of 2024): message threads and
// worker threads of one process, talking through futexes, that reproduce the scheduling pattern of a
// web tier. Each worker loops:
//
//   worker                                   its message thread
//   ------                                   ------------------
//   futex = BLOCKED, stamp wake_time
//   push itself on the message thread's list
//   fpost(message futex) ----------------->  woken: futex = BLOCKED; splice the list; now = gtod;
//   fwait(own futex) <---------------------  for each listed worker: wake_time = now; fpost(its futex)
//   wakeup latency = gtod - wake_time        fwait(own futex)
//   request: usleep(-s), then with its CPU's lock held, -n naive multiplications of
//   three sqrt(F KiB / 3 / 8)-square matrices of longs; request latency = end - start; loop_count++
//
// fpost is schbench's CAS BLOCKED -> RUNNING then FUTEX_WAKE; fwait its CAS RUNNING -> BLOCKED else
// FUTEX_WAIT -- the compare-and-swaps happen in user space (in the program), the futex system calls in
// the simulated kernel, and the futex word's line moves between the waker's and the wakee's caches.
// The per-CPU lock (on unless -L or -C) is a trylock spin on the lock of the CPU the worker is on:
// a worker preempted or migrated while it multiplies makes the next worker on that CPU spin, which is
// how schbench makes preemption expensive. The main thread samples requests per second once a second
// (the first sample, at time 0, is 0 as in schbench), prints interval reports every -i seconds, and
// after -r seconds sets `stopping`, wakes the message threads and joins everything; workers finish the
// request they are in (it is counted).
//
// Output is schbench's stderr text: "Wakeup Latencies percentiles (usec) runtime R (s) (N total
// samples)", the 50/90/99/99.9th lines, min/max, the same for request latencies, RPS percentiles
// (20/50/90) and "average rps: X" = requests / runtime. Latencies come from the simulated clock, truncated
// to microseconds as gettimeofday does.
//
// warmsched extensions: -r takes fractional seconds (schbench's atoi would make 0.05 "forever"); -c USEC,
// the cputime option of schbench before 2023, spins on the clock for USEC per request instead of the
// matrix math. Not modelled, rejected with a message: pipe mode (-p), requests-per-second modes (-R, -A),
// JSON output (-j, -J). Left out: the 1 MiB pipe page per thread (untouched without -p), the cache line
// of the message list head (the futex line is modelled), usleep's timer slack (the kernel's timers
// fire on time).
#pragma once

#include "workloads/bench/latency_histogram.h"
#include "workloads/cli/workload_params.h"
#include "workloads/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

struct schbench_options {
    unsigned message_threads = 1;      // -m
    unsigned worker_threads = 0;       // -t per message thread; 0: ceil(CPUs / message threads)
    double runtime_s = 30;             // -r
    unsigned warmup_s = 0;             // -w (ignored when the runtime is under 30 s, as schbench does)
    unsigned interval_s = 10;          // -i
    unsigned zero_s = 0;               // -z (0: never)
    unsigned cache_footprint_kb = 256; // -F
    unsigned operations = 5;           // -n matrix multiplications per request
    unsigned sleep_usec = 100;         // -s think-time sleep per request
    unsigned cputime_usec = 0;         // -c (warmsched: schbench's pre-2023 cputime spin per request)
    bool calibrate = false;            // -C
    bool no_locking = false;           // -L
    std::vector<bool> message_cpus;    // -M (empty: not pinned)
    std::vector<bool> worker_cpus;     // -W (empty: not pinned)
    bool auto_pin = false;             // -M auto / -W auto
    bool workers_defaulted = false;    // -t not given: "setting worker threads to N" is printed
    std::string json_file;             // -j FILE: the JSON summary ("-": on stdout, before the latencies)
    std::string jobname;               // -J: named in the JSON
};

// What is not on schbench's command line (experiment-file keys; docs/workloads.md).
struct schbench_model {
    // Instructions per inner-loop iteration of the multiplication, m3[i][j] += m1[i][k] * m2[k][j], as
    // gcc -O2 compiles it (two loads, a multiply, a read-modify-write of m3, two pointer increments,
    // compare and branch) [estimate from the loop's code].
    double instructions_per_iteration = 7;
    // How long a spin for a held per-CPU lock runs between tries [estimate].
    double spin_check_us = 1;
};

class schbench final : public workload {
public:
    schbench(const schbench_options& o, const schbench_model& m, unsigned ncpus, std::string command);
    // `schbench [options]`; ncpus is what get_nprocs() reports. Throws usage_error.
    static std::unique_ptr<schbench> from_command_line(const std::vector<std::string>& args,
                                                       const std::string& command, unsigned ncpus,
                                                       workload_params& params);

    std::string command() const override { return command_; }
    std::uint64_t tasks_needed() const override;
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override;
    std::uint64_t expected_end_ns() const override { return static_cast<std::uint64_t>(o_.runtime_s * 1e9); }
    void report(std::ostream& out) const override;
    // -j FILE: upstream's write_json_header/stats/footer, into the results directory under FILE's name.
    void write_files(const std::string& dir) const override;
    void write_json(std::ostream& out) const;

    const schbench_options& options() const { return o_; }
    const schbench_model& model() const { return m_; }
    unsigned matrix_size() const;                   // n: each matrix is n x n longs
    std::uint64_t instructions_per_request() const; // the -n multiplications

    // What the run measured, for tests and summaries.
    struct totals {
        latency_histogram wakeup, request, rps;    // as printed at the end
        std::uint64_t requests = 0;                // loop_count of all workers
        std::uint64_t lock_spins = 0;              // spin chunks run while a per-CPU lock was held
        std::uint64_t fposts = 0, futex_wakes = 0; // user-space posts; of those, FUTEX_WAKE calls made
    };
    const totals& outcome() const;

    struct run_state;

private:
    schbench_options o_;
    schbench_model m_;
    unsigned ncpus_;
    std::string command_;
    std::shared_ptr<run_state> run_;
};

} // namespace warmsched::workloads
