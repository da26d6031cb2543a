// The time a policy callback may take before it counts as stuck (sched_ext's soft-lockup check,
// scx_softlockup: SCX_EXIT_ERROR_STALL). A policy is plain C++ code running in the simulator's thread;
// nothing can safely cut a callback short from outside (a signal and siglongjmp could leave a lock of
// the C library held), so a thread of this class watches the callback that is running and only sets a
// flag, which the ext class reads at every kfunc the policy calls and when the callback returns:
// - soft limit: the callback has used `cpu_budget` of CPU time, or `wall_budget` of wall-clock time
//   (one that sleeps or blocks): the flag is set. Its next kfunc ejects the policy and ends the callback
//   (an exception through the policy's frames); a callback that returns late ejects it too.
// - hard limit: twice the soft limit without returning or calling a kfunc (a loop of pure computation):
//   nothing can end the callback, so the watcher ends the process with one line on stderr naming the
//   policy, the callback, the CPU and the simulated time, and exit status 1. The run's results are not
//   written (a DIR.partial-PID is left, as by a killed run).
// CPU time, not wall time, is the main limit, so that a busy host does not eject a policy that is only
// slow to get a CPU. The watcher polls ten times per soft limit: the overhead on the simulation is two
// relaxed atomic stores per callback. Nested calls (none today) count as the outermost one.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include <pthread.h>
#include <sys/types.h>

namespace warmsched::scheduler {

class callback_budget {
public:
    static constexpr std::chrono::milliseconds default_cpu_budget{1000};
    static constexpr std::chrono::milliseconds default_wall_budget{10000};

    explicit callback_budget(std::string policy_name, std::chrono::nanoseconds cpu_budget = default_cpu_budget,
                             std::chrono::nanoseconds wall_budget = default_wall_budget);
    ~callback_budget();
    callback_budget(const callback_budget&) = delete;
    callback_budget& operator=(const callback_budget&) = delete;

    // The kernel enters callback `op` (a string literal: "dispatch") on `cpu` (-1: none) at simulated
    // time `now_ns`, and leaves it. Called from the simulator's thread only.
    void enter(const char* op, int cpu, std::uint64_t now_ns);
    void leave();
    // The callback running now has passed the soft limit.
    bool overrun() const;
    // What the soft limit is, for messages: "1 s of CPU time".
    std::string describe() const;
    // Which limit it passed ("1 s of CPU time" or "10 s of wall-clock time"), once overrun() is true.
    std::string passed() const;

private:
    void watch();
    void hard_stop(const char* which);

    const std::string policy_;
    const std::chrono::nanoseconds cpu_budget_, wall_budget_;
    int depth_ = 0;
    std::atomic<std::uint64_t> seq_{0}; // odd while a callback runs; only the simulator's thread writes it
    std::atomic<const char*> op_{""};
    std::atomic<int> cpu_{-1};
    std::atomic<std::uint64_t> now_ns_{0};
    std::atomic<std::uint64_t> overrun_seq_{0}; // the seq of the callback that passed the soft limit
    std::atomic<bool> overrun_by_wall_{false};
    pthread_t sim_thread_{};
    static constexpr int no_clock = -1; // never a thread CPU clock (their low bits are 110)
    std::atomic<int> cpu_clock_{no_clock}; // the CPU-time clock of the thread running the callbacks
    pid_t owner_pid_ = 0; // the process the watcher runs in
    bool started_ = false;
    std::mutex m_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread watcher_;
};

} // namespace warmsched::scheduler
