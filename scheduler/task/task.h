// The scheduler's view of a task (the parts of task_struct and sched_entity the modelled paths read):
// identity (pid, tgid, comm), policy, nice and weight, CPU affinity, run state, the fair-class entity
// (CFS and EEVDF fields side by side; each kernel uses its own) and the per-task schedstat counters of
// /proc/<pid>/sched. What the task executes -- its program, memory and kernel objects -- belongs to the
// workload layer and hangs off `program`, opaque here. Its cgroup (group/task_groups.h) is an index;
// The task-based CFS bandwidth model marks a task on a limbo list (group/cfs_bandwidth.h).
#pragma once

#include "scheduler/fair/pelt.h"
#include "scheduler/fair/weights.h"

#include <warmsched/policy.h>

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::scheduler {

using nsec = std::uint64_t; // scheduler clock, nanoseconds since the start of the run

// SCHED_OTHER, SCHED_BATCH, SCHED_IDLE (fair class); SCHED_FIFO, SCHED_RR (RT class); SCHED_EXT (the
// loaded policy's class; the fair class when none is loaded, as in the kernel).
enum class sched_policy { normal, batch, idle, fifo, rr, ext };

inline bool rt_policy(sched_policy p) {
    return p == sched_policy::fifo || p == sched_policy::rr;
}

enum class task_state {
    running,  // TASK_RUNNING: queued or on a CPU
    sleeping, // TASK_INTERRUPTIBLE: blocked, waiting for a wakeup
    dead,     // TASK_DEAD: exited
};

// The fair class's scheduling entity (sched_entity): a task's, or a task group's on one CPU (owner null,
// my_q its group's queue there; group/group_rq.h). parent, cfs_rq and depth place it in the hierarchy: a
// null cfs_rq is the root queue of its CPU (cfs_rq_of, core/runqueue.h).
struct task;
class sched_class;
struct cfs_rq;
struct sched_entity;
// An entity's node in its queue's timeline (fair/entity_tree.h), with the subtree minima the tree keeps.
struct timeline_node {
    sched_entity* left = nullptr;
    sched_entity* right = nullptr;
    std::uint64_t priority = 0;    // treap priority, a hash of sched_entity::order
    std::int64_t min_vruntime = 0; // smallest vruntime in this subtree
    std::uint64_t min_slice = 0;   // smallest slice in this subtree
    bool linked = false;           // in a timeline now
};
struct sched_entity {
    task* owner = nullptr;                // the task this entity schedules; nullptr for a group entity
    sched_entity* parent = nullptr;       // group entity one level up on the same CPU; nullptr = root
    struct cfs_rq* cfs_rq = nullptr;      // queue it is (to be) queued on; nullptr = its CPU's rq.cfs
    struct cfs_rq* my_q = nullptr;        // group entity only: the group's queue it represents
    unsigned depth = 0;                   // 0 for entities on the root queue
    std::uint32_t runnable_weight = 0;    // group entity: my_q's h_nr_running (PELT runnable)
    std::uint32_t weight = nice_0_weight; // load.weight, scaled down (nice 0 = 1024)
    std::uint32_t inv_weight = 0;         // 2^32 / weight
    std::int64_t vruntime = 0;
    std::int64_t deadline = 0;  // EEVDF: virtual deadline
    std::int64_t vlag = 0;      // EEVDF: saved virtual lag; while running, a copy of deadline
    nsec slice = 0;             // EEVDF: requested slice (wall)
    nsec custom_slice = 0;      // EEVDF: sched_setattr(sched_runtime), 0 = none
    bool rel_deadline = false;  // EEVDF: deadline holds deadline - vruntime (left without sleeping)
    bool sched_delayed = false; // EEVDF: sleeping but still queued (DELAY_DEQUEUE)
    bool on_rq = false;
    nsec exec_start = 0;
    nsec sum_exec_runtime = 0;
    nsec prev_sum_exec_runtime = 0; // sum_exec_runtime when last picked
    sched_avg avg;                  // PELT
    std::int64_t key = 0;           // position in its cfs_rq's tree (CFS: vruntime; EEVDF: deadline)
    std::uint64_t order = 0;        // tie-break among equal keys: later insertions go right
    timeline_node run_node;         // its place in the queue's timeline
};

// The sched_ext class's part of a task (p->scx, ext/ext_class.h): what its policy sees, and where the
// class holds it -- on a dispatch queue (linked through dsq_prev/dsq_next), in the policy's custody
// (queued but on no DSQ), or with a direct dispatch from select_cpu waiting for the enqueue.
struct ext_entity {
    ext::task_info info;
    void* dsq = nullptr; // the DSQ it is on (ext_class's), or null
    task* dsq_prev = nullptr;
    task* dsq_next = nullptr;
    bool owned = false; // queued, held by the policy (between ops.enqueue and its dispatch)
    bool ddsp = false;  // select_cpu dispatched it directly: ddsp_dsq / ddsp_slice / ddsp_flags
    ext::u64 ddsp_dsq = 0, ddsp_slice = 0, ddsp_flags = 0;
    bool known = false; // the class has initialised it (init_task called)
};

// Per-task schedstat counters (/proc/<pid>/sched, /proc/<pid>/schedstat).
struct task_sched_stats {
    std::uint64_t nr_switches = 0, nr_voluntary_switches = 0, nr_involuntary_switches = 0;
    std::uint64_t nr_migrations = 0;
    std::uint64_t nr_wakeups = 0, nr_wakeups_sync = 0, nr_wakeups_local = 0, nr_wakeups_remote = 0;
    std::uint64_t nr_wakeups_migrate = 0, nr_wakeups_affine = 0, nr_wakeups_affine_attempts = 0;
    // Load balancing: why the balancer could not move it (affinity, running, cache hot), and how often it
    // moved it although it was cache hot (nr_balance_failed past cache_nice_tries, or active balance).
    std::uint64_t nr_failed_migrations_affine = 0, nr_failed_migrations_running = 0;
    std::uint64_t nr_failed_migrations_hot = 0, nr_forced_migrations = 0;
    std::uint64_t pcount = 0;         // times run on a CPU
    nsec run_delay = 0, wait_max = 0; // time runnable but waiting (wait_sum = run_delay)
    std::uint64_t wait_count = 0;
    nsec wait_start = 0;                 // when it last became runnable-waiting
    nsec sleep_start = 0, sleep_max = 0; // when it last blocked; longest block
    nsec exec_max = 0, slice_max = 0;
    nsec last_arrival = 0; // when it last became curr
};

struct task {
    int pid = 0;
    int tgid = 0;
    std::string comm;
    sched_policy policy = sched_policy::normal;
    // p->sched_class: the class that queues and picks it (core/sched_class.h), set by the scheduler from
    // the policy at fork and by setscheduler; null until the scheduler has seen the task.
    class sched_class* sched_class = nullptr;
    int nice = 0;
    int rt_priority = 0;       // SCHED_FIFO/SCHED_RR: 1..99, higher is more urgent; 0 for fair tasks
    std::vector<bool> allowed; // CPU affinity; empty = all CPUs
    task_state state = task_state::running;
    unsigned cpu = 0;       // CPU it is queued on or last ran on
    bool on_cpu = false;    // it is some CPU's curr
    bool is_idle = false;   // a CPU's idle task (pid 0)
    bool on_rq = false;     // queued (including a delayed-dequeue sleeper)
    bool migrating = false; // TASK_ON_RQ_MIGRATING: moved by the balancer between dequeue and enqueue
    unsigned cgroup = 0;    // its cgroup (group_id into the run's cgroup_tree; 0 = the root)
    // CFS bandwidth control, task-based model: on its CPU's limbo list (on_rq for the core, off the fair
    // queue; enqueued as a wakeup at unthrottle); and its pending throttle task work.
    bool throttled = false;
    bool throttle_work = false;
    // Its place in its run queue's cfs_tasks list (most recently run first), while queued in the fair class.
    task* mru_prev = nullptr;
    task* mru_next = nullptr;
    // Wakeup placement (record_wakee, wake_wide, select_idle_sibling).
    unsigned wakee_flips = 0;
    nsec wakee_flip_decay_ts = 0;
    const task* last_wakee = nullptr;
    int recent_used_cpu = -1;
    sched_entity se;
    // RT class: SCHED_RR's remaining timeslice in ticks, and whether it is in its rt_rq's priority array.
    unsigned rt_time_slice = 0;
    bool rt_on_rq = false;
    ext_entity scx;
    task_sched_stats stats;

    task() { se.owner = this; }
    task(const task&) = delete;
    task& operator=(const task&) = delete;
    void* program = nullptr; // the workload's execution state of this task

    bool allowed_on(unsigned c) const { return allowed.empty() || (c < allowed.size() && allowed[c]); }
    // The kernel's prio: 99 - rt_priority for RT tasks (0..98), 120 + nice for fair ones; lower is more
    // urgent. Sched tracepoints print it.
    int prio() const { return rt_policy(policy) ? 99 - rt_priority : 120 + nice; }
    bool is_rt() const { return rt_policy(policy); }
    void set_nice(int n) {
        nice = n;
        const bool idle = policy == sched_policy::idle;
        se.weight = idle ? sched_idle_weight : weight_of_nice(n);
        se.inv_weight = idle ? inverse_weight(sched_idle_weight) : inverse_weight_of_nice(n);
    }
};

} // namespace warmsched::scheduler
