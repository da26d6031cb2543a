// hackbench / perf bench sched messaging: groups of `fds` senders and `fds` receivers; each receiver
// owns a socketpair (or pipe with -p); every sender writes `loops` messages of `datasize` bytes to
// every receiver of its group; each receiver reads fds * loops messages. The main task creates all
// workers (fork, or threads with -T), waits until each has written one byte to the ready pipe, takes
// the start time, releases them all at once (they poll one wake pipe; modelled as one futex broadcast),
// reaps them, and prints the elapsed time -- as rt-tests hackbench ("Time: 0.890") or as perf bench
// ("Total time: 0.890 [sec]"). User-mode work between the system calls is not modelled (it is a few
// instructions per message); everything else -- copies through the socket/pipe buffer lines, wakeups,
// switches -- runs through the simulated kernel and caches.
#pragma once

#include "workloads/workload.h"

#include <memory>

namespace warmsched::workloads {

struct messaging_options {
    bool pipes = false;      // -p: pipe() instead of socketpair()
    bool threads = false;    // -T: threads of one process instead of processes
    unsigned datasize = 100; // -s bytes per message
    unsigned loops = 100;    // -l messages per sender per receiver
    unsigned groups = 10;    // -g
    unsigned fds = 20;       // -f senders (and receivers) per group
    bool fifo = false;       // hackbench -F: the main task is SCHED_FIFO 1, and its children inherit it
};

class messaging final : public workload {
public:
    enum class style { rt_tests, perf };
    messaging(const messaging_options& o, style s, std::string command);

    // `hackbench [options]` (rt-tests) and `perf bench sched messaging [options]`; throw usage_error.
    static std::unique_ptr<messaging> from_hackbench(const std::vector<std::string>& args,
                                                     const std::string& command);
    static std::unique_ptr<messaging> from_perf(const std::vector<std::string>& args,
                                                const std::string& command);

    std::string command() const override { return command_; }
    std::uint64_t tasks_needed() const override {
        return 1 + 2ull * o_.groups * o_.fds; // the main task, a sender and a receiver per fd per group
    }
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override { return result_->done; }
    void report(std::ostream& out) const override;
    const messaging_options& options() const { return o_; }
    double seconds() const; // the measured time

    struct result {
        bool done = false;
        std::uint64_t start_ns = 0, stop_ns = 0;
        std::uint64_t messages = 0; // received in full
    };
    const result& outcome() const { return *result_; }

private:
    messaging_options o_;
    style style_;
    std::string command_;
    std::shared_ptr<result> result_ = std::make_shared<result>();
};

} // namespace warmsched::workloads
