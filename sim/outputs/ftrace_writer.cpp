// ftrace text writer; see ftrace_writer.h.
#include "sim/outputs/ftrace_writer.h"

#include <algorithm>
#include <cstdio>

namespace warmsched::sim {
namespace {
using models::mem_source;
using scheduler::nsec;
using scheduler::task;

// comm as the trace prints it: at most 15 characters, no spaces or '=' (they would break the
// key=value payloads).
std::string comm_of(const task& t, unsigned cpu) {
    if (t.is_idle) return "swapper/" + std::to_string(cpu);
    std::string c = t.comm.substr(0, 15);
    for (char& ch : c)
        if (ch == ' ' || ch == '=') ch = '_';
    return c.empty() ? std::string("<...>") : c;
}

int prio_of(const task& t) {
    return t.is_idle ? 120 : t.prio();
}

const char* prev_state(const task& prev, bool preempt) {
    if (prev.is_idle) return "R";
    switch (prev.state) {
    case scheduler::task_state::sleeping:
        return "S";
    case scheduler::task_state::dead:
        return "X";
    default:
        return preempt ? "R+" : "R";
    }
}

std::string wake_payload(const task& p, unsigned target) {
    char b[96];
    std::snprintf(b, sizeof b, " pid=%d prio=%d target_cpu=%03u", p.pid, prio_of(p), target);
    return "comm=" + comm_of(p, target) + b;
}
} // namespace

ftrace_writer::ftrace_writer(const scheduler::scheduler& s, models::machine& m,
                             const trace_settings& settings)
    : s_(s), m_(m), settings_(settings), next_sample_(s.num_cpus(), settings.start_ns),
      last_l1d_misses_(s.num_cpus(), 0), last_llc_misses_(s.num_cpus(), 0) {}

void ftrace_writer::emit(unsigned cpu, nsec t, const char* flags, const char* name,
                         const std::string& payload) {
    const task& cur = *s_.rq(cpu).curr;
    char b[160];
    char tgid[16];
    if (cur.is_idle)
        std::snprintf(tgid, sizeof tgid, "-------");
    else
        std::snprintf(tgid, sizeof tgid, "%7d", cur.tgid);
    std::snprintf(b, sizeof b, "%16s-%-7d (%s) [%03u] %s %5llu.%09llu: %s: ",
                  cur.is_idle ? "<idle>" : comm_of(cur, cpu).c_str(), cur.is_idle ? 0 : cur.pid, tgid, cpu,
                  flags, static_cast<unsigned long long>(t / 1'000'000'000ull),
                  static_cast<unsigned long long>(t % 1'000'000'000ull), name);
    events_.push_back({t, seq_++, std::string(b) + payload + "\n"});
}

void ftrace_writer::sched_switch(unsigned cpu, nsec now, bool preempt, const task& prev, const task& next) {
    if (in_window(now)) {
        char b[320];
        std::snprintf(b, sizeof b,
                      "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d "
                      "next_prio=%d",
                      comm_of(prev, cpu).c_str(), prev.is_idle ? 0 : prev.pid, prio_of(prev),
                      prev_state(prev, preempt), comm_of(next, cpu).c_str(), next.is_idle ? 0 : next.pid,
                      prio_of(next));
        emit(cpu, now, "d..2.", "sched_switch", b); // the line's task is prev (curr changes after)
    }
    sample_counters(cpu, now);
}

void ftrace_writer::sched_waking(unsigned cpu, nsec now, const task& p) {
    waking_ = &p;
    waking_now_ = now;
    if (in_window(now)) emit(cpu, now, "d..3.", "sched_waking", wake_payload(p, p.cpu));
}

void ftrace_writer::sched_wakeup(unsigned cpu, nsec now, const task& p, bool is_new) {
    waking_ = nullptr;
    if (in_window(now))
        emit(cpu, now, "d..3.", is_new ? "sched_wakeup_new" : "sched_wakeup", wake_payload(p, p.cpu));
}

void ftrace_writer::sched_migrate_task(unsigned cpu, nsec now, const task& p, unsigned orig, unsigned dest) {
    if (&p == waking_) now = waking_now_;
    if (!in_window(now)) return;
    char b[160];
    std::snprintf(b, sizeof b, "comm=%s pid=%d prio=%d orig_cpu=%u dest_cpu=%u", comm_of(p, orig).c_str(),
                  p.pid, prio_of(p), orig, dest);
    emit(cpu, now, "d..3.", "sched_migrate_task", b);
}

void ftrace_writer::sched_process_fork(unsigned cpu, nsec now, const task& parent, const task& child) {
    if (!in_window(now)) return;
    char b[160];
    // The child is a copy of its parent: it carries the parent's comm until it execs.
    std::snprintf(b, sizeof b, "comm=%s pid=%d child_comm=%s child_pid=%d", comm_of(parent, cpu).c_str(),
                  parent.is_idle ? 0 : parent.pid, comm_of(child, cpu).c_str(), child.pid);
    emit(cpu, now, ".....", "sched_process_fork", b);
}

void ftrace_writer::sched_process_exit(unsigned cpu, nsec now, const task& p) {
    if (!in_window(now)) return;
    char b[128];
    std::snprintf(b, sizeof b, "comm=%s pid=%d prio=%d", comm_of(p, cpu).c_str(), p.pid, prio_of(p));
    emit(cpu, now, ".....", "sched_process_exit", b);
}

void ftrace_writer::sched_tick(unsigned cpu, nsec now) {
    sample_counters(cpu, now);
}

void ftrace_writer::sample_counters(unsigned cpu, nsec t) {
    if (t < next_sample_[cpu] || !in_window(t)) return;
    next_sample_[cpu] = (t / settings_.counter_interval_ns + 1) * settings_.counter_interval_ns;
    const auto& a = m_.cpu(cpu).stats().accesses;
    auto at = [&](mem_source s) { return a[static_cast<int>(s)]; };
    std::uint64_t total = 0;
    for (auto n : a) total += n;
    const std::uint64_t l1d = total - at(mem_source::l1);
    const std::uint64_t llc = at(mem_source::remote_llc) + at(mem_source::remote_socket) +
                              at(mem_source::local_memory) + at(mem_source::remote_memory);
    char b[96];
    std::snprintf(b, sizeof b, "C|0|cpu%u L1d misses|%llu", cpu,
                  static_cast<unsigned long long>(l1d - last_l1d_misses_[cpu]));
    emit(cpu, t, ".....", "tracing_mark_write", b);
    std::snprintf(b, sizeof b, "C|0|cpu%u L3 misses|%llu", cpu,
                  static_cast<unsigned long long>(llc - last_llc_misses_[cpu]));
    emit(cpu, t, ".....", "tracing_mark_write", b);
    last_l1d_misses_[cpu] = l1d;
    last_llc_misses_[cpu] = llc;
}

void ftrace_writer::write(std::ostream& out) const {
    std::vector<const event*> order;
    order.reserve(events_.size());
    for (const auto& e : events_) order.push_back(&e);
    std::sort(order.begin(), order.end(),
              [](const event* a, const event* b) { return a->t != b->t ? a->t < b->t : a->seq < b->seq; });
    out << "# tracer: nop\n#\n# entries-in-buffer/entries-written: " << events_.size() << "/"
        << events_.size() << "   #P:" << s_.num_cpus() << "\n"
        << "#\n"
           "#                                _-----=> irqs-off/BH-disabled\n"
           "#                               / _----=> need-resched\n"
           "#                              | / _---=> hardirq/softirq\n"
           "#                              || / _--=> preempt-depth\n"
           "#                              ||| / _-=> migrate-disable\n"
           "#                              |||| /     delay\n"
           "#           TASK-PID     TGID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
           "#              | |         |        |   |||||     |         |\n";
    for (const event* e : order) out << e->line;
}

} // namespace warmsched::sim
