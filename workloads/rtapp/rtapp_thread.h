// One rt-app thread (rt-app.c's thread_body): it waits at the start barrier with the other threads
// created at start, sleeps its initial delay, then runs its phases' events in file order -- each phase
// `loop` times, the whole sequence the task's `loop` times -- logging every phase iteration as rt-app
// does (perf, run, period, start, end, rel_st, slack, c_duration, c_period, wu_lat). When the use case's
// duration has elapsed it stops before its next event, finishing only the unlocks of locks it holds.
//
//   run N      compute of floor(N*1000/pLoad) calibrated loops (instructions_per_loop each): N us on the
//              core pLoad was calibrated on when it runs alone; longer when the SMT sibling is busy
//   runtime N  32 us chunks of the same work until N us of wall time have passed since the event began
//   timer      sleep until the timer's next expiry: t_first + k x period (shared timers advance once per
//              use by any thread; "unique..." refs are per thread); a late thread does not sleep, and
//              a relative timer then restarts its grid from now
//   mem / memrun  compute whose accesses walk the task's buffer or a shared (ref) buffer
//   lock, unlock, wait, signal, broad, sync, barrier, suspend, resume: rtapp_runtime.h's primitives
//   yield, fork, sleep: the system calls
#pragma once

#include "workloads/kernel/program.h"
#include "workloads/rtapp/rtapp_runtime.h"

#include <deque>
#include <memory>

namespace warmsched::workloads::rtapp {

class rtapp_thread final : public copyable_program<rtapp_thread> {
public:
    // `ind`: the thread's index (its record in the world); `forked`: created by a fork event (it does not
    // wait at the start barrier, and its timers start from t_zero).
    rtapp_thread(std::shared_ptr<world> w, int ind, bool forked);
    op next(program_context& ctx) override;

    // The spawn spec of thread `ind` (its name, policy, nice, affinity).
    static std::shared_ptr<spawn_spec> spec(const std::shared_ptr<world>& w, int ind, bool forked);

private:
    // A step of an event that may need the kernel: it queues operations in the outbox and continues at
    // its next step once they have completed.
    struct micro {
        enum kind {
            lock,
            unlock,
            cond_wait,
            wait_word,
            signal,
            broadcast,
            barrier_check,
            barrier_leave,
            start_barrier,
            run,
            runtime,
            timer,
            fork
        } what;
        mutex_state* m = nullptr;
        cond_state* c = nullptr;
        int res = -1;
        long long value = 0; // duration, token, or the timer's expiry
        int step = 0;
        scheduler::nsec t0 = 0;
    };
    enum class stage { init, delay, phase_begin, events, exiting, done };

    futex_word& word();
    std::string event_key() const; // the key of the event it is in ("lock1")
    bool step_micro(micro& m, const program_context& ctx); // true when finished
    void expand(const event& e);
    void end_phase(scheduler::nsec now);
    timer_state& timer(int res);

    std::shared_ptr<world> w_;
    int ind_, task_;
    bool forked_;
    futex_word* word_ = nullptr;
    std::deque<op> outbox_;
    std::deque<micro> micros_;
    stage stage_ = stage::init;
    std::size_t phase_ = 0, event_ = 0;
    long phase_loop_ = 0, thread_loop_ = 0;
    int locks_ = 0; // locks taken minus released in this phase iteration (rt-app's `lock`)
    scheduler::nsec t_first_ = 0, t_phase_ = 0;
    log_row row_;
    std::vector<timer_state> unique_timers_;
};

} // namespace warmsched::workloads::rtapp
