// warmsched's policy plug-in API: a scheduling policy of your own, loaded at run time into the simulated
// kernel's class list where sched_ext sits (below fair, above idle), as a scx BPF scheduler is. This is
// the only header a policy includes; it depends on nothing else of warmsched. Build and run:
//
//   g++ -std=c++17 -O2 -shared -fPIC -I WARMSCHED/include my_policy.cpp -o my_policy.so
//   warmsched run --policy ./my_policy.so --policy-all -- hackbench -p -g 4 -l 100
//
// The model follows sched_ext of Linux v6.12 (kernel/sched/ext.c). Tasks of the policy are SCHED_EXT;
// with --policy-all (scx's default without SCX_OPS_SWITCH_PARTIAL) every fair task is. The kernel calls
// the policy's callbacks (class `policy` below, the struct sched_ext_ops); the policy calls back into the
// kernel through `kernel` (the scx_bpf_* kfuncs). Tasks run from dispatch queues (DSQs): each CPU has a
// local DSQ it runs from, there is one global DSQ, and the policy may create its own FIFO DSQs. A task
// the policy neither dispatches nor keeps is lost: the watchdog then ejects the policy, as the kernel's
// scx watchdog does, and so does any error of the policy (an invalid CPU or DSQ, a task dispatched twice,
// an exception out of a callback, error(), a callback that does not return): its tasks go on under the
// fair class, the run goes on to its end and its results say why and when (docs/writing-a-policy.md).
//
// Everything is in nanoseconds of simulated time and CPU numbers of the simulated machine. Callbacks run
// inside the scheduler: a policy must not block, and all its state is its own (the run is deterministic
// if the policy is).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::ext {

// The version of this interface; a policy built against another one is refused at load time.
constexpr unsigned api_version = 1;

using u64 = std::uint64_t;

// Dispatch queue ids (SCX_DSQ_*). A policy's own DSQs take ids below dsq_builtin.
constexpr u64 dsq_builtin = 1ull << 63;
constexpr u64 dsq_global = dsq_builtin | 1;          // SCX_DSQ_GLOBAL: any CPU may run from it
constexpr u64 dsq_local = dsq_builtin | 2;           // SCX_DSQ_LOCAL: the local DSQ of the CPU at hand
constexpr u64 dsq_local_on = dsq_builtin | (1ull << 62); // | cpu: SCX_DSQ_LOCAL_ON, a given CPU's local DSQ

// Slices (SCX_SLICE_*): the default a task gets, and "until it blocks or is preempted".
constexpr u64 slice_dfl = 20'000'000;
constexpr u64 slice_inf = ~0ull;

// Flags of enqueue (SCX_ENQ_*), select_cpu (SCX_WAKE_*) and kick_cpu (SCX_KICK_*).
constexpr u64 enq_wakeup = 1;     // the task was woken
constexpr u64 enq_head = 1 << 4;  // dispatch: to the head of the DSQ instead of its tail
constexpr u64 enq_preempt = 1 << 5; // dispatch to a local DSQ: preempt the task running there
constexpr u64 wake_fork = 0x04;   // select_cpu for a new task
constexpr u64 wake_ttwu = 0x08;   // select_cpu for a wakeup
constexpr u64 wake_sync = 0x10;   // the waker is about to sleep
constexpr u64 kick_idle = 1;      // kick_cpu: only if the CPU is idle
constexpr u64 kick_preempt = 2;   // kick_cpu: preempt the running task

// What a policy sees of a task (task_struct and p->scx). The kernel updates the statistics before each
// callback; `slice` is the policy's to set (through dispatch) and counts down while the task runs.
struct task_info {
    int pid = 0, tgid = 0;
    const char* comm = ""; // the command name, as /proc/PID/comm
    int nice = 0;
    unsigned weight = 100; // p->scx.weight: 100 at nice 0, scaled as the fair class's weights (1..10000)
    unsigned cpu = 0;      // the CPU it runs on, is queued on, or last ran on
    u64 slice = 0;         // time left of its current slice
    u64 sum_exec_runtime = 0;   // CPU time so far
    u64 run_delay = 0;          // time spent runnable but waiting, so far
    u64 nr_switches = 0, nr_migrations = 0, nr_wakeups = 0;
    u64 runnable_at = 0;        // when it last became runnable (the watchdog's clock)
    u64 data[4] = {0, 0, 0, 0}; // the policy's own per-task state (zeroed when the task is created)
    void* kernel_private = nullptr; // the kernel's task: do not touch
};

// The machine, as the kernel knows it (sched domains, /sys/devices/system/cpu).
struct topology {
    unsigned nr_cpus = 0, nr_llcs = 0, nr_nodes = 0;
    std::vector<unsigned> llc_of, node_of, core_of; // by CPU: its LLC (index 0..nr_llcs-1), node, core
    std::vector<std::vector<unsigned>> llc_cpus;    // by LLC: its CPUs
    std::vector<std::vector<unsigned>> smt_siblings; // by CPU: the CPUs sharing its core (itself included)
    std::vector<std::vector<unsigned>> distance;     // node x node: the NUMA distance (10 = local)
};

// The kfuncs: what the policy may ask of the kernel. Valid from init() until the run ends.
class kernel {
public:
    virtual ~kernel() = default;
    virtual u64 now() const = 0; // the simulated time, ns
    virtual const struct topology& topology() const = 0;

    // scx_bpf_create_dsq: a FIFO DSQ of the policy's own (id < dsq_builtin; in init()).
    virtual void create_dsq(u64 id) = 0;
    // scx_bpf_dsq_insert: puts p, which the kernel handed to enqueue() or which the policy kept since,
    // on DSQ `dsq` with a slice of `slice` (0: keep its slice). From enqueue(), select_cpu() and
    // dispatch(); a task goes on one DSQ once per enqueue.
    virtual void dispatch(task_info& p, u64 dsq, u64 slice, u64 enq_flags = 0) = 0;
    // scx_bpf_dsq_move_to_local: in dispatch(), moves the first task of DSQ `dsq` that may run on the
    // dispatching CPU to its local DSQ. Returns false if there was none.
    virtual bool move_to_local(u64 dsq) = 0;
    // scx_bpf_dsq_nr_queued.
    virtual unsigned dsq_nr_queued(u64 dsq) const = 0;
    // scx_bpf_kick_cpu: makes `cpu` enter the scheduler (kick_idle: only if idle; kick_preempt: even if
    // it runs a task whose slice is not over).
    virtual void kick_cpu(unsigned cpu, u64 flags = 0) = 0;
    // The idle-CPU tracking of scx (scx_bpf_test_and_clear_cpu_idle, scx_bpf_pick_idle_cpu): an idle
    // CPU claimed here is not claimed again until it next goes idle. pick_idle_cpu looks among `cpus`
    // (empty: all CPUs) for one p may run on; -1 if none.
    virtual bool test_and_clear_cpu_idle(unsigned cpu) = 0;
    virtual int pick_idle_cpu(const task_info& p, const std::vector<unsigned>& cpus) = 0;
    // scx_bpf_select_cpu_dfl: the default wakeup placement -- prev_cpu if idle, else an idle CPU of
    // prev_cpu's LLC, else any idle CPU p may run on, else prev_cpu. *is_idle says an idle CPU was found.
    virtual unsigned select_cpu_dfl(task_info& p, unsigned prev_cpu, u64 wake_flags, bool* is_idle) = 0;
    // p's affinity (p->cpus_ptr).
    virtual bool task_allowed_on(const task_info& p, unsigned cpu) const = 0;
    // scx_bpf_error: ejects the policy with `message` (SCX_EXIT_ERROR_BPF); the callback ends here.
    virtual void error(const std::string& message) = 0;
};

// The callbacks (struct sched_ext_ops). Each has the default sched_ext gives it when a policy leaves it
// out. `k()` is the kernel, set before init().
class policy {
public:
    virtual ~policy() = default;
    // The policy's name, as errors and reports print it: 1 to 127 letters, digits, '_' or '.' (sched_ext's
    // ops.name); read once, when the policy is loaded.
    virtual const char* name() const = 0;
    // ops.init: once, before any task; create DSQs here.
    virtual void init() {}
    // ops.select_cpu: the CPU a waking (wake_ttwu) or new (wake_fork) task goes to. It may dispatch p
    // directly (e.g. to dsq_local when the CPU is idle); then enqueue() is skipped. Default: the kernel's
    // select_cpu_dfl, dispatching to the local DSQ if the CPU found is idle.
    virtual unsigned select_cpu(task_info& p, unsigned prev_cpu, u64 wake_flags) {
        bool idle = false;
        const unsigned cpu = k().select_cpu_dfl(p, prev_cpu, wake_flags, &idle);
        if (idle) k().dispatch(p, dsq_local, slice_dfl);
        return cpu;
    }
    // ops.enqueue: p became runnable (woken: enq_wakeup), or ran out of its slice. Dispatch it now or
    // keep it and dispatch it later from dispatch(). Default: the global DSQ.
    virtual void enqueue(task_info& p, u64 enq_flags) {
        (void)enq_flags;
        k().dispatch(p, dsq_global, slice_dfl);
    }
    // ops.dequeue: p, which the policy kept (not yet dispatched), leaves (it exits or changes class).
    virtual void dequeue(task_info& p, u64 deq_flags) { (void)p, (void)deq_flags; }
    // ops.dispatch: `cpu`'s local and the global DSQ are empty; move tasks there (dispatch to dsq_local,
    // move_to_local). `prev` is the task that ran on `cpu` if it is still runnable, else nullptr.
    virtual void dispatch(unsigned cpu, task_info* prev) { (void)cpu, (void)prev; }
    // ops.runnable / running / stopping / quiescent: p became runnable, starts running on its CPU, stops
    // running (runnable: it stays runnable), stops being runnable (it sleeps or exits).
    virtual void runnable(task_info& p, u64 enq_flags) { (void)p, (void)enq_flags; }
    virtual void running(task_info& p) { (void)p; }
    virtual void stopping(task_info& p, bool runnable) { (void)p, (void)runnable; }
    virtual void quiescent(task_info& p, u64 deq_flags) { (void)p, (void)deq_flags; }
    // ops.tick: the periodic tick while p runs (its slice has been charged; set p.slice = 0 to end it).
    virtual void tick(task_info& p) { (void)p; }
    // ops.init_task / exit_task: p joins the policy (created, or moved in) / leaves it.
    virtual void init_task(task_info& p) { (void)p; }
    virtual void exit_task(task_info& p) { (void)p; }

    // Set by the kernel before init().
    void bind(kernel& k) { kernel_ = &k; }

protected:
    kernel& k() const { return *kernel_; }

private:
    kernel* kernel_ = nullptr;
};

} // namespace warmsched::ext

// Makes the policy class `cls` loadable: `WARMSCHED_POLICY(my_policy)` once in the policy's .cpp file.
#define WARMSCHED_POLICY(cls)                                                                              \
    extern "C" unsigned warmsched_policy_api_version() { return ::warmsched::ext::api_version; }           \
    extern "C" ::warmsched::ext::policy* warmsched_policy_create() { return new cls(); }                   \
    extern "C" void warmsched_policy_destroy(::warmsched::ext::policy* p) { delete p; }
