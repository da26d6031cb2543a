// Core scheduler; see scheduler.h.
#include "scheduler/core/scheduler.h"

#include "scheduler/dl/dl_class.h"
#include "scheduler/ext/ext_class.h"
#include "scheduler/fair/cfs_class.h"
#include "scheduler/fair/eevdf_class.h"
#include "scheduler/fair/fair_class.h"
#include "scheduler/fair/load_avg.h"
#include "scheduler/idle/idle_class.h"
#include "scheduler/rt/rt_class.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <string>

namespace warmsched::scheduler {

scheduler::scheduler(const platform::topology& topo, const std::vector<std::vector<unsigned>>& numa_distances,
                     const sched_config& cfg, scheduler_hooks& hooks)
    : layout_(cpu_layout::of(topo)), cfg_(cfg), domains_(topo, numa_distances, cfg.features), hooks_(hooks),
      rqs_(layout_.num_cpus()) {
    for (unsigned c = 0; c < rqs_.size(); ++c) rqs_[c].cpu = c;
    if (cfg.kernel == kernel_version::cfs_v5_15)
        fair_ = std::make_unique<cfs_class>(*this);
    else
        fair_ = std::make_unique<eevdf_class>(*this);
    idle_ = std::make_unique<idle_class>();
    rt_ = std::make_unique<rt_class>(*this);
    if (cfg.features[feature::FAIR_SERVER])
        fair_server_ = std::make_unique<fair_server>(*this, num_cpus()); // v6.12's dl_server for fair tasks
    dl_ = std::make_unique<dl_class>(*fair_, fair_server_.get());
    classes_ = {dl_.get(), rt_.get(), fair_.get()};
    if (cfg.ext.policy) { // where sched_ext sits: below fair, above idle
        ext_ = std::make_unique<ext_class>(*this, cfg.ext.policy, cfg.ext.watchdog_timeout, numa_distances);
        classes_.push_back(ext_.get());
        if (policy_exit_.failed()) { // ops.init failed: no task ever joins it
            policy_exit_.ejected = true;
            policy_exit_.ejected_at = 0;
        }
    }
    classes_.push_back(idle_.get());
    rt_->bandwidth().init();
}

scheduler::~scheduler() = default;

sched_class& scheduler::class_for(sched_policy policy) const {
    if (rt_policy(policy)) return *rt_;
    if (ext_enabled() && (policy == sched_policy::ext || cfg_.ext.switch_all)) return *ext_;
    return *fair_;
}

void scheduler::policy_failed(const ext_exit_info& info) {
    if (policy_exit_.failed()) return;
    policy_exit_ = info;
    if (ext_) hooks_.queue_policy_disable(calling_cpu_ >= 0 ? static_cast<unsigned>(calling_cpu_) : 0);
}

void scheduler::disable_policy(unsigned cpu, nsec now) {
    if (!ext_ || !policy_exit_.failed() || policy_exit_.ejected) return;
    calling_cpu_ = static_cast<int>(cpu);
    update_rq_clock(rqs_[cpu], now);
    policy_exit_.ejected = true; // from here class_for gives the fair class for SCHED_EXT
    policy_exit_.ejected_at = rqs_[cpu].clock;
    for (task* p : ext_->tasks()) {
        if (p->sched_class != ext_.get()) continue;
        update_rq_clock(rqs_[p->cpu], now);
        change_class(*p, class_for(p->policy), [] {});
        ++policy_exit_.tasks_moved;
    }
}

sched_class& scheduler::class_of(const task& p) const {
    if (p.sched_class) return *p.sched_class;
    return p.is_idle ? *idle_ : class_for(p.policy);
}

bool scheduler::is_fair(const task& p) const {
    return &class_of(p) == fair_.get();
}

std::size_t scheduler::class_index(const sched_class& c) const {
    for (std::size_t i = 0; i < classes_.size(); ++i)
        if (classes_[i] == &c) return i;
    assert(false && "a class outside the list");
    return classes_.size();
}

int scheduler::class_rank(const task& p) const {
    // Higher is more urgent: the idle class ranks 0.
    return static_cast<int>(classes_.size() - 1 - class_index(class_of(p)));
}

bool scheduler::runnable_above(const runqueue& rq, const sched_class& c) const {
    for (const sched_class* k : classes_) {
        if (k == &c) return false;
        if (k->has_runnable(rq)) return true;
    }
    return false;
}

void scheduler::setscheduler(task& p, sched_policy policy, int rt_priority, int nice, unsigned this_cpu,
                             nsec now) {
    if (p.is_idle) throw std::invalid_argument("sched_setscheduler: the idle task keeps its class");
    if (rt_policy(policy) != (rt_priority >= 1 && rt_priority <= 99))
        throw std::invalid_argument(
            "sched_setscheduler: " + p.comm + ": priority " + std::to_string(rt_priority) +
            (rt_policy(policy) ? " is not in 1..99" : " must be 0 for a fair policy"));
    calling_cpu_ = static_cast<int>(this_cpu);
    rt_rq_reads_.clear();
    update_rq_clock(rqs_[p.cpu], now);
    change_class(p, class_for(policy), [&] {
        p.policy = policy;
        p.rt_priority = rt_priority;
        p.set_nice(nice);
    });
}

template <typename Change>
void scheduler::change_class(task& p, sched_class& to, Change&& change) {
    runqueue& rq = rqs_[p.cpu];
    sched_class& from = class_of(p);
    const int old_prio = p.prio();
    const bool queued = p.on_rq && !p.se.sched_delayed;
    const bool running = rq.curr == &p;
    if (queued) from.dequeue_task(rq, p, DEQUEUE_SAVE | DEQUEUE_MOVE);
    if (running) from.put_prev_task(rq, p);
    change();
    p.sched_class = &to;
    if (&to != &from) to.switching_to(rq, p); // the new class's per-task state (an RR slice)
    if (queued) activate_task(rq, p, ENQUEUE_RESTORE | ENQUEUE_MOVE);
    if (running) to.set_next_task(rq, p);
    // check_class_changed
    if (&to != &from) {
        from.switched_from(rq, p);
        to.switched_to(rq, p);
    } else if (p.prio() != old_prio) {
        to.prio_changed(rq, p, old_prio);
    }
}

void scheduler::update_rq_clock(runqueue& rq, nsec now) {
    rq.clock = std::max(rq.clock, now);
}

void scheduler::resched_curr(runqueue& rq) {
    if (rq.need_resched) return;
    rq.need_resched = true;
    if (static_cast<int>(rq.cpu) != calling_cpu_) hooks_.kick_cpu(rq.cpu);
}

void scheduler::init_idle(task& idle, unsigned cpu) {
    idle.is_idle = true;
    idle.sched_class = idle_.get();
    idle.cpu = cpu;
    idle.on_cpu = true;
    idle.state = task_state::running;
    rqs_[cpu].idle = &idle;
    rqs_[cpu].curr = &idle;
}

void scheduler::set_task_cpu(task& p, unsigned cpu, migration_cause why) {
    if (p.cpu == cpu) return;
    const unsigned from = p.cpu;
    ++p.stats.nr_migrations;
    if (trace_) {
        const unsigned here = calling_cpu_ >= 0 ? static_cast<unsigned>(calling_cpu_) : from;
        trace_->sched_migrate_task(here, rqs_[here].clock, p, from, cpu);
    }
    p.cpu = cpu;
    hooks_.task_migrated(p, from, cpu, why);
}

const char* to_string(migration_cause c) {
    switch (c) {
    case migration_cause::wakeup:
        return "wakeup";
    case migration_cause::fork:
        return "fork";
    case migration_cause::exec:
        return "exec";
    case migration_cause::periodic_balance:
        return "periodic balance";
    case migration_cause::newidle_balance:
        return "newidle balance";
    case migration_cause::nohz_balance:
        return "nohz balance";
    case migration_cause::active_balance:
        return "active balance";
    case migration_cause::rt_push:
        return "RT push";
    case migration_cause::rt_pull:
        return "RT pull";
    case migration_cause::ext_dispatch:
        return "policy dispatch";
    }
    return "?";
}

void scheduler::activate_task(runqueue& rq, task& p, unsigned flags) {
    class_of(p).enqueue_task(rq, p, flags);
    p.stats.wait_start = rq.clock;
    if (rq.nr_running >= 2) rd_overloaded_ = true; // add_nr_running: the root domain is overloaded
}

void scheduler::detach_task(task& p, unsigned dst_cpu, migration_cause why) {
    runqueue& src = rqs_[p.cpu];
    p.migrating = true; // TASK_ON_RQ_MIGRATING
    const nsec waiting_since = p.stats.wait_start;
    class_of(p).dequeue_task(src, p, 0); // not a sleep: CFS makes vruntime relative, EEVDF saves lag
    class_of(p).migrate_task_rq(p, dst_cpu);
    set_task_cpu(p, dst_cpu, why);
    p.stats.wait_start = waiting_since;
}

void scheduler::attach_task(task& p) {
    runqueue& rq = rqs_[p.cpu];
    const nsec waiting_since = p.stats.wait_start; // it keeps waiting: the wait spans both queues
    activate_task(rq, p, ENQUEUE_MIGRATED);
    p.stats.wait_start = waiting_since;
    p.migrating = false;
    check_preempt_curr(rq, p, 0);
}

void scheduler::check_preempt_curr(runqueue& rq, task& p, unsigned wake_flags) {
    if (&class_of(p) == &class_of(*rq.curr))
        class_of(p).check_preempt_curr(rq, p, wake_flags);
    else if (class_rank(p) > class_rank(*rq.curr) && !fair_served(rq)) // a higher class preempts at once
        resched_curr(rq);
}

void scheduler::add_initial_task(task& p, unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    runqueue& rq = rqs_[cpu];
    update_rq_clock(rq, now);
    p.cpu = cpu;
    const nsec custom_slice = p.se.custom_slice; // sched_setattr(sched_runtime) survives the reset
    p.se = sched_entity{};
    p.se.owner = &p;
    p.se.custom_slice = custom_slice;
    p.set_nice(p.nice);
    p.sched_class = &class_for(p.policy);
    init_entity_runnable_average(p.se);
    class_of(p).task_fork(rq, p, nullptr);
    post_init_entity_util_avg(rq, p.se);
    p.state = task_state::running;
    activate_task(rq, p, ENQUEUE_INITIAL);
    check_preempt_curr(rq, p, WF_FORK);
}

void scheduler::sched_fork(task& child, unsigned this_cpu, nsec now, int into_cgroup) {
    calling_cpu_ = static_cast<int>(this_cpu);
    runqueue& rq = rqs_[this_cpu];
    update_rq_clock(rq, now);
    child.cpu = this_cpu;
    child.on_cpu = child.on_rq = false;
    // __sched_fork clears the entity but not custom_slice: a child keeps the slice its creator set
    // (only sched_reset_on_fork, not modelled, reverts it to the base slice).
    const nsec custom_slice = child.se.custom_slice;
    child.se = sched_entity{};
    child.se.owner = &child;
    child.se.custom_slice = custom_slice;
    child.stats = task_sched_stats{};
    child.set_nice(child.nice);
    child.sched_class = &class_for(child.policy);          // sched_fork: __setscheduler_prio
    if (into_cgroup >= 0) // clone3(CLONE_INTO_CGROUP): cgroup_css_set_fork takes the given cgroup
        child.cgroup = static_cast<group_id>(into_cgroup);
    else if (!rq.curr->is_idle) // cgroup_fork: the parent's css_set
        child.cgroup = rq.curr->cgroup;
    init_entity_runnable_average(child.se);
    class_of(child).task_fork(rq, child, rq.curr->is_idle ? nullptr : rq.curr);
    if (trace_) trace_->sched_process_fork(this_cpu, now, *rq.curr, child);
}

unsigned scheduler::wake_up_new_task(task& child, unsigned this_cpu, nsec now) {
    calling_cpu_ = static_cast<int>(this_cpu);
    const unsigned cpu = class_of(child).select_task_rq(child, child.cpu, WF_FORK);
    const unsigned parent_cpu = child.cpu;
    child.cpu = cpu; // __set_task_cpu: not counted in nr_migrations
    if (cpu != parent_cpu) hooks_.task_migrated(child, parent_cpu, cpu, migration_cause::fork);
    child.state = task_state::running;
    runqueue& rq = rqs_[cpu];
    update_rq_clock(rq, now);
    post_init_entity_util_avg(rq, child.se);
    activate_task(rq, child, ENQUEUE_INITIAL);
    if (trace_) trace_->sched_wakeup(this_cpu, now, child, true);
    check_preempt_curr(rq, child, WF_FORK);
    return cpu;
}

unsigned scheduler::sched_exec(unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    runqueue& rq = rqs_[cpu];
    update_rq_clock(rq, now);
    task& p = *rq.curr;
    assert(!p.is_idle);
    const unsigned dest = class_of(p).select_task_rq(p, p.cpu, WF_EXEC);
    if (dest == cpu) return cpu;
    // stop_one_cpu(task_cpu(p), migration_cpu_stop): the stopper preempts p and moves it while queued.
    rq.exec_push = &p;
    rq.exec_cpu = dest;
    resched_curr(rq);
    return dest;
}

wakeup_result scheduler::try_to_wake_up(task& p, unsigned this_cpu, unsigned wake_flags, nsec now) {
    calling_cpu_ = static_cast<int>(this_cpu);
    rt_rq_reads_.clear();
    wakeup_result r;
    if (p.state != task_state::sleeping) return r;
    r.woken = true;
    if (trace_) trace_->sched_waking(this_cpu, now, p);
    p.stats.sleep_max = std::max(p.stats.sleep_max, now - std::min(now, p.stats.sleep_start));
    unsigned cpu = p.cpu;
    if (p.on_rq) { // ttwu_runnable: still queued (delayed dequeue), wakes where it is
        runqueue& rq = rqs_[cpu];
        update_rq_clock(rq, now);
        p.state = task_state::running;
        if (p.se.sched_delayed) class_of(p).enqueue_task(rq, p, ENQUEUE_DELAYED);
        if (!p.on_cpu) {
            p.stats.wait_start = rq.clock;
            check_preempt_curr(rq, p, wake_flags);
        }
        r.queued = true;
    } else {
        probed_.clear();
        const unsigned prev_cpu = p.cpu;
        cpu = class_of(p).select_task_rq(p, prev_cpu, wake_flags | WF_TTWU);
        r.probed = &probed_;
        if (cpu != p.cpu) {
            wake_flags |= WF_MIGRATED;
            class_of(p).migrate_task_rq(p, cpu);
            set_task_cpu(p, cpu, migration_cause::wakeup);
            r.migrated = true;
        }
        p.state = task_state::running;
        runqueue& rq = rqs_[cpu];
        update_rq_clock(rq, now);
        // ttwu_queue: across LLCs, or to an idle CPU (TTWU_QUEUE_IDLE, v6.0+), through the wake list.
        r.via_wake_list = cfg_.features[feature::TTWU_QUEUE] && cpu != this_cpu &&
                          (!domains_.cpus_share_cache(cpu, this_cpu) ||
                           (cfg_.features[feature::TTWU_QUEUE_IDLE] && rq.is_idle()));
        fair_->placement().cpu_woken_from_idle(cpu, now);
        activate_task(rq, p, ENQUEUE_WAKEUP | (r.migrated ? ENQUEUE_MIGRATED : 0u));
        check_preempt_curr(rq, p, wake_flags);
        class_of(p).task_woken(rq, p);
    }
    r.cpu = cpu;
    if (trace_) trace_->sched_wakeup(r.via_wake_list ? cpu : this_cpu, now, p, false); // ttwu_do_activate
    // ttwu_stat, counted on the waker's run queue.
    runqueue& this_rq = rqs_[this_cpu];
    ++this_rq.stats.ttwu_count;
    ++p.stats.nr_wakeups;
    if (cpu == this_cpu) {
        ++this_rq.stats.ttwu_local;
        ++p.stats.nr_wakeups_local;
    } else {
        ++p.stats.nr_wakeups_remote;
        for (sched_domain& sd : domains_.domains(this_cpu)) // the lowest domain spanning the target
            if (sd.contains(cpu)) {
                ++sd.stats.ttwu_wake_remote;
                break;
            }
    }
    if (wake_flags & WF_SYNC) ++p.stats.nr_wakeups_sync;
    if (wake_flags & WF_MIGRATED) ++p.stats.nr_wakeups_migrate;
    return r;
}

bool scheduler::fair_served(const runqueue& rq) const {
    // The fair server runs the CPU's fair tasks as a deadline entity: RT work waits.
    return dl_->serving(rq) && &class_of(*rq.curr) == fair_.get();
}

task& scheduler::pick_next_task(runqueue& rq, task* prev) {
    // prev_balance: from prev's class down, until a class says a task of it or above is runnable. An
    // idle prev starts at the fair class: pick_next_task_fair, which the kernel's fast path calls for
    // an idle prev, runs the newidle balance itself when it finds no task.
    // With a policy loaded the balance starts no lower than ext, which must run before every pick
    // (scx's prev_balance), and an idle prev starts there.
    const bool ext_on = ext_enabled();
    std::size_t start = ext_on ? class_index(*ext_) : class_index(*fair_);
    if (prev && !prev->is_idle)
        start = ext_on ? std::min(start, class_index(class_of(*prev))) : class_index(class_of(*prev));
    for (std::size_t i = start; i + 1 < classes_.size(); ++i)
        if (classes_[i]->balance(rq, prev)) break;
    for (sched_class* c : classes_) // for_each_class: the first class with a task
        if (task* p = c->pick_next_task(rq, prev)) return *p;
    return *rq.idle; // unreachable: the idle class always has its task
}

void scheduler::sched_info_depart(runqueue& rq, task& p) {
    const nsec ran = rq.clock - std::min(rq.clock, p.stats.last_arrival);
    rq.stats.rq_cpu_time += ran;
    if (p.state == task_state::running) p.stats.wait_start = rq.clock; // preempted: waits again
}

void scheduler::sched_info_arrive(runqueue& rq, task& p) {
    const nsec delay = rq.clock - std::min(rq.clock, p.stats.wait_start);
    p.stats.run_delay += delay;
    p.stats.wait_max = std::max(p.stats.wait_max, delay);
    ++p.stats.wait_count;
    ++p.stats.pcount;
    p.stats.last_arrival = rq.clock;
    rq.stats.run_delay += delay;
    ++rq.stats.pcount;
}

task& scheduler::schedule(unsigned cpu, bool preempt, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    rt_rq_reads_.clear();
    runqueue& rq = rqs_[cpu];
    update_rq_clock(rq, now);
    task* prevp = rq.curr;
    const bool was_idle = prevp->is_idle;
    ++rq.stats.sched_count;
    const bool blocking = !preempt && !prevp->is_idle && prevp->state != task_state::running;
    if (blocking) {
        prevp->stats.sleep_start = rq.clock;
        // A sleeper may stay queued (EEVDF delayed dequeue); an exiting task never does.
        const unsigned special = prevp->state == task_state::dead ? DEQUEUE_SPECIAL : 0u;
        class_of(*prevp).dequeue_task(rq, *prevp, DEQUEUE_SLEEP | special);
        if (trace_ && special) trace_->sched_process_exit(cpu, now, *prevp);
    }
    if (rq.active_balance) prevp = &run_stopper(rq, *prevp, blocking); // the stopper class runs first
    if (rq.exec_push) {                                                // sched_exec's migration_cpu_stop
        task& p = *rq.exec_push;
        rq.exec_push = nullptr;
        if (!prevp->is_idle) switch_to_stopper(rq, *prevp, blocking);
        prevp = rq.idle;
        if (p.on_rq && p.cpu == cpu && !p.on_cpu && p.allowed_on(rq.exec_cpu)) { // move_queued_task
            detach_task(p, rq.exec_cpu, migration_cause::exec);
            attach_task(p);
            ++rq.balance_migrations;
        }
    }
    task& prev = *prevp;
    if (bandwidth_.active()) bandwidth_.check_prev(rq, prev); // check_cfs_rq_runtime at put_prev
    if (fair_server_) fair_server_->update(rq);
    task& next = pick_next_task(rq, &prev);
    if (bandwidth_.active()) bandwidth_.picked(rq, next);
    // Cleared after the pick, as __schedule does (clear_tsk_need_resched(prev) follows
    // pick_next_task): a resched the pick's own update_curr asks for is already being served.
    rq.need_resched = false;
    if (&next != &prev) {
        if (&class_of(prev) == fair_.get() && &class_of(next) == fair_.get()) {
            fair_->switch_tasks(rq, prev, next); // below their common group only
        } else {
            class_of(prev).put_prev_task(rq, prev);
            class_of(next).set_next_task(rq, next);
        }
        // The kernel puts prev inside pick_next_task, before clearing NEED_RESCHED: a resched that
        // put_prev's accounting asks for (a queue the pick did not walk, e.g. a throttled group's)
        // is served by this switch too.
        rq.need_resched = false;
        ++rq.nr_switches;
        ++prev.stats.nr_switches;
        if (trace_) trace_->sched_switch(cpu, now, !blocking, prev, next);
        if (!prev.is_idle) {
            if (blocking)
                ++prev.stats.nr_voluntary_switches;
            else
                ++prev.stats.nr_involuntary_switches;
            sched_info_depart(rq, prev);
        }
        if (!next.is_idle) sched_info_arrive(rq, next);
        prev.on_cpu = false;
        next.on_cpu = true;
        rq.curr = &next;
        next.cpu = cpu;
        class_of(next).balance_callback(rq, next); // RT: push the other queued tasks away
    }
    if (ext_ && next.is_idle != was_idle) ext_->update_idle(cpu, next.is_idle);
    if (next.is_idle) {
        ++rq.stats.sched_goidle;
        if (!was_idle) {
            fair_->placement().cpu_enters_idle(cpu, rq.clock);
            fair_->balancing().nohz_balance_enter_idle(cpu); // NO_HZ_IDLE: the tick stops
        }
    }
    return next;
}

void scheduler::switch_to_stopper(runqueue& rq, task& prev, bool blocking) {
    class_of(prev).put_prev_task(rq, prev);
    ++rq.nr_switches;
    ++prev.stats.nr_switches;
    if (trace_) trace_->sched_switch(rq.cpu, rq.clock, !blocking, prev, *rq.idle); // to the stopper
    if (blocking)
        ++prev.stats.nr_voluntary_switches;
    else
        ++prev.stats.nr_involuntary_switches;
    sched_info_depart(rq, prev);
    prev.on_cpu = false;
    rq.idle->on_cpu = true;
    rq.curr = rq.idle;
    ++rq.balance_switches; // the switch to the stopper; the kernel charges the one away from it
}

task& scheduler::run_stopper(runqueue& rq, task& prev, bool blocking) {
    if (!prev.is_idle) switch_to_stopper(rq, prev, blocking); // the stopper (idle stands for it) is current
    fair_->balancer().active_load_balance_cpu_stop(rq.cpu, rq.clock);
    return *rq.idle;
}

void scheduler::nohz_idle_balance(unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    update_rq_clock(rqs_[cpu], now);
    fair_->balancing().nohz_csd(cpu, now);
}

scheduler::balance_work scheduler::take_balance_work(unsigned cpu) {
    runqueue& rq = rqs_[cpu];
    const balance_work w{rq.balance_cost_ns, rq.balance_migrations, rq.balance_switches};
    rq.balance_cost_ns = 0;
    rq.balance_migrations = rq.balance_switches = 0;
    return w;
}

void scheduler::account_irq_time(unsigned cpu, nsec time) {
    task& curr = *rqs_[cpu].curr;
    if (!curr.is_idle) curr.se.exec_start += time; // rq_clock_task skips it
}

void scheduler::set_capacity_pressure(unsigned cpu, unsigned long lost) {
    runqueue& rq = rqs_[cpu];
    rq.capacity_pressure = lost;
    // update_cpu_capacity() for this CPU now; the groups above see it when their CPUs next balance.
    if (sched_domain* sd = domains_.base(cpu))
        fair_->balancer().update_group_capacity(*sd, cpu, cfg_.jiffies(rq.clock));
    else
        rq.cpu_capacity = lost >= SCHED_CAPACITY_SCALE ? 1 : SCHED_CAPACITY_SCALE - lost;
}

void scheduler::account_wakeup_scan(unsigned this_cpu, nsec time) {
    fair_->placement().account_scan(this_cpu, time);
}

nsec scheduler::rt_period_expiry(unsigned cpu) const {
    const rt_rq& rt = rqs_[cpu].rt;
    if (!rt.rt_throttled || rt.rt_nr_running == 0) return 0;
    return rt_->bandwidth_next_period();
}

void scheduler::rt_period_timer(unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    runqueue& rq = rqs_[cpu];
    update_rq_clock(rq, now);
    rt_->bandwidth().period_timer(rq.clock);
}

void scheduler::scheduler_tick(unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    runqueue& rq = rqs_[cpu];
    update_rq_clock(rq, now);
    if (trace_) trace_->sched_tick(cpu, now);
    if (ext_ && policy_exit_.failed() && !policy_exit_.ejected) disable_policy(cpu, now); // not run yet
    if (fair_server_) fair_server_->update(rq);
    rt_->bandwidth().period_timer(rq.clock); // the RT period hrtimer, at tick granularity
    if (bandwidth_.active() && rq.clock >= bandwidth_.next_timer()) bandwidth_.run_timers(cpu, rq.clock);
    if (bandwidth_.csd_pending(cpu)) bandwidth_.run_csd(cpu, rq.clock);
    class_of(*rq.curr).task_tick(rq, *rq.curr);
    fair_->balancing().trigger_load_balance(rq, now);
}

void scheduler::cfsb_csd(unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    update_rq_clock(rqs_[cpu], now);
    bandwidth_.run_csd(cpu, rqs_[cpu].clock);
}

void scheduler::sched_timer(unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    update_rq_clock(rqs_[cpu], now);
    bandwidth_.run_timers(cpu, rqs_[cpu].clock);
    if (ext_) ext_->watchdog_timer(rqs_[cpu].clock);
}

void scheduler::return_to_user(unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    runqueue& rq = rqs_[cpu];
    update_rq_clock(rq, now);
    task& p = *rq.curr;
    if (p.is_idle || !p.throttle_work) return;
    bandwidth_.return_to_user(rq, p);
}

void scheduler::set_cgroups(const cgroup_tree& tree) {
    groups_.build(tree);
    bandwidth_.build();
    fair_->set_groups(groups_.enabled());
}

const group_sched* scheduler::group_rq(unsigned cpu, group_id g) const {
    return fair_->group_rq(cpu, g);
}

std::int64_t scheduler::tg_load_avg(group_id g) const {
    return fair_->tg_load_avg(g);
}

void scheduler::attach_task(task& p, group_id g, nsec now) {
    if (g >= groups_.size())
        throw std::invalid_argument("cgroup.procs: group " + std::to_string(g) + " does not exist");
    if (p.cgroup == g) return;
    runqueue& rq = rqs_[p.cpu];
    update_rq_clock(rq, now);
    if (&class_of(p) != fair_.get() || (!p.on_rq && !p.se.avg.attached)) { // nothing of it on a fair queue
        p.cgroup = g;
        return;
    }
    if (p.throttled) return bandwidth_.move_parked(rq, p, g); // off its limbo list, enqueued afresh
    // sched_move_task: off its old group's queue and onto the new one's, keeping its place (in a
    // throttled hierarchy it waits there).
    fair_->move_task_group(rq, p, g);
}

cgroup_cpu_stat scheduler::cpu_stat(group_id g, nsec now) const {
    (void)now;
    cgroup_cpu_stat st;
    if (g >= groups_.size()) return st;
    st.usage_ns = groups_[g].usage_ns;
    if (const cfs_bandwidth* b = bandwidth_.pool(g)) {
        st.nr_periods = b->nr_periods;
        st.nr_throttled = b->nr_throttled;
        st.throttled_ns = b->throttled_time;
        st.nr_bursts = b->nr_burst;
        st.burst_ns = b->burst_time;
    }
    return st;
}

void scheduler::yield(unsigned cpu, nsec now) {
    calling_cpu_ = static_cast<int>(cpu);
    runqueue& rq = rqs_[cpu];
    update_rq_clock(rq, now);
    ++rq.stats.yld_count;
    class_of(*rq.curr).yield_task(rq);
}

} // namespace warmsched::scheduler
