// The sched_ext class; see ext_class.h.
#include "scheduler/ext/ext_class.h"

#include "scheduler/core/scheduler.h"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace warmsched::scheduler {

namespace {
constexpr int dispatch_max_loops = 32; // SCX_DSP_MAX_LOOPS
} // namespace

ext_class::ext_class(scheduler& core, std::shared_ptr<ext::policy> policy, nsec watchdog_timeout,
                     const std::vector<std::vector<unsigned>>& numa_distances)
    : core_(core), policy_(std::move(policy)), timeout_(watchdog_timeout) {
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
    call("init", [&] { policy_->init(); });
}

// ---- helpers ----------------------------------------------------------------------------------------

void ext_class::call(const char* op, const std::function<void()>& f) {
    if (failed_) return;
    try {
        f();
    } catch (const std::exception& e) {
        fail(std::string("ops.") + op + " threw: " + e.what());
    } catch (...) {
        fail(std::string("ops.") + op + " threw an exception");
    }
}

void ext_class::fail(const std::string& message) {
    if (failed_ || in_fail_) return;
    in_fail_ = true;
    failed_ = true;
    // scx_ops_disable: the policy's tasks run on without it, FIFO from their CPU's local DSQ.
    for (task* p : tasks_) {
        if (!p->on_rq || p->on_cpu) continue;
        if (p->scx.dsq && p->scx.dsq != &local_[p->cpu]) dsq_remove(*p);
        p->scx.owned = false;
        if (!p->scx.dsq) {
            dsq_insert(local_[p->cpu], *p, false);
            core_.resched_curr(core_.rq(p->cpu));
        }
    }
    core_.policy_failed(std::string("policy ") + policy_->name() + ": " + message);
    in_fail_ = false;
}

void ext_class::error(const std::string& message) {
    fail("scx_bpf_error: " + message);
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
    sync_info(p);
    call("init_task", [&] { policy_->init_task(p.scx.info); });
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
    if (failed_) return dsq_insert(local_[rq.cpu], p, false);
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
    call("enqueue", [&] { policy_->enqueue(p.scx.info, enq_flags); });
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
        call("runnable", [&] { policy_->runnable(p.scx.info, enq); });
    }
    do_enqueue(rq, p, enq);
}

bool ext_class::dequeue_task(runqueue& rq, task& p, unsigned flags) {
    if (rq.curr == &p) {
        update_curr(rq);
        sync_info(p);
        call("stopping", [&] { policy_->stopping(p.scx.info, false); });
    }
    if (p.scx.dsq) {
        dsq_remove(p);
    } else if (p.scx.owned) {
        call("dequeue", [&] { policy_->dequeue(p.scx.info, flags); });
    }
    p.scx.owned = p.scx.ddsp = false;
    if (!p.migrating) call("quiescent", [&] { policy_->quiescent(p.scx.info, flags); });
    rq.sub_nr_running(1);
    --nr_queued_[rq.cpu];
    p.on_rq = false;
    if (p.state == task_state::dead) switched_from(rq, p); // exit: the policy lets go of it
    return true;
}

void ext_class::switched_from(runqueue&, task& p) {
    if (!p.scx.known) return;
    call("exit_task", [&] { policy_->exit_task(p.scx.info); });
    tasks_.erase(std::remove(tasks_.begin(), tasks_.end(), &p), tasks_.end());
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
            call("dispatch", [&] { policy_->dispatch(cpu, prev_on_scx ? &prev->scx.info : nullptr); });
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
    call("running", [&] { policy_->running(p.scx.info); });
}

void ext_class::put_prev_task(runqueue& rq, task& p) {
    update_curr(rq);
    if (!p.on_rq) return; // it blocked or exited: stopping ran at the dequeue
    sync_info(p);
    call("stopping", [&] { policy_->stopping(p.scx.info, true); });
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
        call("select_cpu", [&] { cpu = policy_->select_cpu(p.scx.info, prev_cpu, flags); });
        ctx_cpu_ = saved;
        selecting_ = nullptr;
        if (cpu >= n) {
            fail("ops.select_cpu returned invalid CPU " + std::to_string(cpu) + " for " + p.comm + "[" +
                 std::to_string(p.pid) + "] (the machine has CPUs 0-" + std::to_string(n - 1) + ")");
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
    call("tick", [&] { policy_->tick(p.scx.info); });
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
        char b[96];
        std::snprintf(b, sizeof b, "%.3f", static_cast<double>(now - p->scx.info.runnable_at) / 1e9);
        fail("runnable task stall (" + p->comm + "[" + std::to_string(p->pid) + "] failed to run for " + b +
             "s)");
        return;
    }
}

// ---- the kfuncs ---------------------------------------------------------------------------------

ext::u64 ext_class::now() const {
    const int c = core_.calling_cpu();
    return core_.rq(c >= 0 ? static_cast<unsigned>(c) : 0).clock;
}

void ext_class::create_dsq(ext::u64 id) {
    if (id >= ext::dsq_builtin) return fail("create_dsq: id " + std::to_string(id) + " is a built-in DSQ's");
    if (!user_.emplace(id, dsq{}).second) fail("create_dsq: DSQ " + std::to_string(id) + " exists already");
}

unsigned ext_class::dsq_nr_queued(ext::u64 id) const {
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
    if (failed_) return;
    if (!info.kernel_private) return fail("dispatch of a task_info the kernel did not hand out");
    task& p = task_of(info);
    const std::string who = p.comm + "[" + std::to_string(p.pid) + "]";
    if (selecting_ == &p) { // from select_cpu: applied when the task is enqueued
        p.scx.ddsp = true;
        p.scx.ddsp_dsq = id;
        p.scx.ddsp_slice = slice;
        p.scx.ddsp_flags = enq_flags;
        return;
    }
    if (!p.on_rq || !p.scx.owned || p.scx.dsq)
        return fail("dispatch of " + who + ", which is " +
                    (!p.on_rq ? "not runnable" : p.scx.dsq ? "on a DSQ already" : "running") +
                    " (a task is dispatched once per enqueue)");
    if (slice) info.slice = slice;
    ++dispatched_;
    if (id == ext::dsq_local || (id & ext::dsq_local_on) == ext::dsq_local_on) {
        const ext::u64 c = id == ext::dsq_local ? static_cast<ext::u64>(ctx_cpu_ >= 0 ? ctx_cpu_ : 0)
                                                 : id & ~ext::dsq_local_on;
        if (c >= topo_.nr_cpus)
            return fail("dispatch of " + who + " to the local DSQ of invalid CPU " + std::to_string(c));
        if (!p.allowed_on(static_cast<unsigned>(c)))
            return fail("dispatch of " + who + " to CPU " + std::to_string(c) + ", which it may not run on");
        p.scx.owned = false;
        return insert_local(p, static_cast<unsigned>(c), enq_flags);
    }
    dsq* q = find_dsq(id);
    if (!q) return fail("dispatch of " + who + " to DSQ " + std::to_string(id) + ", which does not exist");
    p.scx.owned = false;
    dsq_insert(*q, p, enq_flags & ext::enq_head);
}

bool ext_class::move_to_local(ext::u64 id) {
    if (failed_) return false;
    if (!in_dispatch_ || ctx_cpu_ < 0) {
        fail("move_to_local outside ops.dispatch");
        return false;
    }
    dsq* q = find_dsq(id);
    if (!q) {
        fail("move_to_local from DSQ " + std::to_string(id) + ", which does not exist");
        return false;
    }
    const bool moved = consume(*q, core_.rq(static_cast<unsigned>(ctx_cpu_)));
    if (moved) ++dispatched_;
    return moved;
}

void ext_class::kick_cpu(unsigned cpu, ext::u64 flags) {
    if (cpu >= topo_.nr_cpus) return fail("kick_cpu: invalid CPU " + std::to_string(cpu));
    runqueue& rq = core_.rq(cpu);
    if ((flags & ext::kick_idle) && rq.curr != rq.idle) return;
    if ((flags & ext::kick_preempt) && rq.curr->sched_class == this) rq.curr->scx.info.slice = 0;
    core_.resched_curr(rq);
}

bool ext_class::test_and_clear_cpu_idle(unsigned cpu) {
    if (cpu >= topo_.nr_cpus) {
        fail("test_and_clear_cpu_idle: invalid CPU " + std::to_string(cpu));
        return false;
    }
    const bool was = idle_[cpu];
    idle_[cpu] = false;
    return was;
}

int ext_class::pick_idle_cpu(const ext::task_info& info, const std::vector<unsigned>& cpus) {
    const task& p = *static_cast<const task*>(info.kernel_private);
    const auto try_cpu = [&](unsigned c) { return c < topo_.nr_cpus && p.allowed_on(c) && idle_[c]; };
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
    *is_idle = false;
    const task& p = *static_cast<const task*>(info.kernel_private);
    if (prev_cpu < topo_.nr_cpus && p.allowed_on(prev_cpu) && test_and_clear_cpu_idle(prev_cpu)) {
        *is_idle = true;
        return prev_cpu;
    }
    int c = prev_cpu < topo_.nr_cpus ? pick_idle_cpu(info, topo_.llc_cpus[topo_.llc_of[prev_cpu]]) : -1;
    if (c < 0) c = pick_idle_cpu(info, {});
    if (c < 0) return prev_cpu;
    *is_idle = true;
    return static_cast<unsigned>(c);
}

bool ext_class::task_allowed_on(const ext::task_info& info, unsigned cpu) const {
    return cpu < topo_.nr_cpus && static_cast<const task*>(info.kernel_private)->allowed_on(cpu);
}

} // namespace warmsched::scheduler
