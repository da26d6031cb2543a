// The real-time class; see rt_class.h.
#include "scheduler/rt/rt_class.h"

#include "scheduler/core/scheduler.h"

#include <algorithm>

namespace warmsched::scheduler {

rt_class::rt_class(scheduler& core)
    : core_(core), tun_(core.config().rt),
      bw_(core, core.config().rt, core.config().features[feature::RT_RUNTIME_SHARE]),
      cpupri_(core.num_cpus()), placement_(core, cpupri_) {}

unsigned rt_class::rr_timeslice_ticks() const {
    const nsec tick = core_.config().tick_ns();
    return static_cast<unsigned>(std::max<nsec>(1, (tun_.rr_timeslice_ns() + tick - 1) / tick));
}

void rt_class::update_highest_prio(runqueue& rq) {
    const int prio = rq.rt.rt_nr_running ? rq.rt.active.first_prio() : MAX_RT_PRIO - 1;
    if (prio != rq.rt.highest_prio_curr) cpupri_.set(rq.cpu, prio);
    rq.rt.highest_prio_curr = prio;
}

void rt_class::update_curr(runqueue& rq) {
    task& curr = *rq.curr;
    if (curr.is_idle || !curr.is_rt() || rq.clock <= curr.se.exec_start) return;
    const nsec delta = rq.clock - curr.se.exec_start;
    curr.se.exec_start = rq.clock;
    curr.se.sum_exec_runtime += delta;
    curr.stats.exec_max = std::max(curr.stats.exec_max, delta);
    bw_.account(rq, delta);
}

void rt_class::enqueue_task(runqueue& rq, task& p, unsigned flags) {
    rt_rq& rt = rq.rt;
    rq.sub_nr_running(rt.unqueue_top());
    if (flags & ENQUEUE_HEAD)
        rt.active.push_head(p);
    else
        rt.active.push_tail(p);
    ++rt.rt_nr_running;
    update_highest_prio(rq);
    rq.add_nr_running(rt.queue_top());
    p.rt_on_rq = true;
    p.on_rq = true;
}

bool rt_class::dequeue_task(runqueue& rq, task& p, unsigned) {
    update_curr(rq);
    rt_rq& rt = rq.rt;
    rq.sub_nr_running(rt.unqueue_top());
    rt.active.remove(p);
    --rt.rt_nr_running;
    update_highest_prio(rq);
    rq.add_nr_running(rt.queue_top());
    p.rt_on_rq = false;
    p.on_rq = false;
    return true;
}

void rt_class::yield_task(runqueue& rq) {
    rq.rt.active.requeue(*rq.curr, false); // requeue_task_rt(rq, curr, 0): to the tail
}

void rt_class::check_preempt_curr(runqueue& rq, task& p, unsigned) {
    task& curr = *rq.curr;
    if (p.prio() < curr.prio()) {
        core_.resched_curr(rq);
        return;
    }
    if (p.prio() != curr.prio() || rq.need_resched) return;
    // check_preempt_equal_prio: only if curr could go elsewhere and p could not, p goes to the head of
    // its list and the CPU reschedules, so that the push after the pick moves curr away.
    const unsigned ncpus = core_.num_cpus();
    if (allowed_up_to_two(curr, ncpus) < 2 || placement_.lowest_mask(curr, rq.cpu).empty()) return;
    if (allowed_up_to_two(p, ncpus) > 1 && !placement_.lowest_mask(p, rq.cpu).empty()) return;
    rq.rt.active.requeue(p, true);
    core_.resched_curr(rq);
}

task* rt_class::pick_next_task(runqueue& rq, task*) {
    update_curr(rq); // put_prev_task's update_curr_rt, which may throttle the class
    if (!has_runnable(rq)) return nullptr;
    return rq.rt.active.first();
}

void rt_class::put_prev_task(runqueue& rq, task&) {
    update_curr(rq);
}

void rt_class::set_next_task(runqueue& rq, task& p) {
    p.se.exec_start = rq.clock;
    p.se.prev_sum_exec_runtime = p.se.sum_exec_runtime;
}

unsigned rt_class::select_task_rq(task& p, unsigned prev_cpu, unsigned wake_flags) {
    unsigned cpu = placement_.select(p, prev_cpu, wake_flags);
    if (!p.allowed_on(cpu)) {
        cpu = prev_cpu;
        for (unsigned c = 0; c < core_.num_cpus(); ++c)
            if (p.allowed_on(c)) {
                cpu = c;
                break;
            }
    }
    if (wake_flags & WF_TTWU) count_wakeup(prev_cpu, cpu);
    return cpu;
}

void rt_class::task_tick(runqueue& rq, task& p) {
    update_curr(rq);
    if (p.policy != sched_policy::rr) return;
    if (p.rt_time_slice > 1) {
        --p.rt_time_slice;
        return;
    }
    p.rt_time_slice = rr_timeslice_ticks();
    // Requeue to the tail only if it has peers on its priority's list.
    if (rq.rt.active.count(p.prio()) > 1) {
        rq.rt.active.requeue(p, false);
        core_.resched_curr(rq);
    }
}

void rt_class::task_fork(runqueue&, task& p, task*) {
    p.rt_time_slice = rr_timeslice_ticks();
}

void rt_class::switching_to(runqueue&, task& p) {
    if (!p.rt_time_slice) p.rt_time_slice = rr_timeslice_ticks();
}

void rt_class::migrate_task_rq(task& p, unsigned) {
    p.se.exec_start = 0;
}

task* rt_class::pick_next_pushable(const runqueue& rq) const {
    const unsigned ncpus = core_.num_cpus();
    for (int prio = rq.rt.active.first_prio(); prio < MAX_RT_PRIO; ++prio)
        for (task* p : rq.rt.active.list(prio))
            if (p != rq.curr && allowed_up_to_two(*p, ncpus) > 1) return p;
    return nullptr;
}

bool rt_class::push_rt_task(runqueue& rq) {
    if (!overloaded(rq)) return false;
    task* next = pick_next_pushable(rq);
    if (!next) return false;
    if (next->prio() < rq.curr->prio()) { // it should run here: just reschedule
        core_.resched_curr(rq);
        return false;
    }
    // The CPU whose code pushes: rq's after a pick, the waker's in task_woken_rt.
    const int calling = core_.calling_cpu();
    runqueue& here = calling >= 0 ? core_.rq(static_cast<unsigned>(calling)) : rq;
    constexpr int RT_MAX_TRIES = 3;
    for (int tries = 0; tries < RT_MAX_TRIES; ++tries) {
        const int target = placement_.find_lowest_rq(*next, here.cpu);
        if (target < 0 || static_cast<unsigned>(target) == rq.cpu) return false;
        core_.rt_rq_read(static_cast<unsigned>(target)); // locked and checked
        if (core_.rq(static_cast<unsigned>(target)).rt.highest_prio_curr <= next->prio()) continue;
        ++counters_.pushes;
        if (!core_.layout().share_cache(rq.cpu, static_cast<unsigned>(target))) ++counters_.pushes_cross_llc;
        core_.detach_task(*next, static_cast<unsigned>(target), migration_cause::rt_push);
        core_.attach_task(*next);
        ++here.balance_migrations; // the pushing CPU's work, charged like a balancer move
        return true;
    }
    return false;
}

void rt_class::push_rt_tasks(runqueue& rq) {
    while (push_rt_task(rq)) {
    }
}

void rt_class::task_woken(runqueue& rq, task& p) {
    const task& curr = *rq.curr;
    const unsigned ncpus = core_.num_cpus();
    if (!p.on_cpu && !rq.need_resched && allowed_up_to_two(p, ncpus) > 1 && !curr.is_idle && curr.is_rt() &&
        (allowed_up_to_two(curr, ncpus) < 2 || curr.prio() <= p.prio()))
        push_rt_tasks(rq);
}

bool rt_class::overloaded(const runqueue& rq) const {
    if (!core_.config().features[feature::RT_OVERLOAD_PUSH]) return rq.rt.rt_nr_running > 1;
    return rq.rt.rt_nr_running >= 2 && pick_next_pushable(rq) != nullptr;
}

void rt_class::pull_rt_task(runqueue& this_rq) {
    const unsigned ncpus = core_.num_cpus();
    if (ncpus < 2) return;
    const unsigned this_cpu = this_rq.cpu;
    // With the rto mask the puller reads only the overloaded CPUs' run queues, and only to pull from them
    // (rto_count == 0: none); without it, it reads every other CPU's run queue to learn its depth.
    const bool rto_mask = core_.config().features[feature::RT_OVERLOAD_PUSH];
    const bool push_ipi = core_.config().features[feature::RT_PUSH_IPI];
    const auto source = [&](unsigned c) {
        if (c == this_cpu) return false;
        if (!rto_mask) core_.rt_rq_read(c);
        if (!overloaded(core_.rq(c))) return false;
        if (rto_mask && !push_ipi) core_.rt_rq_read(c);
        return true;
    };
    if (push_ipi) {
        // tell_cpu_to_push: the IPI chain visits each overloaded CPU, which pushes its own tasks.
        for (unsigned c = 0; c < ncpus; ++c) {
            if (!source(c)) continue;
            core_.send_ipi(c);
            ++counters_.push_ipis;
            core_.set_calling_cpu(c);
            push_rt_tasks(core_.rq(c));
        }
        core_.set_calling_cpu(this_cpu);
        return;
    }
    bool resched = false;
    for (unsigned c = 0; c < ncpus; ++c) {
        if (!source(c)) continue;
        runqueue& src = core_.rq(c);
        const task* next = pick_next_pushable(src);
        if (!next || next->prio() >= this_rq.rt.highest_prio_curr) continue; // src.highest_prio.next
        // pick_highest_pushable_task(src, this_cpu): the best waiting task allowed here.
        task* p = nullptr;
        for (int prio = src.rt.active.first_prio(); prio < MAX_RT_PRIO && !p; ++prio)
            for (task* t : src.rt.active.list(prio))
                if (t != src.curr && t->allowed_on(this_cpu) && allowed_up_to_two(*t, ncpus) > 1) {
                    p = t;
                    break;
                }
        if (!p || p->prio() >= this_rq.rt.highest_prio_curr) continue;
        if (p->prio() < src.curr->prio()) continue; // it will preempt src's curr: leave it
        ++counters_.pulls;
        if (!core_.layout().share_cache(c, this_cpu)) ++counters_.pulls_cross_llc;
        core_.detach_task(*p, this_cpu, migration_cause::rt_pull);
        core_.attach_task(*p);
        ++this_rq.balance_migrations;
        resched = true;
    }
    if (resched) core_.resched_curr(this_rq);
}

rt_counters::where rt_class::where_is(unsigned from, unsigned to) const {
    const cpu_layout& l = core_.layout();
    if (from == to) return rt_counters::same_cpu;
    if (l.core_of[from] == l.core_of[to]) return rt_counters::same_core;
    if (l.llc_of[from] == l.llc_of[to]) return rt_counters::same_llc;
    if (l.socket_of[from] == l.socket_of[to]) return rt_counters::same_socket;
    return rt_counters::other_socket;
}

void rt_class::count_wakeup(unsigned prev, unsigned cpu) {
    ++counters_.wakeups;
    ++counters_.woke[where_is(prev, cpu)];
}

void rt_class::switched_to(runqueue& rq, task& p) {
    if (!p.on_rq || rq.curr == &p) return;
    core_.check_preempt_curr(rq, p, 0);
    if (overloaded(rq)) push_rt_tasks(rq);
}

void rt_class::switched_from(runqueue& rq, task& p) {
    if (!p.on_rq || rq.rt.rt_nr_running) return;
    pull_rt_task(rq);
}

void rt_class::prio_changed(runqueue& rq, task& p, int old_prio) {
    if (!p.on_rq) return;
    if (rq.curr == &p) {
        if (old_prio < p.prio()) pull_rt_task(rq); // its priority dropped: more urgent waiters come here
        if (p.prio() > rq.rt.highest_prio_curr) core_.resched_curr(rq);
    } else if (p.prio() < rq.curr->prio()) {
        core_.resched_curr(rq);
    }
}

bool rt_class::balance(runqueue& rq, task* prev) {
    // need_pull_rt_task: prev left the queue and nothing queued here is as urgent.
    if (prev && prev->is_rt() && !prev->rt_on_rq && rq.rt.highest_prio_curr > prev->prio()) pull_rt_task(rq);
    return has_runnable(rq);
}

} // namespace warmsched::scheduler
