// The sched_ext class; see ext_class.h.
#include "scheduler/ext/ext_class.h"

#include "scheduler/core/scheduler.h"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace warmsched::scheduler {

namespace {
constexpr int dispatch_max_loops = 32; // SCX_DSP_MAX_LOOPS

// Thrown by a kfunc the policy calls after it was stopped: it ends the callback still running (the
// kernel ignores whatever else it asks). Not a std::exception, so that a policy's catch of those lets
// it through.
struct policy_stopped {};

std::string name_of(const ext::policy& p) {
    const char* n = p.name(); // the loader checked it (policy_loader.h); a policy built in-process may not be
    return n && *n ? std::string(n) : std::string("(unnamed)");
}

std::string who(const task& p) {
    return p.comm + "[" + std::to_string(p.pid) + "]";
}
} // namespace

ext_class::ext_class(scheduler& core, std::shared_ptr<ext::policy> policy, nsec watchdog_timeout,
                     const std::vector<std::vector<unsigned>>& numa_distances)
    : core_(core), policy_(std::move(policy)), timeout_(watchdog_timeout), name_(name_of(*policy_)),
      budget_(name_) {
    const cpu_layout& l = core.layout();
    const unsigned n = l.num_cpus();
    topo_.nr_cpus = n;
    topo_.core_of = l.core_of;
    topo_.node_of = l.node_of;
    topo_.smt_siblings = l.siblings;
    // LLCs numbered densely in CPU order.
    std::map<unsigned, unsigned> llc_index;
    for (unsigned c = 0; c < n; ++c) {
        auto it = llc_index.emplace(l.llc_of[c], static_cast<unsigned>(llc_index.size())).first;
        topo_.llc_of.push_back(it->second);
        if (topo_.llc_cpus.size() <= it->second) topo_.llc_cpus.resize(it->second + 1);
        topo_.llc_cpus[it->second].push_back(c);
    }
    topo_.nr_llcs = static_cast<unsigned>(topo_.llc_cpus.size());
    topo_.nr_nodes = n ? *std::max_element(l.node_of.begin(), l.node_of.end()) + 1 : 0;
    topo_.distance = numa_distances;
    if (topo_.distance.empty()) topo_.distance.assign(1, std::vector<unsigned>{10});
    local_.resize(n);
    nr_queued_.assign(n, 0);
    idle_.assign(n, true);
    keep_prev_.assign(n, false);
    policy_->bind(*this);
    call("init", nullptr, [&] { policy_->init(); });
}

// ---- helpers ----------------------------------------------------------------------------------------

template <typename F>
void ext_class::call(const char* op, task* p, F&& f) {
    if (failed_) return;
    const char* const saved_op = cur_op_;
    task* const saved_task = cur_task_;
    cur_op_ = op;
    cur_task_ = p;
    ++depth_;
    budget_.enter(op, ctx_cpu_ >= 0 ? ctx_cpu_ : p ? static_cast<int>(p->cpu) : -1, clock_now());
    try {
        f();
    } catch (const policy_stopped&) { // a kfunc ended it: the error is recorded already
    } catch (const std::exception& e) {
        fail(ext_exit_kind::error, std::string("ops.") + op + " threw: " + e.what());
    } catch (...) {
        fail(ext_exit_kind::error, std::string("ops.") + op + " threw an exception");
    }
    if (budget_.overrun()) // it returned, but past its budget
        fail(ext_exit_kind::error_stall, std::string("soft lockup: ops.") + op + " ran for more than " +
                                             budget_.passed() + " before returning");
    budget_.leave();
    --depth_;
    cur_op_ = saved_op;
    cur_task_ = saved_task;
}

bool ext_class::kfunc() const {
    auto* self = const_cast<ext_class*>(this); // the kfuncs are the kernel's: a const one may still fail it
    if (!failed_ && depth_ && budget_.overrun())
        self->fail(ext_exit_kind::error_stall, std::string("soft lockup: ops.") + (cur_op_ ? cur_op_ : "?") +
                                                   " ran for more than " + budget_.passed() +
                                                   " without returning");
    if (!failed_) return true;
    if (depth_) throw policy_stopped{};
    return false;
}

task* ext_class::task_of(const ext::task_info& info, const char* kfunc) {
    auto* p = static_cast<task*>(info.kernel_private);
    if (p && known_.count(p)) return p;
    stop(ext_exit_kind::error, std::string(kfunc) + " of a task_info the kernel did not hand out" +
                                   (p ? " (or of a task that has left the policy)" : ""));
    return nullptr;
}

std::string ext_class::invalid_cpu(ext::u64 cpu) const {
    return "CPU " + std::to_string(cpu) + " (the machine has CPUs 0-" + std::to_string(topo_.nr_cpus - 1) + ")";
}

nsec ext_class::clock_now() const {
    const int c = core_.calling_cpu();
    return core_.rq(c >= 0 ? static_cast<unsigned>(c) : 0).clock;
}

void ext_class::fail(ext_exit_kind kind, const std::string& message, const task* p, int cpu) {
    if (failed_ || in_fail_) return;
    in_fail_ = true;
    failed_ = true;
    ext_exit_info ei;
    ei.kind = kind;
    ei.policy = name_;
    ei.msg = message;
    ei.op = cur_op_ ? cur_op_ : "";
    ei.at = clock_now();
    if (!p) p = cur_task_;
    if (p) {
        ei.pid = p->pid;
        ei.comm = p->comm;
    }
    ei.cpu = cpu >= 0 ? cpu : ctx_cpu_ >= 0 ? ctx_cpu_ : p ? static_cast<int>(p->cpu) : -1;
    // scx_ops_bypass: the policy's tasks run on without it, FIFO from their CPU's local DSQ, until the
    // disable work moves them to the fair class.
    for (task* t : tasks_) {
        // Only the class's runnable tasks (one leaving for another class is still listed while
        // ops.exit_task runs).
        if (t->sched_class != this || !t->on_rq || t->on_cpu) continue;
        if (t->scx.dsq && t->scx.dsq != &local_[t->cpu]) dsq_remove(*t);
        t->scx.owned = false;
        if (!t->scx.dsq) {
            dsq_insert(local_[t->cpu], *t, false);
            core_.resched_curr(core_.rq(t->cpu));
        }
    }
    core_.policy_failed(ei);
    in_fail_ = false;
}

void ext_class::stop(ext_exit_kind kind, const std::string& message, const task* p, int cpu) {
    fail(kind, message, p, cpu);
    if (depth_) throw policy_stopped{};
}

void ext_class::error(const std::string& message) {
    if (!kfunc()) return;
    stop(ext_exit_kind::error_bpf, message);
}

void ext_class::sync_info(task& p) {
    ext::task_info& i = p.scx.info;
    i.nice = p.nice;
    i.weight = std::max<unsigned>(1, static_cast<unsigned>(std::uint64_t{weight_of_nice(p.nice)} * 100 / 1024));
    i.cpu = p.cpu;
    i.sum_exec_runtime = p.se.sum_exec_runtime;
    i.run_delay = p.stats.run_delay;
    i.nr_switches = p.stats.nr_switches;
    i.nr_migrations = p.stats.nr_migrations;
    i.nr_wakeups = p.stats.nr_wakeups;
}

void ext_class::init_entity(task& p) {
    if (p.scx.known) return;
    p.scx = ext_entity{};
    p.scx.known = true;
    p.scx.info.pid = p.pid;
    p.scx.info.tgid = p.tgid;
    p.scx.info.comm = p.comm.c_str();
    p.scx.info.slice = ext::slice_dfl;
    p.scx.info.kernel_private = &p;
    tasks_.push_back(&p);
    known_.insert(&p);
    sync_info(p);
    call("init_task", &p, [&] { policy_->init_task(p.scx.info); });
}

void ext_class::dsq_insert(dsq& q, task& p, bool at_head) {
    p.scx.dsq = &q;
    if (at_head) {
        p.scx.dsq_prev = nullptr;
        p.scx.dsq_next = q.head;
        (q.head ? q.head->scx.dsq_prev : q.tail) = &p;
        q.head = &p;
    } else {
        p.scx.dsq_next = nullptr;
        p.scx.dsq_prev = q.tail;
        (q.tail ? q.tail->scx.dsq_next : q.head) = &p;
        q.tail = &p;
    }
    ++q.nr;
}

void ext_class::dsq_remove(task& p) {
    dsq& q = *static_cast<dsq*>(p.scx.dsq);
    (p.scx.dsq_prev ? p.scx.dsq_prev->scx.dsq_next : q.head) = p.scx.dsq_next;
    (p.scx.dsq_next ? p.scx.dsq_next->scx.dsq_prev : q.tail) = p.scx.dsq_prev;
    p.scx.dsq = nullptr;
    p.scx.dsq_prev = p.scx.dsq_next = nullptr;
    --q.nr;
}

ext_class::dsq* ext_class::find_dsq(ext::u64 id) {
    if (id == ext::dsq_global) return &global_;
    auto it = user_.find(id);
    return it == user_.end() ? nullptr : &it->second;
}

void ext_class::insert_local(task& p, unsigned cpu, ext::u64 enq_flags) {
    // The current task of its CPU, enqueued again while it runs (sched_setscheduler into the class, a
    // nice change): it cannot move while it runs, so it stays on its own CPU's local DSQ, which it
    // leaves at once as its CPU's current task (set_next_task).
    if (p.on_cpu) cpu = p.cpu;
    if (p.cpu != cpu) {
        // move_remote_task_to_local_dsq: p leaves its CPU's count for cpu's.
        runqueue& src = core_.rq(p.cpu);
        runqueue& dst = core_.rq(cpu);
        core_.update_rq_clock(dst, src.clock);
        src.sub_nr_running(1);
        --nr_queued_[p.cpu];
        core_.migrate_queued_task(p, cpu, migration_cause::ext_dispatch);
        dst.add_nr_running(1);
        ++nr_queued_[cpu];
    }
    dsq_insert(local_[cpu], p, enq_flags & ext::enq_head);
    runqueue& rq = core_.rq(cpu);
    if (rq.curr == rq.idle || (enq_flags & ext::enq_preempt)) core_.resched_curr(rq);
}

void ext_class::do_enqueue(runqueue& rq, task& p, ext::u64 enq_flags) {
    p.scx.info.runnable_at = rq.clock;
    if (failed_) { // bypassed (the bypass may have queued p already, if the policy failed in ops.runnable)
        if (!p.scx.dsq) dsq_insert(local_[rq.cpu], p, false);
        return;
    }
    if (p.scx.ddsp) { // select_cpu dispatched it directly
        p.scx.ddsp = false;
        p.scx.owned = true;
        ext::task_info& i = p.scx.info;
        const int saved = ctx_cpu_;
        ctx_cpu_ = static_cast<int>(rq.cpu);
        dispatch(i, p.scx.ddsp_dsq, p.scx.ddsp_slice, p.scx.ddsp_flags);
        ctx_cpu_ = saved;
        return;
    }
    p.scx.owned = true; // in the policy's custody until it dispatches p
    sync_info(p);
    const int saved = ctx_cpu_;
    ctx_cpu_ = static_cast<int>(rq.cpu);
    call("enqueue", &p, [&] { policy_->enqueue(p.scx.info, enq_flags); });
    ctx_cpu_ = saved;
    arm_watchdog(rq.cpu, rq.clock);
}

bool ext_class::consume(dsq& q, runqueue& rq) {
    for (task* p = q.head; p; p = p->scx.dsq_next)
        if (p->allowed_on(rq.cpu)) {
            dsq_remove(*p);
            insert_local(*p, rq.cpu, 0);
            return true;
        }
    return false;
}

void ext_class::update_curr(runqueue& rq) {
    task& curr = *rq.curr;
    if (curr.sched_class != this || rq.clock <= curr.se.exec_start) return;
    const nsec delta = rq.clock - curr.se.exec_start;
    curr.se.exec_start = rq.clock;
    curr.se.sum_exec_runtime += delta;
    curr.stats.exec_max = std::max(curr.stats.exec_max, delta);
    ext::u64& slice = curr.scx.info.slice;
    if (slice != ext::slice_inf) slice -= std::min<ext::u64>(slice, delta);
}

// ---- the class ops ------------------------------------------------------------------------------

void ext_class::task_fork(runqueue&, task& p, task*) {
    p.scx.known = false;
    init_entity(p);
}

void ext_class::enqueue_task(runqueue& rq, task& p, unsigned flags) {
    init_entity(p); // a task that joins through setscheduler
    p.on_rq = true;
    rq.add_nr_running(1);
    ++nr_queued_[rq.cpu];
    const ext::u64 enq = (flags & ENQUEUE_WAKEUP) ? ext::enq_wakeup : 0;
    if (!p.migrating) {
        sync_info(p);
        call("runnable", &p, [&] { policy_->runnable(p.scx.info, enq); });
    }
    do_enqueue(rq, p, enq);
}

bool ext_class::dequeue_task(runqueue& rq, task& p, unsigned flags) {
    if (rq.curr == &p) {
        update_curr(rq);
        sync_info(p);
        call("stopping", &p, [&] { policy_->stopping(p.scx.info, false); });
    }
    if (p.scx.dsq) {
        dsq_remove(p);
    } else if (p.scx.owned) {
        call("dequeue", &p, [&] { policy_->dequeue(p.scx.info, flags); });
    }
    p.scx.owned = p.scx.ddsp = false;
    if (!p.migrating) call("quiescent", &p, [&] { policy_->quiescent(p.scx.info, flags); });
    if (p.scx.dsq) dsq_remove(p); // the policy failed in ops.dequeue or ops.quiescent: the bypass queued p
    rq.sub_nr_running(1);
    --nr_queued_[rq.cpu];
    p.on_rq = false;
    if (p.state == task_state::dead) switched_from(rq, p); // exit: the policy lets go of it
    return true;
}

void ext_class::switched_from(runqueue&, task& p) {
    if (!p.scx.known) return;
    call("exit_task", &p, [&] { policy_->exit_task(p.scx.info); });
    tasks_.erase(std::remove(tasks_.begin(), tasks_.end(), &p), tasks_.end());
    known_.erase(&p);
    p.scx.known = false;
}

void ext_class::yield_task(runqueue& rq) {
    rq.curr->scx.info.slice = 0; // yield_task_scx without ops.yield
}

bool ext_class::balance(runqueue& rq, task* prev) {
    const unsigned cpu = rq.cpu;
    keep_prev_[cpu] = false;
    const bool prev_on_scx = prev && prev->sched_class == this && prev->on_rq && !prev->is_idle;
    dsq& local = local_[cpu];
    if (prev_on_scx && prev->scx.info.slice && !local.nr) {
        keep_prev_[cpu] = true;
        return true;
    }
    if (local.nr || consume(global_, rq)) return true;
    if (!failed_) {
        for (int loop = 0; loop < dispatch_max_loops && !failed_; ++loop) {
            const int saved = ctx_cpu_;
            ctx_cpu_ = static_cast<int>(cpu);
            in_dispatch_ = true;
            dispatched_ = 0;
            if (prev_on_scx) sync_info(*prev);
            call("dispatch", prev_on_scx ? prev : nullptr, [&] { policy_->dispatch(cpu, prev_on_scx ? &prev->scx.info : nullptr); });
            in_dispatch_ = false;
            ctx_cpu_ = saved;
            if (local.nr || consume(global_, rq)) return true;
            if (!dispatched_) break;
        }
    }
    if (local.nr) return true;
    if (prev_on_scx) { // nothing else to run: prev keeps the CPU
        keep_prev_[cpu] = true;
        return true;
    }
    return false;
}

task* ext_class::pick_next_task(runqueue& rq, task* prev) {
    const bool keep = keep_prev_[rq.cpu];
    keep_prev_[rq.cpu] = false;
    if (keep && prev && prev->sched_class == this && prev->on_rq) {
        if (!prev->scx.info.slice) prev->scx.info.slice = ext::slice_dfl;
        return prev;
    }
    task* p = local_[rq.cpu].head;
    if (p && !p->scx.info.slice) p->scx.info.slice = ext::slice_dfl;
    return p;
}

void ext_class::set_next_task(runqueue& rq, task& p) {
    if (p.scx.dsq) dsq_remove(p);
    p.scx.owned = false;
    p.se.exec_start = rq.clock;
    p.se.prev_sum_exec_runtime = p.se.sum_exec_runtime;
    sync_info(p);
    call("running", &p, [&] { policy_->running(p.scx.info); });
    if (p.scx.dsq) dsq_remove(p); // the policy failed in ops.running: the bypass queued p
}

void ext_class::put_prev_task(runqueue& rq, task& p) {
    update_curr(rq);
    if (!p.on_rq) return; // it blocked or exited: stopping ran at the dequeue
    sync_info(p);
    call("stopping", &p, [&] { policy_->stopping(p.scx.info, true); });
    p.scx.info.runnable_at = rq.clock;
    if (p.scx.info.slice && !failed_) { // preempted by a higher class: first in line when it returns
        dsq_insert(local_[rq.cpu], p, true);
        return;
    }
    do_enqueue(rq, p, 0);
}

unsigned ext_class::select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) {
    init_entity(p);
    const unsigned n = topo_.nr_cpus;
    unsigned cpu = prev_cpu;
    if (!failed_ && (wake_flags & (WF_TTWU | WF_FORK))) {
        sync_info(p);
        selecting_ = &p;
        const int saved = ctx_cpu_;
        ctx_cpu_ = static_cast<int>(prev_cpu);
        const ext::u64 flags = wake_flags & (WF_TTWU | WF_FORK | WF_SYNC);
        call("select_cpu", &p, [&] { cpu = policy_->select_cpu(p.scx.info, prev_cpu, flags); });
        ctx_cpu_ = saved;
        selecting_ = nullptr;
        if (cpu >= n) { // select_task_rq_scx: ops_cpu_valid
            const char* const saved_op = cur_op_;
            cur_op_ = "select_cpu";
            fail(ext_exit_kind::error, "ops.select_cpu returned invalid CPU " + std::to_string(cpu) + " for " +
                                           who(p) + " (the machine has CPUs 0-" + std::to_string(n - 1) + ")",
                 &p, static_cast<int>(prev_cpu));
            cur_op_ = saved_op;
            cpu = prev_cpu;
        }
        if (failed_) p.scx.ddsp = false;
    }
    if (p.allowed_on(cpu)) return cpu;
    p.scx.ddsp = p.scx.ddsp && p.scx.ddsp_dsq != ext::dsq_local; // select_fallback_rq
    if (p.allowed_on(prev_cpu)) return prev_cpu;
    for (unsigned c = 0; c < n; ++c)
        if (p.allowed_on(c)) return c;
    return prev_cpu;
}

void ext_class::task_tick(runqueue& rq, task& p) {
    update_curr(rq);
    sync_info(p);
    call("tick", &p, [&] { policy_->tick(p.scx.info); });
    if (!p.scx.info.slice) core_.resched_curr(rq);
    if (rq.clock >= next_check_) check_watchdog(rq.clock);
}

bool ext_class::has_runnable(const runqueue& rq) const {
    return nr_queued_[rq.cpu] > 0;
}

void ext_class::update_idle(unsigned cpu, bool idle) {
    idle_[cpu] = idle;
}

// ---- the watchdog ---------------------------------------------------------------------------------

void ext_class::arm_watchdog(unsigned cpu, nsec now) {
    if (timer_armed_ || failed_) return;
    timer_armed_ = true;
    core_.arm_sched_timer(cpu, now + timeout_ / 2);
}

void ext_class::watchdog_timer(nsec now) {
    timer_armed_ = false;
    check_watchdog(now);
    for (const task* p : tasks_)
        if (p->on_rq) return arm_watchdog(p->cpu, now);
}

void ext_class::check_watchdog(nsec now) {
    next_check_ = now + timeout_ / 2;
    for (const task* p : tasks_) {
        if (!p->on_rq || p->on_cpu || now - std::min(now, p->scx.info.runnable_at) < timeout_) continue;
        // check_rq_for_timeouts: "%s[%d] failed to run for %u.%03us"
        char b[96];
        std::snprintf(b, sizeof b, "%.3f", static_cast<double>(now - p->scx.info.runnable_at) / 1e9);
        fail(ext_exit_kind::error_stall, who(*p) + " failed to run for " + b + "s", p, static_cast<int>(p->cpu));
        return;
    }
}

// ---- the kfuncs ---------------------------------------------------------------------------------
// Each starts with kfunc(): a stopped policy's callback ends at its next kfunc, and one past its budget
// is stopped there.

ext::u64 ext_class::now() const {
    kfunc();
    return clock_now();
}

const ext::topology& ext_class::topology() const {
    kfunc();
    return topo_;
}

void ext_class::create_dsq(ext::u64 id) {
    if (!kfunc()) return;
    if (id >= ext::dsq_builtin)
        return stop(ext_exit_kind::error, "create_dsq: id " + std::to_string(id) + " is a built-in DSQ's");
    if (!user_.emplace(id, dsq{}).second)
        stop(ext_exit_kind::error, "create_dsq: DSQ " + std::to_string(id) + " exists already");
}

unsigned ext_class::dsq_nr_queued(ext::u64 id) const {
    if (!kfunc()) return 0;
    if (id == ext::dsq_global) return global_.nr;
    if (id == ext::dsq_local) return ctx_cpu_ >= 0 ? local_[static_cast<unsigned>(ctx_cpu_)].nr : 0;
    if ((id & ext::dsq_local_on) == ext::dsq_local_on) {
        const ext::u64 c = id & ~ext::dsq_local_on;
        return c < local_.size() ? local_[c].nr : 0;
    }
    auto it = user_.find(id);
    return it == user_.end() ? 0 : it->second.nr;
}

void ext_class::dispatch(ext::task_info& info, ext::u64 id, ext::u64 slice, ext::u64 enq_flags) {
    if (!kfunc()) return;
    task* const t = task_of(info, "dispatch");
    if (!t) return;
    task& p = *t;
    if (selecting_ == &p) { // from select_cpu: applied when the task is enqueued
        p.scx.ddsp = true;
        p.scx.ddsp_dsq = id;
        p.scx.ddsp_slice = slice;
        p.scx.ddsp_flags = enq_flags;
        return;
    }
    if (!p.on_rq || !p.scx.owned || p.scx.dsq)
        return stop(ext_exit_kind::error,
                    "dispatch of " + who(p) + ", which is " +
                        (!p.on_rq ? "not runnable" : p.scx.dsq ? "on a DSQ already" : "running") +
                        " (a task is dispatched once per enqueue)",
                    &p);
    if (id == ext::dsq_local || (id & ext::dsq_local_on) == ext::dsq_local_on) {
        const ext::u64 c = id == ext::dsq_local ? static_cast<ext::u64>(ctx_cpu_ >= 0 ? ctx_cpu_ : 0)
                                                 : id & ~ext::dsq_local_on;
        if (c >= topo_.nr_cpus)
            return stop(ext_exit_kind::error, "dispatch of " + who(p) + " to the local DSQ of invalid " + invalid_cpu(c),
                        &p);
        if (!p.allowed_on(static_cast<unsigned>(c)))
            return stop(ext_exit_kind::error,
                        "dispatch of " + who(p) + " to CPU " + std::to_string(c) + ", which it may not run on", &p,
                        static_cast<int>(c));
        if (slice) info.slice = slice;
        ++dispatched_;
        p.scx.owned = false;
        return insert_local(p, static_cast<unsigned>(c), enq_flags);
    }
    dsq* q = find_dsq(id);
    if (!q)
        return stop(ext_exit_kind::error,
                    "dispatch of " + who(p) + " to DSQ " + std::to_string(id) + ", which does not exist", &p);
    if (slice) info.slice = slice;
    ++dispatched_;
    p.scx.owned = false;
    dsq_insert(*q, p, enq_flags & ext::enq_head);
}

bool ext_class::move_to_local(ext::u64 id) {
    if (!kfunc()) return false;
    if (!in_dispatch_ || ctx_cpu_ < 0) {
        stop(ext_exit_kind::error, "move_to_local outside ops.dispatch");
        return false;
    }
    dsq* q = find_dsq(id);
    if (!q) {
        stop(ext_exit_kind::error, "move_to_local from DSQ " + std::to_string(id) + ", which does not exist");
        return false;
    }
    const bool moved = consume(*q, core_.rq(static_cast<unsigned>(ctx_cpu_)));
    if (moved) ++dispatched_;
    return moved;
}

void ext_class::kick_cpu(unsigned cpu, ext::u64 flags) {
    if (!kfunc()) return;
    if (cpu >= topo_.nr_cpus) return stop(ext_exit_kind::error, "kick_cpu: invalid " + invalid_cpu(cpu));
    runqueue& rq = core_.rq(cpu);
    if (!rq.curr) return; // from ops.init: the CPUs have not started yet, nothing to kick
    if ((flags & ext::kick_idle) && rq.curr != rq.idle) return;
    if ((flags & ext::kick_preempt) && rq.curr->sched_class == this) rq.curr->scx.info.slice = 0;
    core_.resched_curr(rq);
}

bool ext_class::test_and_clear_cpu_idle(unsigned cpu) {
    if (!kfunc()) return false;
    if (cpu >= topo_.nr_cpus) {
        stop(ext_exit_kind::error, "test_and_clear_cpu_idle: invalid " + invalid_cpu(cpu));
        return false;
    }
    const bool was = idle_[cpu];
    idle_[cpu] = false;
    return was;
}

int ext_class::pick_idle_cpu(const ext::task_info& info, const std::vector<unsigned>& cpus) {
    if (!kfunc()) return -1;
    const task* const t = task_of(info, "pick_idle_cpu");
    if (!t) return -1;
    // ops_cpu_valid: a CPU the machine does not have is the policy's error, wherever it is in the list.
    for (unsigned c : cpus)
        if (c >= topo_.nr_cpus) {
            stop(ext_exit_kind::error, "pick_idle_cpu: invalid " + invalid_cpu(c) + " in the list of CPUs", t);
            return -1;
        }
    const auto try_cpu = [&](unsigned c) { return t->allowed_on(c) && idle_[c]; };
    if (cpus.empty()) {
        for (unsigned c = 0; c < topo_.nr_cpus; ++c)
            if (try_cpu(c)) return idle_[c] = false, static_cast<int>(c);
        return -1;
    }
    for (unsigned c : cpus)
        if (try_cpu(c)) return idle_[c] = false, static_cast<int>(c);
    return -1;
}

unsigned ext_class::select_cpu_dfl(ext::task_info& info, unsigned prev_cpu, ext::u64, bool* is_idle) {
    bool idle = false;
    if (is_idle) *is_idle = false;
    if (!kfunc()) return prev_cpu;
    const task* const t = task_of(info, "select_cpu_dfl");
    if (!t) return prev_cpu;
    // scx_bpf_select_cpu_dfl: an invalid prev_cpu is returned as it is (select_cpu then fails on it).
    if (prev_cpu >= topo_.nr_cpus) return prev_cpu;
    unsigned cpu = prev_cpu;
    if (t->allowed_on(prev_cpu) && idle_[prev_cpu]) {
        idle_[prev_cpu] = false;
        idle = true;
    } else {
        int c = pick_idle_cpu(info, topo_.llc_cpus[topo_.llc_of[prev_cpu]]);
        if (c < 0) c = pick_idle_cpu(info, {});
        if (c >= 0) {
            cpu = static_cast<unsigned>(c);
            idle = true;
        }
    }
    if (is_idle) *is_idle = idle;
    return cpu;
}

bool ext_class::task_allowed_on(const ext::task_info& info, unsigned cpu) const {
    if (!kfunc()) return false;
    const task* const t = const_cast<ext_class*>(this)->task_of(info, "task_allowed_on");
    return t && cpu < topo_.nr_cpus && t->allowed_on(cpu);
}

} // namespace warmsched::scheduler
