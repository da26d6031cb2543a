// A task's program: a state machine that hands the kernel one operation at a time -- compute N
// instructions with a memory profile, or busy-wait on the clock until a time, write/read a pipe or socket,
// wait on or wake a futex, sleep (relative or until an absolute time), fork a process or thread, exec a new
// program image, wait for its children (all, or any one), submit block I/O and reap its completions, yield,
// exit. The kernel calls next() when the previous operation has completed, with what it returned.
#pragma once

#include "scheduler/task/task.h"
#include "workloads/kernel/memory_profile.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

class channel;
struct futex_word;
struct io_context;
class program;

// What a fork creates.
struct spawn_spec {
    std::string comm;
    bool thread = false; // clone(CLONE_VM): shares the parent's address space and heap
    int nice = 0;
    scheduler::sched_policy policy = scheduler::sched_policy::normal;
    int rt_priority = 0;       // SCHED_FIFO / SCHED_RR: 1..99
    std::vector<bool> allowed; // empty: inherits the parent's affinity
    scheduler::nsec custom_slice = 0;
    std::shared_ptr<program> body; // each task created from the spec runs its own clone
};

enum class op_kind {
    compute,
    write,
    read,
    futex_wait,
    futex_wake,
    sleep,
    sleep_until,
    fork,
    exec,
    wait_children,
    wait_child,
    io_submit,
    io_getevents,
    yield,
    exit
};

struct op {
    op_kind kind = op_kind::exit;
    std::uint64_t count = 0;                 // instructions, bytes, or waiters to wake
    const memory_profile* profile = nullptr; // compute
    channel* ch = nullptr;                   // write, read
    futex_word* futex = nullptr; // futex_wait (blocks while value == expected), futex_wake (stores value)
    long value = 0;
    scheduler::nsec time = 0;          // sleep: duration; sleep_until, spin_until: absolute time
    std::shared_ptr<spawn_spec> spawn; // fork; exec: the new image (its comm and body)
    io_context* io = nullptr;          // io_submit, io_getevents

    static op make(op_kind k, std::uint64_t count = 0) {
        op o;
        o.kind = k;
        o.count = count;
        return o;
    }
    static op compute(std::uint64_t instructions, const memory_profile* p) {
        op o = make(op_kind::compute, instructions);
        o.profile = p;
        return o;
    }
    // A busy-wait on the clock (a loop of gettimeofday and a pause, as schbench's usec_spin): the task
    // computes, touching no memory, while it is on a CPU, and the operation ends at the first moment it
    // runs at or after `deadline` -- time spent preempted counts, as it does for the real loop.
    static op spin_until(scheduler::nsec deadline) {
        op o = make(op_kind::compute, 1);
        o.time = deadline;
        return o;
    }
    static op write(channel& c, std::uint64_t bytes) {
        op o = make(op_kind::write, bytes);
        o.ch = &c;
        return o;
    }
    static op read(channel& c, std::uint64_t bytes) {
        op o = make(op_kind::read, bytes);
        o.ch = &c;
        return o;
    }
    static op futex_wait(futex_word& f, long expected) {
        op o = make(op_kind::futex_wait);
        o.futex = &f;
        o.value = expected;
        return o;
    }
    static op futex_wake(futex_word& f, long new_value, std::uint64_t waiters) {
        op o = make(op_kind::futex_wake, waiters);
        o.futex = &f;
        o.value = new_value;
        return o;
    }
    static op sleep(scheduler::nsec d) {
        op o = make(op_kind::sleep);
        o.time = d;
        return o;
    }
    static op sleep_until(scheduler::nsec t) {
        op o = make(op_kind::sleep_until);
        o.time = t;
        return o;
    }
    static op fork(std::shared_ptr<spawn_spec> s) {
        op o = make(op_kind::fork);
        o.spawn = std::move(s);
        return o;
    }
    // execve(): the task drops its address space and runs `image` (comm, body) from the start; exec
    // balancing may move it first (sched_exec).
    static op exec(std::shared_ptr<spawn_spec> image) {
        op o = make(op_kind::exec);
        o.spawn = std::move(image);
        return o;
    }
    static op wait_children() { return make(op_kind::wait_children); }
    // wait(): reaps one exited child, blocking until one exits; returns its pid (0: no children).
    static op wait_child() { return make(op_kind::wait_child); }
    // io_submit() of `n` requests of `io` (libaio), returning n; with `wait` one request is submitted and
    // the task sleeps until it completes (pread/pwrite with O_DIRECT), returning its bytes.
    static op io_submit(io_context& io, std::uint64_t n, bool wait = false) {
        op o = make(op_kind::io_submit, n);
        o.io = &io;
        o.value = wait ? 1 : 0;
        return o;
    }
    // io_getevents(min_nr, nr): sleeps until `min_nr` completions are ready (or none are in flight),
    // reaps up to `nr` into io.reaped and returns how many.
    static op io_getevents(io_context& io, std::uint64_t min_nr, std::uint64_t nr) {
        op o = make(op_kind::io_getevents, nr);
        o.io = &io;
        o.value = static_cast<long>(min_nr);
        return o;
    }
    static op yield() { return make(op_kind::yield); }
    static op exit() { return make(op_kind::exit); }
};

struct program_context {
    scheduler::nsec now = 0;  // local time of the CPU running the task
    std::uint64_t result = 0; // what the previous operation returned (bytes read, child pid)
    int pid = 0;
};

class program {
public:
    virtual ~program() = default;
    virtual op next(program_context& ctx) = 0;
    // A new task gets its own copy of the program it is created with, as fork copies memory: one
    // spawn_spec can be forked many times.
    virtual std::shared_ptr<program> clone() const = 0;
};

// clone() for a program class that can be copied.
template <class Derived> class copyable_program : public program {
public:
    std::shared_ptr<program> clone() const override {
        return std::make_shared<Derived>(static_cast<const Derived&>(*this));
    }
};

} // namespace warmsched::workloads
