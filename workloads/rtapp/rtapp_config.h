// An rt-app use case as rt-app's parser (src/rt-app_parse_config.c) reads it from its JSON file, as plain
// data: the global section, the tasks with their phases and events in file order, and the resources the
// events name (mutexes, condition variables, timers, barriers, memory buffers, fork targets), created on
// first use as rt-app creates them. Keys match by prefix as in rt-app ("run0", "run1", "sleep2" are run,
// run and sleep events), but unlike rt-app no key is ever ignored: a key rt-app does not know, a key
// given where it has no effect, or a value of the wrong type is a usage_error naming the key and its JSON
// path. SCHED_FIFO and SCHED_RR threads run in the RT class with their priority. What the simulator does
// not model yet -- the deadline class, uclamp, NUMA memory binding, changing a running thread's
// affinity, policy or task group between phases, iorun -- is parsed fully and then refused with one line
// saying so. A "taskgroup" must be a group of the experiment's cgroup hierarchy (checked when the run is
// assembled, sim/workload_entries).
#pragma once

#include "workloads/rtapp/json_reader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::workloads::rtapp {

enum class policy { other, batch, idle, fifo, rr, deadline };
const char* policy_name(policy p);

enum class event_kind {
    run,     // run N us worth of calibrated loops (scales with the CPU's speed)
    runtime, // busy-loop for N us of wall time
    sleep,   // nanosleep N us
    timer,   // sleep until the timer's next period boundary
    lock,
    unlock,
    wait,    // pthread_cond_wait(ref, mutex)
    signal,  // pthread_cond_signal
    broad,   // pthread_cond_broadcast
    sync,    // signal, then wait, on the same condition
    barrier, // rt-app's barrier: wait until every user has arrived
    suspend, // wait on the condition named like the thread until resumed
    resume,  // broadcast the condition named by the value
    mem,     // memset N bytes of the task's buffer
    memrun,  // read or write a buffer, sequentially or at random (a private or a shared one: ref)
    yield,   // sched_yield
    fork     // create a thread of the named task
};
const char* event_kind_name(event_kind k);

enum class resource_kind { mutex, cond, timer, barrier, buffer, fork };

struct resource {
    std::string name;
    resource_kind kind = resource_kind::mutex;
    int task = -1;         // unique timer: the task whose threads each have their own; fork: the target
    bool unique = false;   // timer: one per thread ("unique..." refs)
    bool absolute = false; // timer: "mode": "absolute" in any of its events
    int waiting = -1;      // barrier: rt-app's counter, -1 plus the instances of every referencing task
};

struct event {
    event_kind kind = event_kind::run;
    std::string key;           // as written, e.g. "run0"
    long long duration_us = 0; // run, runtime, sleep; timer: its period
    int res = -1;              // the resource (mutex, condition, timer, barrier, buffer, fork target)
    int dep = -1;              // wait, sync, suspend, resume: the mutex
    // mem / memrun
    std::uint64_t bytes = 0;    // mem: bytes written; memrun: the region of the buffer accessed
    std::uint64_t accesses = 0; // memrun: cache lines touched
    bool write = true;          // memrun: stores rather than loads
    bool random = false;        // memrun: uniform random lines rather than a sequential walk
};

struct phase {
    std::string name, path;
    long loop = 1; // -1: forever
    std::vector<event> events;
};

struct task {
    std::string name, path;
    int instances = 1;
    long long delay_us = 0;
    long loop = -1; // passes over the phases; -1: forever
    std::vector<phase> phases;
    policy pol = policy::other;
    int priority = 0;       // nice for SCHED_OTHER / SCHED_BATCH, sched_priority for SCHED_FIFO / SCHED_RR
    std::vector<bool> cpus; // empty: inherit rt-app's affinity
    std::string cpus_text;  // as rt-app prints it, "-" when unset
    int mem_buffer = -1;    // the task's own buffer (mem, memrun without ref), if any
    std::uint64_t custom_slice_ns = 0;     // dl-runtime on SCHED_OTHER/BATCH: v6.12's custom slice (0: none)
    std::string taskgroup, taskgroup_path; // "taskgroup" (a cgroup path) and where it was given; empty: none
};

struct global_options {
    long long duration_s = -1; // <= 0: run until the threads end
    int calib_cpu = 0;
    long long calib_ns = 0; // "calibration": N ns per loop; 0: calibrate on calib_cpu
    policy default_policy = policy::other;
    bool pi_enabled = false, lock_pages = true, gnuplot = false, cumulative_slack = false;
    std::string logdir = "./", log_basename = "rt-app";
    bool log_disabled = false;
    std::string ftrace = "none";
    std::string io_device = "/dev/null";
    std::uint64_t mem_buffer_size = 4 * 1024 * 1024;
};

struct config {
    std::string file;
    global_options global;
    std::vector<task> tasks;
    std::vector<resource> resources;
    int threads = 0; // threads created at start: the instances of every task
};

// Reads the use case from parsed JSON (`file` names it in messages). `ncpus`: CPUs of the machine, for
// "cpus" and "calibration". Throws usage_error.
config parse_config(const json& root, const std::string& file, unsigned ncpus);
config read_config(const std::string& file, unsigned ncpus);

} // namespace warmsched::workloads::rtapp
