// The scheduler's events as ftrace records them; see sched_event_log.h.
#include "sim/outputs/sched_event_log.h"

#include <algorithm>

namespace warmsched::sim {
namespace {
using scheduler::nsec;
using scheduler::task;

// comm as the trace prints it: at most 15 characters, no spaces or '=' (they would break the text
// format's key=value payloads).
std::string comm_of(const task& t, unsigned cpu) {
    if (t.is_idle) return "swapper/" + std::to_string(cpu);
    std::string c = t.comm.substr(0, 15);
    for (char& ch : c)
        if (ch == ' ' || ch == '=') ch = '_';
    return c.empty() ? std::string("<...>") : c;
}

// `t` as an event's fields name it; `cpu` names an idle task (swapper/<cpu>).
sched_event_log::traced_task traced(const task& t, unsigned cpu) {
    return {t.is_idle ? 0 : t.pid, t.is_idle ? 0 : t.tgid, t.is_idle ? 120 : t.prio(), comm_of(t, cpu)};
}

sched_event_log::prev_state state_of(const task& prev, bool preempt) {
    using s = sched_event_log::prev_state;
    if (prev.is_idle) return s::runnable;
    switch (prev.state) {
    case scheduler::task_state::sleeping:
        return s::sleeping;
    case scheduler::task_state::dead:
        return s::dead;
    default:
        return preempt ? s::preempted : s::runnable;
    }
}
} // namespace

sched_event_log::sched_event_log(const scheduler::scheduler& s, models::machine& m,
                                 const trace_settings& settings)
    : s_(s), settings_(settings), num_cpus_(s.num_cpus()),
      sampler_(m, num_cpus_, settings.start_ns, settings.counter_interval_ns) {}

sched_event_log::event& sched_event_log::record(unsigned cpu, nsec t, kind what) {
    event& e = events_.emplace_back();
    e.t = t;
    e.seq = events_.size() - 1;
    e.cpu = cpu;
    e.what = what;
    e.current = traced(*s_.rq(cpu).curr, cpu);
    return e;
}

void sched_event_log::sched_switch(unsigned cpu, nsec now, bool preempt, const task& prev, const task& next) {
    if (in_window(now)) {
        event& e = record(cpu, now, kind::sched_switch); // the running task is prev (curr changes after)
        e.task = traced(prev, cpu);
        e.other = traced(next, cpu);
        e.state = state_of(prev, preempt);
    }
    sample_counters(cpu, now);
}

void sched_event_log::sched_waking(unsigned cpu, nsec now, const task& p) {
    waking_ = &p;
    waking_now_ = now;
    if (!in_window(now)) return;
    event& e = record(cpu, now, kind::sched_waking);
    e.task = traced(p, p.cpu);
    e.target_cpu = p.cpu;
}

void sched_event_log::sched_wakeup(unsigned cpu, nsec now, const task& p, bool is_new) {
    waking_ = nullptr;
    if (!in_window(now)) return;
    event& e = record(cpu, now, is_new ? kind::sched_wakeup_new : kind::sched_wakeup);
    e.task = traced(p, p.cpu);
    e.target_cpu = p.cpu;
}

void sched_event_log::sched_migrate_task(unsigned cpu, nsec now, const task& p, unsigned orig,
                                         unsigned dest) {
    if (&p == waking_) now = waking_now_;
    if (!in_window(now)) return;
    event& e = record(cpu, now, kind::sched_migrate_task);
    e.task = traced(p, orig);
    e.target_cpu = orig;
    e.dest_cpu = dest;
}

void sched_event_log::sched_process_fork(unsigned cpu, nsec now, const task& parent, const task& child) {
    if (!in_window(now)) return;
    event& e = record(cpu, now, kind::sched_process_fork);
    e.task = traced(parent, cpu);
    e.other = traced(child, cpu); // a copy of its parent: it carries the parent's comm until it execs
}

void sched_event_log::sched_process_exit(unsigned cpu, nsec now, const task& p) {
    if (!in_window(now)) return;
    record(cpu, now, kind::sched_process_exit).task = traced(p, cpu);
}

void sched_event_log::sched_tick(unsigned cpu, nsec now) {
    sample_counters(cpu, now);
}

void sched_event_log::sample_counters(unsigned cpu, nsec t) {
    if (!in_window(t)) return;
    const auto d = sampler_.sample(cpu, t);
    if (!d) return;
    event& l1 = record(cpu, t, kind::counter);
    l1.counter = "L1d misses";
    l1.value = d->l1d;
    event& l3 = record(cpu, t, kind::counter);
    l3.counter = "L3 misses";
    l3.value = d->l3;
}

std::vector<const sched_event_log::event*> sched_event_log::in_time_order() const {
    std::vector<const event*> order;
    order.reserve(events_.size());
    for (const auto& e : events_) order.push_back(&e);
    std::sort(order.begin(), order.end(),
              [](const event* a, const event* b) { return a->t != b->t ? a->t < b->t : a->seq < b->seq; });
    return order;
}

} // namespace warmsched::sim
