// The state an rt-app run shares between its threads, as rt-app's process holds it: the resources the
// events name (pthread mutexes and condition variables, barriers, timers, memory buffers, fork counters),
// the start barrier, the clock references (t_zero, the start of the use case), the stop flag, and what
// each thread logs per phase. The simulated rt-app is one process: its threads share these objects.
//
// Mutexes and condition variables are user-space state plus futexes, as glibc builds them: an
// uncontended lock or unlock is an atomic on the object's line (a one-instruction store through the
// cache model, so the line moves between the CPUs that use it), and only a contended one enters the
// kernel -- the waiter sleeps in futex_wait on a word of its own, and the unlocker (signaller) wakes it
// with futex_wake. Each waiter has its own futex word so that a wakeup can never be lost, whatever order
// the CPUs' system calls reach the kernel in. A woken lock waiter retries (glibc does not hand the lock
// over), so a running thread may take the lock first. Left out: priority inheritance (pi_enabled: it only
// boosts RT waiters), adaptive spinning, and the broadcast's single futex call (each waiter is woken by
// its own futex_wake: N-1 more system call entries of `syscall` cost each).
#pragma once

#include "scheduler/group/cgroup_tree.h"
#include "workloads/kernel/memory_profile.h"
#include "workloads/kernel/program.h"
#include "workloads/rtapp/rtapp_config.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {
class sim_kernel;
struct futex_word;
} // namespace warmsched::workloads

namespace warmsched::workloads::rtapp {

// Parameters of the simulated rt-app that the JSON file does not give (experiment file keys).
struct rtapp_params {
    // Instructions of one iteration of rt-app's waste_cpu_cycles loop (12 ldexp calls). Estimate from
    // LISA's Juno r0 calibration: 138 ns per loop on a 1.1 GHz Cortex-A57 = 152 cycles, at an IPC of
    // about 1.2 on this scalar libm code.
    unsigned instructions_per_loop = 180;
    // Instructions per 64-byte line of a memset (glibc's AVX2 memset: two 32-byte stores plus loop
    // overhead per line; estimate).
    unsigned mem_instructions_per_line = 4;
    // Instructions per memrun access (a load or store, address arithmetic and the loop branch; estimate).
    unsigned memrun_instructions_per_access = 4;
};

// A thread waiting in a queue, and the futex value it sleeps on: the waker stores token + 1.
struct waiter {
    futex_word* word = nullptr;
    long token = 0;
    int thread = -1; // its index in world::threads
};

struct mutex_state {
    bool locked = false;
    int owner = -1; // thread index
    std::deque<waiter> waiters;
    memory_profile line; // the lock word: an atomic read-modify-write of one line
};

struct cond_state {
    std::deque<waiter> waiters;
    memory_profile line;
};

struct timer_state {
    bool init = false;
    scheduler::nsec next = 0;
};

// One phase iteration, as rt-app logs it (timing_point_t; times in us).
struct log_row {
    int ind = 0;
    unsigned long perf = 0, run = 0, period = 0, c_duration = 0, c_period = 0, wu_lat = 0;
    long slack = 0;
    unsigned long long start = 0, end = 0, rel_start = 0;
};

struct thread_record {
    std::string name; // "<task>-<index>" (forked: "<task>-<index>-<fork number>")
    int task = 0;
    int ind = 0;
    bool forked = false;
    int pid = 0;
    bool started = false, exited = false;
    std::vector<log_row> rows;
    // While it waits on one of rt-app's mutexes, conditions or barriers: the queue's object (one of the
    // two; set when it queues, cleared when a waker takes it off), the event it is in ("lock1", "wait"),
    // and whether it has gone to sleep in its futex wait there.
    const mutex_state* waits_mutex = nullptr;
    const cond_state* waits_cond = nullptr;
    std::string waits_in;
    bool asleep = false;
};

struct world {
    config cfg;
    rtapp_params params;
    sim_kernel* k = nullptr;
    long p_load = 1; // ns per loop
    // Per resource (index of cfg.resources); only the fields of its kind are used.
    std::vector<mutex_state> mutexes;
    std::vector<cond_state> conds;
    std::vector<timer_state> timers;  // shared timers (unique ones live in each thread)
    std::vector<int> barrier_waiting; // rt-app's counter per barrier
    std::vector<mutex_state> barrier_mutexes;
    std::vector<cond_state> barrier_conds;
    std::vector<std::uint64_t> buffers; // address of each memory buffer
    std::vector<int> forks;             // forks made per fork resource
    // mem / memrun: the memory profile of each event, by (task, phase, event).
    std::vector<std::vector<std::vector<std::unique_ptr<memory_profile>>>> event_profiles;

    // Start barrier (pthread_barrier_wait of the threads created at start).
    futex_word* start_word = nullptr;
    int start_arrived = 0;
    // The main thread joins the threads: it sleeps on its word until none is left.
    futex_word* main_word = nullptr;
    int live_threads = 0;
    bool stop = false;      // the duration has elapsed (rt-app's continue_running == 0)
    bool stop_woke = false; // the main thread has woken every condition's and barrier's waiters at the stop
    // Threads asleep in a queue of a mutex, condition or barrier; once every live thread is, and nothing
    // is left to wake one, the use case is deadlocked: `deadlock` says who waits on what (at `deadlock_at`).
    int blocked = 0;
    std::string deadlock;
    scheduler::nsec deadlock_at = 0;
    bool main_done = false; // the main thread has joined every thread
    scheduler::nsec t_start = 0, t_zero = 0;
    std::vector<thread_record> threads;
    // Per task: its taskgroup's group (0: the thread stays in rt-app's group).
    std::vector<scheduler::group_id> task_groups;
    std::vector<std::string> errors; // "<error>" lines rt-app prints at run time
};

// Creates every resource's simulated memory (lock lines, buffers) and the futex words.
void init_world(world& w, sim_kernel& k);
// The waiters of every condition and barrier, removed from their queues (rt-app's shutdown wakes them).
std::vector<waiter> take_all_waiters(world& w);

// Thread `v.thread` queues as a waiter of mutex `m` or condition `c` (the other null), in event `in`.
void add_waiter(world& w, std::deque<waiter>& q, const waiter& v, const mutex_state* m, const cond_state* c,
                std::string in);
// The first waiter of `q`, taken off it: its wakeup is on the way.
waiter take_waiter(world& w, std::deque<waiter>& q);
// Thread `ind` goes to sleep in its futex wait on the queue it joined (nothing, if a waker has taken it off
// already), then check_deadlock.
void waiter_asleep(world& w, int ind, scheduler::nsec now);
// Records the deadlock (world::deadlock) when every live thread is asleep in a queue and nothing can wake
// one: only rt-app's threads touch its mutexes, conditions and barriers, and the main thread, while it
// still sleeps the duration, will wake every condition's and barrier's waiters at the stop (but no
// mutex's). Called when a thread goes to sleep so and when one exits.
void check_deadlock(world& w, scheduler::nsec now);

} // namespace warmsched::workloads::rtapp
