// The budget of a policy's callbacks; see callback_budget.h.
#include "scheduler/ext/callback_budget.h"

#include <cstdio>
#include <ctime>

#include <unistd.h>

namespace warmsched::scheduler {

namespace {
using std::chrono::nanoseconds;

std::string seconds_text(nanoseconds d) {
    char b[32];
    std::snprintf(b, sizeof b, "%g s", static_cast<double>(d.count()) / 1e9);
    return b;
}
} // namespace

callback_budget::callback_budget(std::string policy_name, nanoseconds cpu_budget, nanoseconds wall_budget)
    : policy_(std::move(policy_name)), cpu_budget_(cpu_budget), wall_budget_(wall_budget) {}

callback_budget::~callback_budget() {
    if (!started_) return;
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
    }
    cv_.notify_all();
    if (::getpid() == owner_pid_)
        watcher_.join();
    else // a forked child: the watcher is its parent's, not running here
        watcher_.detach();
}

void callback_budget::enter(const char* op, int cpu, std::uint64_t now_ns) {
    if (depth_++) return;
    // The watcher reads the CPU time of the thread running the callback (SystemC may run its processes
    // on threads of their own: the one calling now).
    const pthread_t me = ::pthread_self();
    if (!started_ || !::pthread_equal(me, sim_thread_)) {
        sim_thread_ = me;
        clockid_t c{};
        cpu_clock_.store(::pthread_getcpuclockid(me, &c) == 0 ? static_cast<int>(c) : no_clock,
                         std::memory_order_relaxed);
    }
    if (!started_) { // the first callback: the watcher starts
        started_ = true;
        owner_pid_ = ::getpid();
        watcher_ = std::thread([this] { watch(); });
    }
    op_.store(op, std::memory_order_relaxed);
    cpu_.store(cpu, std::memory_order_relaxed);
    now_ns_.store(now_ns, std::memory_order_relaxed);
    seq_.fetch_add(1, std::memory_order_release); // odd: in a callback
}

void callback_budget::leave() {
    if (--depth_) return;
    seq_.fetch_add(1, std::memory_order_release);
}

bool callback_budget::overrun() const {
    const std::uint64_t s = seq_.load(std::memory_order_relaxed);
    return (s & 1) && overrun_seq_.load(std::memory_order_acquire) == s;
}

std::string callback_budget::describe() const {
    return seconds_text(cpu_budget_) + " of CPU time (or " + seconds_text(wall_budget_) + " of wall-clock time)";
}

std::string callback_budget::passed() const {
    return overrun_by_wall_.load(std::memory_order_relaxed) ? seconds_text(wall_budget_) + " of wall-clock time"
                                                            : seconds_text(cpu_budget_) + " of CPU time";
}

void callback_budget::watch() {
    auto cpu_now = [&] {
        const int clock = cpu_clock_.load(std::memory_order_relaxed);
        timespec ts{};
        if (clock == no_clock || ::clock_gettime(static_cast<clockid_t>(clock), &ts) != 0) return nanoseconds(0);
        return nanoseconds(std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec);
    };
    const nanoseconds poll = std::max<nanoseconds>(cpu_budget_ / 10, std::chrono::milliseconds(1));
    std::uint64_t seen = 0; // the callback being timed (its seq), 0: none
    nanoseconds cpu0{0};
    std::chrono::steady_clock::time_point wall0;
    std::unique_lock<std::mutex> lock(m_);
    while (!stop_) {
        cv_.wait_for(lock, poll);
        if (stop_) break;
        const std::uint64_t s = seq_.load(std::memory_order_acquire);
        if (!(s & 1)) {
            seen = 0;
            continue;
        }
        if (s != seen) { // a callback this poll has not seen before: it has run at least since now
            seen = s;
            cpu0 = cpu_now();
            wall0 = std::chrono::steady_clock::now();
            continue;
        }
        const nanoseconds cpu_ran = cpu_now() - cpu0;
        const nanoseconds wall_ran = std::chrono::steady_clock::now() - wall0;
        if (cpu_ran >= 2 * cpu_budget_) hard_stop("CPU time");
        if (wall_ran >= 2 * wall_budget_) hard_stop("wall-clock time");
        if (overrun_seq_.load(std::memory_order_relaxed) != s && (cpu_ran >= cpu_budget_ || wall_ran >= wall_budget_)) {
            overrun_by_wall_.store(cpu_ran < cpu_budget_, std::memory_order_relaxed);
            overrun_seq_.store(s, std::memory_order_release);
        }
    }
}

void callback_budget::hard_stop(const char* which) {
    const int cpu = cpu_.load(std::memory_order_relaxed);
    const nanoseconds limit = 2 * (std::string(which) == "CPU time" ? cpu_budget_ : wall_budget_);
    char at[48];
    std::snprintf(at, sizeof at, "%.6f", static_cast<double>(now_ns_.load(std::memory_order_relaxed)) / 1e9);
    const std::string line = "error: policy " + policy_ + ": ops." + op_.load(std::memory_order_relaxed) +
                             (cpu >= 0 ? " on CPU " + std::to_string(cpu) : std::string()) + " (at " + at +
                             " simulated s) ran for " + seconds_text(limit) + " of " + which +
                             " without returning or calling a kfunc, so it cannot be ejected: warmsched "
                             "stops here (no results written)\n";
    // Only async-signal-safe calls from here: the simulator's thread is still running the policy.
    for (std::size_t done = 0; done < line.size();) {
        const ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    ::_exit(1);
}

} // namespace warmsched::scheduler
