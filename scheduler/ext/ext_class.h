// The sched_ext class (kernel/sched/ext.c, v6.12): a policy of the user's own (include/warmsched/policy.h),
// loaded at run time, sits in the class list between fair and idle. The class owns the dispatch queues
// -- a local DSQ per CPU, which the CPU runs from, a global one and the policy's own FIFO DSQs -- and
// calls the policy's callbacks where ext.c calls the sched_ext_ops; the policy calls back through the
// kfuncs of ext::kernel, which this class implements.
//
// What ext.c does and this class does too:
// - balance (balance_one): keep running prev while its slice lasts and nothing is on the local DSQ; else
//   the local DSQ, the global DSQ, then ops.dispatch (up to 32 rounds); a runnable prev with its slice
//   spent and nothing else to run keeps the CPU with a fresh default slice.
// - put_prev: a task preempted by a higher class with slice left goes to the head of its local DSQ;
//   one whose slice is spent goes back to ops.enqueue.
// - the tick charges the slice and reschedules at zero; select_cpu runs for WF_TTWU and WF_FORK (exec
//   stays on its CPU), and a task it dispatched directly (ddsp) skips ops.enqueue.
// - dispatching a task to another CPU's local DSQ moves it there (migration_cause::ext_dispatch), as
//   move_remote_task_to_local_dsq does; it must be allowed there.
// - the watchdog (scx_watchdog_workfn, checked every timeout / 2 from a timer and at ticks): a runnable
//   task that has not run for the timeout is an error (SCX_EXIT_ERROR_STALL), and so is a callback that
//   does not return within its budget (scx_softlockup; callback_budget.h). So are (SCX_EXIT_ERROR) an
//   invalid CPU from select_cpu or in a kfunc's arguments (ops_cpu_valid), a dispatch to a DSQ that does
//   not exist, a task dispatched twice, a task_info the kernel did not hand out, an exception out of a
//   callback; and (SCX_EXIT_ERROR_BPF) scx_bpf_error. At the first error, as scx_ops_error_kind and
//   scx_ops_bypass do, the class records the exit info (ext_exit_info.h), stops calling the policy (a
//   kfunc it calls from the callback still running ends that callback) and runs its tasks FIFO from
//   their CPU's local DSQ; the kernel's disable work (scheduler::disable_policy, scx_ops_disable_workfn)
//   then moves them to the fair class, and the run goes on to its end without the policy.
// Left out: the vtime DSQs (scx_bpf_dsq_insert_vtime), ops.cpu_acquire/release (the policy is not told
// when a higher class takes its CPU), cgroup ops, core scheduling, ops.update_idle and SCX_OPS_ENQ_LAST;
// the cgroup usage of ext tasks is not counted (cpu.stat covers fair tasks).
#pragma once

#include "scheduler/core/runqueue.h"
#include "scheduler/core/sched_class.h"
#include "scheduler/ext/callback_budget.h"
#include "scheduler/ext/ext_exit_info.h"

#include <warmsched/policy.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace warmsched::scheduler {

class scheduler;

class ext_class final : public sched_class, public ext::kernel {
public:
    ext_class(scheduler& core, std::shared_ptr<ext::policy> policy, nsec watchdog_timeout,
              const std::vector<std::vector<unsigned>>& numa_distances);

    const char* name() const override { return "ext"; }
    // The policy's own name (read once, at load).
    const std::string& policy_name() const { return name_; }
    // The policy had an error: it is bypassed until the disable work moves its tasks away.
    bool failed() const { return failed_; }
    // The tasks of the class, in the order they joined it (for the disable work).
    std::vector<task*> tasks() const { return tasks_; }

    // sched_class
    void enqueue_task(runqueue& rq, task& p, unsigned flags) override;
    bool dequeue_task(runqueue& rq, task& p, unsigned flags) override;
    void yield_task(runqueue& rq) override;
    void check_preempt_curr(runqueue&, task&, unsigned) override {} // wakeup_preempt_scx: nothing
    task* pick_next_task(runqueue& rq, task* prev) override;
    void put_prev_task(runqueue& rq, task& p) override;
    void set_next_task(runqueue& rq, task& p) override;
    unsigned select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) override;
    void task_tick(runqueue& rq, task& p) override;
    void task_fork(runqueue& rq, task& p, task* parent) override;
    // switching_to_scx: the policy is told of a task joining through setscheduler as of a new one.
    void switching_to(runqueue& rq, task& p) override { task_fork(rq, p, nullptr); }
    void migrate_task_rq(task&, unsigned) override {}
    bool balance(runqueue& rq, task* prev) override;
    bool has_runnable(const runqueue& rq) const override;
    void switched_from(runqueue& rq, task& p) override;
    // The CPU went idle or stopped being idle (the idle mask of scx_bpf_test_and_clear_cpu_idle).
    void update_idle(unsigned cpu, bool idle);
    // The watchdog's timer interrupt (armed through scheduler::arm_sched_timer).
    void watchdog_timer(nsec now);

    // ext::kernel (the kfuncs)
    ext::u64 now() const override;
    const ext::topology& topology() const override;
    void create_dsq(ext::u64 id) override;
    void dispatch(ext::task_info& p, ext::u64 dsq, ext::u64 slice, ext::u64 enq_flags) override;
    bool move_to_local(ext::u64 dsq) override;
    unsigned dsq_nr_queued(ext::u64 dsq) const override;
    void kick_cpu(unsigned cpu, ext::u64 flags) override;
    bool test_and_clear_cpu_idle(unsigned cpu) override;
    int pick_idle_cpu(const ext::task_info& p, const std::vector<unsigned>& cpus) override;
    unsigned select_cpu_dfl(ext::task_info& p, unsigned prev_cpu, ext::u64 wake_flags,
                            bool* is_idle) override;
    bool task_allowed_on(const ext::task_info& p, unsigned cpu) const override;
    void error(const std::string& message) override;

private:
    // A FIFO dispatch queue of tasks, linked through their ext_entity.
    struct dsq {
        task* head = nullptr;
        task* tail = nullptr;
        unsigned nr = 0;
    };
    void dsq_insert(dsq& q, task& p, bool at_head);
    void dsq_remove(task& p);
    dsq* find_dsq(ext::u64 id);
    // Puts p on the local DSQ of `cpu`, moving it there first if it is queued on another CPU.
    void insert_local(task& p, unsigned cpu, ext::u64 enq_flags);
    // Hands p to the policy's enqueue (or, bypassing, to its CPU's local DSQ).
    void do_enqueue(runqueue& rq, task& p, ext::u64 enq_flags);
    // consume_dispatch_q: the first task of q that may run on rq's CPU goes to its local DSQ.
    bool consume(dsq& q, runqueue& rq);
    void update_curr(runqueue& rq);
    void sync_info(task& p);
    void init_entity(task& p);
    void check_watchdog(nsec now);
    void arm_watchdog(unsigned cpu, nsec now);
    // scx_ops_error_kind: the first error stops the policy (later ones are dropped). `p` and `cpu` are
    // the task and CPU concerned (default: those of the callback running).
    void fail(ext_exit_kind kind, const std::string& message, const task* p = nullptr, int cpu = -1);
    // fail() from a kfunc: inside a callback it ends the callback too (the kernel ignores the rest).
    void stop(ext_exit_kind kind, const std::string& message, const task* p = nullptr, int cpu = -1);
    // Runs callback `op` (about task `p`, if any). An exception out of it, or running past its budget,
    // stops the policy.
    template <typename F>
    void call(const char* op, task* p, F&& f);
    // At the entry of every kfunc: false if the policy was stopped (inside a callback, the kfunc then
    // throws to end it), and the check of the callback's budget.
    bool kfunc() const;
    // The task of a task_info the policy passes to a kfunc; nullptr (and an error) if the kernel did not
    // hand it out or the task has left the class.
    task* task_of(const ext::task_info& p, const char* kfunc);
    // "CPU 40 (the machine has CPUs 0-31)"
    std::string invalid_cpu(ext::u64 cpu) const;
    nsec clock_now() const;

    scheduler& core_;
    std::shared_ptr<ext::policy> policy_;
    nsec timeout_;
    ext::topology topo_;
    std::vector<dsq> local_; // by CPU
    dsq global_;
    std::map<ext::u64, dsq> user_;
    std::vector<unsigned> nr_queued_; // ext tasks counted on each CPU
    std::vector<bool> idle_;          // the idle mask
    std::vector<bool> keep_prev_;     // balance said: keep running prev (SCX_RQ_BAL_KEEP)
    std::vector<task*> tasks_;        // every task of the class, for the watchdog
    std::unordered_set<const task*> known_; // the same, to check the task_infos the policy passes
    std::string name_;
    callback_budget budget_;
    const char* cur_op_ = nullptr; // the callback running, and its task
    task* cur_task_ = nullptr;
    int depth_ = 0; // callbacks running (nested: the outermost counts)
    // The callback being run: the CPU whose local DSQ dsq_local means, and the task select_cpu is
    // placing (its direct dispatch waits for the enqueue).
    int ctx_cpu_ = -1;
    task* selecting_ = nullptr;
    bool in_dispatch_ = false;
    unsigned dispatched_ = 0; // dispatches in the current ops.dispatch round
    bool failed_ = false, in_fail_ = false;
    nsec next_check_ = 0;
    bool timer_armed_ = false;
};

} // namespace warmsched::scheduler
