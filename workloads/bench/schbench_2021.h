// schbench as it was before its 2023 rewrite (`schbench --release 2021`, a warmsched option):
// masoncl/schbench at ab4f089 (2021-12-03), whose loop goes back to 2016 with -C since 2020-10. Postings of
// 2017-2022 (LKML scheduler threads, mmtests' schbench config) ran this tool, and its figures differ from the
// current one's (schbench.h) because the work differs, not the scheduler:
//
//   worker                                       its message thread
//   ------                                       ------------------
//   usec_spin(-c cputime, 30 ms): busy-wait      futex = BLOCKED; wake every listed worker (wake_time = now)
//   futex = BLOCKED, wake_time = now             fwait(own futex) until a worker posts
//   add itself to the message thread's list      usec_spin(message_cputime: 30 ms)
//   fpost(message futex) -------------------->   usleep(-s sleeptime, 30 ms, + jitter up to sleeptime / 4)
//   fwait(own futex) <------------------------   (loop)
//   wakeup latency = gettimeofday - wake_time
//
// So each round is about 60-67 ms, the workers' CPUs are idle about half of it (deep enough for the
// idle governor to pick a deep C-state), and the latency is the message thread's wake loop plus the
// idle exit and the switch -- what the tables of 2022 measured. A latency of 0 us is not sampled.
// usec_spin is op::spin_until: it computes while on a CPU, waits while preempted, and ends at the
// first moment it runs past its deadline, as the gettimeofday loop does.
//
// The main thread sleeps a second at a time: after -w seconds (default 5, whatever the runtime) it zeroes
// the statistics ("warmup done, zeroing stats"), every -i seconds it prints the latencies so far, after
// -z seconds it zeroes them again, and after -r seconds it sets `stopping`, posts the message threads and
// joins them. The output is show_latencies: "Latency percentiles (usec) runtime R (s) (N total samples)",
// 50/75/90/95/99/99.5/99.9th ("* " on 99.0th), min and max.
//
// Faithful quirks: -C is parsed and has no effect (parse_options assigns message_cputime to itself);
// the jitter of the sleep comes from rand_r seeded with the thread's id (here: the run's seed). warmsched
// extension: -r takes fractional seconds. Not modelled, refused with a message: -a (auto), -j (jitter of the
// spin), -A and -R (requests per second), -p (pipe), -n and -F (the matrix mode of 2021-12). Left out:
// usleep's timer slack (the kernel's timers fire on time).
#pragma once

#include "workloads/bench/latency_histogram.h"
#include "workloads/cli/workload_params.h"
#include "workloads/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

struct schbench_2021_options {
    unsigned message_threads = 2;     // -m
    unsigned worker_threads = 16;     // -t per message thread
    double runtime_s = 30;            // -r
    unsigned sleep_usec = 30000;      // -s: the message thread's sleep per round
    unsigned message_cputime = 30000; // -C in name only: the message thread's spin per round
    unsigned cputime_usec = 30000;    // -c: the worker's spin per round
    unsigned warmup_s = 5;            // -w
    unsigned interval_s = 10;         // -i
    unsigned zero_s = 0;              // -z (0: never)
};

class schbench_2021 final : public workload {
public:
    schbench_2021(const schbench_2021_options& o, std::string command);
    // `schbench --release 2021 [options]`. Throws usage_error.
    static std::unique_ptr<schbench_2021> from_command_line(const std::vector<std::string>& args,
                                                            const std::string& command);
    // The release a schbench command line asks for: the value of a spelled-out `--release R` or
    // `--release=R` before any "--" (2024 when there is none). Throws usage_error for a release other
    // than 2021 and 2024.
    static unsigned release(const std::vector<std::string>& args);

    std::string command() const override { return command_; }
    std::uint64_t tasks_needed() const override;
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override;
    std::uint64_t expected_end_ns() const override { return static_cast<std::uint64_t>(o_.runtime_s * 1e9); }
    void report(std::ostream& out) const override;

    const schbench_2021_options& options() const { return o_; }

    // What the run measured, for tests.
    struct totals {
        latency_histogram wakeup; // as printed at the end
        std::uint64_t loops = 0;  // rounds of all workers (loop_count)
        std::uint64_t rounds = 0; // rounds of all message threads
        std::uint64_t fposts = 0, futex_wakes = 0;
    };
    const totals& outcome() const;

    struct run_state;

private:
    schbench_2021_options o_;
    std::string command_;
    std::shared_ptr<run_state> run_;
};

} // namespace warmsched::workloads
