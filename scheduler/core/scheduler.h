// The core scheduler (kernel/sched/core.c): per-CPU run queues, the ordered list of scheduling classes
// (dl -- the fair server's slot --, rt, fair, then idle), a class per task (task::sched_class, set by
// setscheduler and at fork), one generic pick loop over the list, and the entry points the simulated kernel calls -- fork (sched_fork,
// wake_up_new_task), exec (sched_exec), try_to_wake_up, schedule, the periodic tick, sched_yield, nice. It is
// plain C++ without SystemC: time comes in as nanoseconds with every call, and when a CPU other than the
// calling one must reschedule, the scheduler tells the kernel through `scheduler_hooks` (which models the
// IPI).
//
// Load balancing runs in the fair class (fair/load_balance, fair/balance_triggers) from three places
// here: schedule() (newidle, through the class's balance op, and the stopper of an active balance),
// scheduler_tick (periodic balance and the NOHZ kick) and nohz_idle_balance (the kicked CPU's IPI).
// cgroups: set_cgroups gives the run's cgroup v2 tree (group/task_groups.h); tasks are put in groups
// with attach_task (cgroup.procs) and children inherit their parent's; cpu_stat reports a group's
// cpu.stat. Not modelled: the stop class (the stopper's work is done in place, run_stopper) and
// SCHED_DEADLINE tasks (dl/dl_class.h holds only the fair server).
//
// What the core needs of the fair and RT classes beyond the ops table -- the tick's balance trigger, the
// NOHZ and stopper work, idle tracking for wakeup placement, cgroups -- it calls on their own types by
// name (fair_class, rt_class), as core.c calls fair.c's exported functions; it never casts a class.
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_class.h"
#include "scheduler/core/sched_features.h"
#include "scheduler/core/sched_tracepoints.h"
#include "scheduler/dl/fair_server.h"
#include "scheduler/ext/ext_exit_info.h"
#include "scheduler/fair/fair_tunables.h"
#include "scheduler/group/cfs_bandwidth.h"
#include "scheduler/group/cgroup_tree.h"
#include "scheduler/group/task_groups.h"
#include "scheduler/rt/rt_tunables.h"
#include "scheduler/topology/cpu_layout.h"
#include "scheduler/topology/sched_domain_tree.h"

#include <memory>
#include <vector>

namespace warmsched::scheduler {

class dl_class;
class ext_class;
class fair_class;
class idle_class;
class rt_class;

// A policy loaded into the ext class (ext/ext_class.h, include/warmsched/policy.h).
struct ext_config {
    std::shared_ptr<ext::policy> policy; // null: no policy loaded (SCHED_EXT tasks are then fair)
    bool switch_all = false;             // every fair task is SCHED_EXT (scx without SWITCH_PARTIAL)
    nsec watchdog_timeout = 30'000'000'000; // a runnable task not run for this long stops the policy
};

struct sched_config {
    kernel_version kernel = kernel_version::eevdf_v6_12;
    sched_features features{kernel_version::eevdf_v6_12};
    fair_tunables tunables;
    rt_tunables rt; // sched_rt_period_us, sched_rt_runtime_us, sched_rr_timeslice_ms
    unsigned hz = 250;
    bool child_runs_first = false; // kernel.sched_child_runs_first (v5.15)
    // CONFIG_PREEMPTION (PREEMPT_DYNAMIC builds, the x86 distribution default): a newidle balance stops
    // after pulling one task.
    bool preemptible = true;
    nsec tick_ns() const { return 1'000'000'000ull / hz; }
    // Where the tick falls in the run: ticks come at tick_phase_ns + n * tick_ns() (a run starts at some
    // point of the tick period, as a measurement on a real machine does); jiffies counts them.
    nsec tick_phase_ns = 0;
    // How long the machine has been up when the run starts, in whole seconds (kernel.uptime). jiffies
    // count from boot, and the balancing state starts as the kernel leaves it at boot: every domain's
    // last_balance and every run queue's next_balance at jiffy 0 (build_sched_domains, sched_init). A
    // machine up longer than its longest balance interval (2 x CPUs ms, x busy_factor while busy)
    // therefore balances every level as soon as load appears, as the machines benchmarks run on do;
    // uptime 0 is a run that starts at boot, whose top levels first balance one interval in.
    unsigned uptime_s = 300;
    nsec jiffies(nsec now) const {
        return nsec{uptime_s} * hz + (now + (tick_ns() - tick_phase_ns) % tick_ns()) / tick_ns();
    }
    ext_config ext;
    // A kernel's defaults on a machine with `ncpus` online CPUs.
    static sched_config defaults(kernel_version k, unsigned ncpus) {
        sched_config c;
        c.kernel = k;
        c.features = sched_features(k);
        c.tunables = fair_tunables::defaults(ncpus);
        return c;
    }
};

// Why a task changed CPU (the cost-of-migration report classifies migrations by it).
enum class migration_cause {
    wakeup,           // select_task_rq at try_to_wake_up
    fork,             // fork balancing: the child starts on another CPU than its parent
    exec,             // exec balancing
    periodic_balance, // load_balance from the tick
    newidle_balance,  // load_balance of a CPU about to go idle
    nohz_balance,     // load_balance on behalf of idle CPUs
    active_balance,   // the stopper pushed a running task
    rt_push,          // push_rt_task: a queued RT task moved to a CPU running lower-priority work
    rt_pull,          // pull_rt_task: a CPU whose RT priority dropped took a waiting RT task
    ext_dispatch,     // a loaded policy dispatched a queued task to another CPU's local DSQ
};
const char* to_string(migration_cause c);

// How the scheduler reaches the rest of the simulated kernel.
class scheduler_hooks {
public:
    virtual ~scheduler_hooks() = default;
    // `cpu` got NEED_RESCHED set by code running on another CPU: it must be interrupted (IPI) or woken.
    virtual void kick_cpu(unsigned cpu) = 0;
    // `p` moved from CPU `from` to CPU `to` (already set in p.cpu).
    virtual void task_migrated(const task& p, unsigned from, unsigned to, migration_cause why) {
        (void)p, (void)from, (void)to, (void)why;
    }
    // An hrtimer of the scheduler (CFS bandwidth period and slack timers) is due at `expiry` on `cpu`:
    // interrupt that CPU then and call scheduler::sched_timer. Without it, due timers run at ticks.
    virtual void arm_sched_timer(unsigned cpu, nsec expiry) { (void)cpu, (void)expiry; }
    // The loaded policy had an error (its watchdog, an invalid CPU, scx_bpf_error...): call
    // scheduler::disable_policy on `cpu` soon, from an interrupt (sched_ext queues its disable work to
    // a kthread). Without it, the next tick of any CPU runs it.
    virtual void queue_policy_disable(unsigned cpu) { (void)cpu; }
};

// What try_to_wake_up did.
struct wakeup_result {
    bool woken = false;         // false: the task was already running/runnable
    unsigned cpu = 0;           // where it is queued
    bool queued = false;        // it was still queued (delayed dequeue): no placement happened
    bool migrated = false;      // placed on a CPU other than its previous one
    bool via_wake_list = false; // TTWU_QUEUE: queued through the target's wake list and an IPI
    const std::vector<unsigned>* probed = nullptr; // CPUs whose run queues placement looked at
};

class scheduler {
public:
    // The machine's topology and NUMA distance table give the CPU layout and the sched-domain tree.
    scheduler(const platform::topology& topo, const std::vector<std::vector<unsigned>>& numa_distances,
              const sched_config& cfg, scheduler_hooks& hooks);
    ~scheduler();

    const sched_config& config() const { return cfg_; }
    const cpu_layout& layout() const { return layout_; }
    sched_domain_tree& domains() { return domains_; }
    const sched_domain_tree& domains() const { return domains_; }
    unsigned num_cpus() const { return static_cast<unsigned>(rqs_.size()); }
    runqueue& rq(unsigned cpu) { return rqs_[cpu]; }
    const runqueue& rq(unsigned cpu) const { return rqs_[cpu]; }
    fair_class& fair() { return *fair_; }
    const fair_class& fair() const { return *fair_; }
    // An observer of the scheduler's tracepoints (nullptr: none, the default).
    void set_tracepoints(sched_tracepoints* t) { trace_ = t; }
    rt_class& rt() { return *rt_; }
    const rt_class& rt() const { return *rt_; }
    // The classes in order, highest first (dl, rt, fair, ext if a policy is loaded, idle).
    const std::vector<sched_class*>& classes() const { return classes_; }
    // The ext class of the loaded policy (nullptr: none loaded).
    const ext_class* ext() const { return ext_.get(); }
    // Why the loaded policy was stopped, and when its tasks went to the fair class (kind none while it
    // runs well, or without a policy).
    const ext_exit_info& policy_exit() const { return policy_exit_; }
    // The ext class reports the policy's first error (scx_ops_error_kind); the disable work is queued.
    void policy_failed(const ext_exit_info& info);
    // The disable work (scx_ops_disable_workfn), on `cpu` at `now`: every task of the failed policy goes
    // to the class its policy has without sched_ext (the fair class; RT tasks are never the policy's),
    // as sched_setscheduler would move it, and the ext class takes no more tasks. Nothing if the policy
    // has not failed or was ejected already.
    void disable_policy(unsigned cpu, nsec now);
    // A policy is loaded and still in charge of its tasks (not ejected).
    bool ext_enabled() const { return ext_ && !policy_exit_.ejected; }
    // A queued task changes CPU without leaving its class's queues (the ext class's dispatch to another
    // CPU's local DSQ; the class moves its counts): counted, traced and reported as a migration.
    void migrate_queued_task(task& p, unsigned cpu, migration_cause why) { set_task_cpu(p, cpu, why); }
    // The v6.12 fair server (EEVDF mode only; nullptr under CFS).
    const fair_server* fair_srv() const { return fair_server_.get(); }

    // The idle task of `cpu`; it is curr until something runs.
    void init_idle(task& idle, unsigned cpu);
    // A task that exists before the run starts (not forked), queued on `cpu`.
    void add_initial_task(task& p, unsigned cpu, nsec now);
    // fork(): `child` is a copy of the current task of `this_cpu`; prepares its entity (sched_fork). It
    // joins its parent's cgroup, or `into_cgroup` when one is given (clone3's CLONE_INTO_CGROUP).
    void sched_fork(task& child, unsigned this_cpu, nsec now, int into_cgroup = -1);
    // Makes the child runnable on the CPU fork balancing picks; returns that CPU.
    unsigned wake_up_new_task(task& child, unsigned this_cpu, nsec now);
    // execve() by the current task of `cpu` (sched_exec): exec balancing picks a CPU (select_task_rq with
    // WF_EXEC: find_idlest_group/cpu down the domains with SD_BALANCE_EXEC). If it is another CPU, the
    // stopper of `cpu` moves the task there in the CPU's next schedule() (migration_cpu_stop on a queued
    // task: one switch to the stopper and one migration, charged like an active balance's); `cpu` gets
    // NEED_RESCHED. Returns the chosen CPU.
    unsigned sched_exec(unsigned cpu, nsec now);
    // Wakes a sleeping task from code running on `this_cpu`.
    wakeup_result try_to_wake_up(task& p, unsigned this_cpu, unsigned wake_flags, nsec now);
    // schedule() on `cpu`. The current task, if its state is no longer running, is dequeued (it
    // blocked or exited); `preempt` says it was preempted (involuntary). Returns the new curr.
    task& schedule(unsigned cpu, bool preempt, nsec now);
    // The RT period hrtimer: its next expiry if `cpu`'s RT run queue is throttled with RT tasks queued, else
    // 0 -- the kernel's timer fires then even if every CPU idles (no tick runs the period's work);
    // rt_period_timer runs it on `cpu` at `now`.
    nsec rt_period_expiry(unsigned cpu) const;
    void rt_period_timer(unsigned cpu, nsec now);
    // The periodic tick on `cpu` (with the balancing it triggers).
    void scheduler_tick(unsigned cpu, nsec now);
    // An idle CPU the NOHZ balancer kicked takes the IPI (nohz_csd_func): it balances on behalf of the
    // idle CPUs whose balance is due. nohz_kick_pending says whether the IPI carries that work.
    bool nohz_kick_pending(unsigned cpu) const { return rqs_[cpu].nohz_idle_balance != 0; }
    void nohz_idle_balance(unsigned cpu, nsec now);
    // What the balancer did on `cpu` since the last call, for the kernel to charge as that CPU's time:
    // the passes' cost, the tasks it moved (each costs `migrate`) and the stopper's context switches.
    struct balance_work {
        nsec cost_ns = 0;
        unsigned migrations = 0, switches = 0;
    };
    balance_work take_balance_work(unsigned cpu);
    // `time` the CPU spent in interrupt and softirq work (the balancer's): with IRQ_TIME_ACCOUNTING, as
    // x86 distribution kernels build, it is not charged to the task it interrupted.
    void account_irq_time(unsigned cpu, nsec time);
    // Test hook: RT/IRQ work takes `lost` of cpu's capacity (1024), as scale_rt_capacity would see it.
    void set_capacity_pressure(unsigned cpu, unsigned long lost);
    // sched_yield() by the current task of `cpu` (the caller then calls schedule()).
    void yield(unsigned cpu, nsec now);

    bool need_resched(unsigned cpu) const { return rqs_[cpu].need_resched; }
    // The CPU whose code runs the current entry point (the waker, for wakeup placement).
    int calling_cpu() const { return calling_cpu_; }
    // Tests that call the balancer directly say which CPU's code runs it.
    void set_calling_cpu(unsigned cpu) { calling_cpu_ = static_cast<int>(cpu); }
    // Scratch list of the CPUs wakeup placement probed during the current try_to_wake_up.
    std::vector<unsigned>& probed() { return probed_; }
    // The run queues of other CPUs the RT class read during the current try_to_wake_up or schedule (its
    // placement scans, a pull's walk over the overloaded CPUs, push targets), for the kernel to read
    // through the caches; emptied when either entry point starts.
    const std::vector<unsigned>& rt_rq_reads() const { return rt_rq_reads_; }
    void rt_rq_read(unsigned cpu) {
        rt_rq_reads_.push_back(cpu);
        ++rt_rq_reads_total_;
    }
    std::uint64_t rt_rq_reads_total() const { return rt_rq_reads_total_; }
    // The time the waker of the last wakeup spent probing other CPUs (SIS_PROP's scan cost).
    void account_wakeup_scan(unsigned this_cpu, nsec time);
    // Sets NEED_RESCHED on rq's CPU; kicks it if it is not the CPU running the current call.
    void resched_curr(runqueue& rq);
    // Brings rq's clock to `now` (never backwards).
    void update_rq_clock(runqueue& rq, nsec now);
    // p's class (task::sched_class; for a task the scheduler has not seen yet, the class of its policy).
    sched_class& class_of(const task& p) const;
    // The order of p's class: a task of a higher class preempts one of a lower class at once.
    int class_rank(const task& p) const;
    // Is a task of a class above `c` runnable on rq? (A class's balance then has nothing to pull.)
    bool runnable_above(const runqueue& rq, const sched_class& c) const;
    // p is of the fair class (its entity is on, or belongs to, a fair queue).
    bool is_fair(const task& p) const;
    // The class a task of `policy` belongs to (__setscheduler_prio / __normal_prio).
    sched_class& class_for(sched_policy policy) const;
    // sched_setscheduler() on p from code running on `this_cpu` (__sched_setscheduler): p takes `policy`
    // with `rt_priority` (1..99 for SCHED_FIFO/SCHED_RR, else 0) and `nice`. A queued p leaves its queue
    // and comes back on its new class's (DEQUEUE_SAVE / ENQUEUE_RESTORE, keeping its place); a running p
    // is put and set again; then the classes hear of it: switched_from/switched_to on a class change,
    // prio_changed otherwise (the RT class pulls or reschedules there).
    void setscheduler(task& p, sched_policy policy, int rt_priority, int nice, unsigned this_cpu, nsec now);

    // For the balancer: detach_task (deactivate a queued, not running task and set its CPU) and
    // attach_task (activate it there, with a preemption check); an IPI to `cpu` that carries no resched
    // (the NOHZ kick); the root domain's overload flag (some CPU has had two or more tasks).
    void detach_task(task& p, unsigned dst_cpu, migration_cause why);
    void attach_task(task& p);
    void send_ipi(unsigned cpu) { hooks_.kick_cpu(cpu); }
    bool rd_overloaded() const { return rd_overloaded_; }
    void set_rd_overloaded(bool v) { rd_overloaded_ = v; }

    // cgroups (cpu controller, v2). set_cgroups: the run's hierarchy, before any task exists (the
    // experiment reader validates it). attach_task: writes p's pid to the group's cgroup.procs (a queued
    // or running task moves too). task_group_of: p's group (a forked child inherits its parent's).
    // cpu_stat: the group's cpu.stat at `now` (usage is hierarchical, as in cgroup v2).
    void set_cgroups(const cgroup_tree& tree);
    void attach_task(task& p, group_id g, nsec now);
    group_id task_group_of(const task& p) const { return p.cgroup; }
    cgroup_cpu_stat cpu_stat(group_id g, nsec now) const;
    const task_groups& groups() const { return groups_; }
    task_groups& groups() { return groups_; }
    cfs_bandwidth_control& bandwidth() { return bandwidth_; }
    // Group g's queue and entity on `cpu` (nullptr if none of its tasks was ever queued there) and
    // its tg->load_avg (the sum of its queues' contributions), for tests and reports.
    const group_sched* group_rq(unsigned cpu, group_id g) const;
    std::int64_t tg_load_avg(group_id g) const;
    const cfs_bandwidth_control& bandwidth() const { return bandwidth_; }
    // The scheduler's hrtimer interrupt on `cpu` (CFS bandwidth period and slack timers).
    void sched_timer(unsigned cpu, nsec now);
    void arm_sched_timer(unsigned cpu, nsec expiry) { hooks_.arm_sched_timer(cpu, expiry); }
    // An IPI to `cpu` carrying scheduler work (a CSD); cfsb_csd runs the CFS bandwidth unthrottles
    // queued for it when it takes the IPI (also at its next tick, for rigs without IPIs).
    void kick_cpu(unsigned cpu) { hooks_.kick_cpu(cpu); }
    bool cfsb_csd_pending(unsigned cpu) const { return bandwidth_.csd_pending(cpu); }
    void cfsb_csd(unsigned cpu, nsec now);
    // The current task of `cpu` returns to user mode (exit_to_user_mode): the task-based throttle
    // model's task work runs (the simulated kernel calls it when the task has throttle_work set).
    void return_to_user(unsigned cpu, nsec now);

    // wakeup_preempt: p was made runnable on rq; a higher class preempts rq's current task at once, the
    // same class decides through its check_preempt_curr (classes call it from switched_to/prio_changed).
    void check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags);

private:
    void activate_task(runqueue& rq, task& p, unsigned flags);
    // p leaves its class for `to` (__sched_setscheduler's dequeue/put, change, enqueue/set and
    // check_class_changed); `change` sets its new attributes in between.
    template <typename Change>
    void change_class(task& p, sched_class& to, Change&& change);
    void set_task_cpu(task& p, unsigned cpu, migration_cause why);
    // The stopper of an active balance preempts prev and pushes a task (active_load_balance_cpu_stop);
    // returns the idle task, which stands for the stopper as rq's current task.
    task& run_stopper(runqueue& rq, task& prev, bool blocking);
    // Switches prev out for the stopper (the idle task stands for it as rq's current task).
    void switch_to_stopper(runqueue& rq, task& prev, bool blocking);
    // The fair server is running rq's fair curr ahead of the RT class.
    bool fair_served(const runqueue& rq) const;
    // __pick_next_task: the balance pass from prev's class down (prev_balance), then the first class in
    // order with a task.
    task& pick_next_task(runqueue& rq, task* prev);
    std::size_t class_index(const sched_class& c) const;
    void sched_info_depart(runqueue& rq, task& p);
    void sched_info_arrive(runqueue& rq, task& p);

    cpu_layout layout_;
    sched_config cfg_;
    sched_domain_tree domains_;
    scheduler_hooks& hooks_;
    std::vector<runqueue> rqs_;
    std::unique_ptr<fair_server> fair_server_; // v6.12 only
    std::unique_ptr<fair_class> fair_;
    std::unique_ptr<rt_class> rt_;
    std::unique_ptr<idle_class> idle_;
    std::unique_ptr<dl_class> dl_;
    std::unique_ptr<ext_class> ext_;
    ext_exit_info policy_exit_;
    std::vector<sched_class*> classes_; // highest first; idle last
    int calling_cpu_ = -1;                     // the CPU whose code is running the current entry point
    sched_tracepoints* trace_ = nullptr;
    bool rd_overloaded_ = false;
    task_groups groups_;
    cfs_bandwidth_control bandwidth_{*this};
    std::vector<unsigned> probed_;
    std::vector<unsigned> rt_rq_reads_;
    std::uint64_t rt_rq_reads_total_ = 0;
};

} // namespace warmsched::scheduler
