// The run as a timeline; see sched_timeline.h.
#include "sim/outputs/sched_timeline.h"

#include <algorithm>

namespace warmsched::sim {

using scheduler::nsec;
using scheduler::task;

const char* sched_timeline::distance_name(int d) {
    static const char* names[] = {"SMT sibling", "same LLC", "other LLC", "other node"};
    return d >= 0 && d < 4 ? names[d] : "?";
}

sched_timeline::sched_timeline(const scheduler::scheduler& s, models::machine& m,
                               const trace_settings& settings)
    : s_(s), settings_(settings), num_cpus_(s.num_cpus()),
      sampler_(m, num_cpus_, settings.start_ns, settings.counter_interval_ns), running_pid_(num_cpus_, 0),
      running_tgid_(num_cpus_, 0), running_since_(num_cpus_, 0), last_level_(num_cpus_, -1) {
    names_[0] = "swapper";
    tgids_[0] = 0;
}

void sched_timeline::name(const task& t) {
    if (t.is_idle) return;
    std::string c = t.comm.substr(0, 15);
    for (char& ch : c)
        if (ch == ' ' || ch == '=') ch = '_';
    names_[t.pid] = c.empty() ? std::string("<...>") : c;
    tgids_[t.pid] = t.tgid;
}

void sched_timeline::close(unsigned cpu, nsec t) {
    if (running_pid_[cpu] == 0) return;
    const nsec a = std::max(running_since_[cpu], settings_.start_ns);
    const nsec b = settings_.end_ns ? std::min(t, settings_.end_ns) : t;
    if (b > a) slices_.push_back({cpu, a, b, running_pid_[cpu], running_tgid_[cpu]});
}

void sched_timeline::note_level(unsigned cpu, nsec t) {
    if (cpu >= num_cpus_ || !in_window(t)) return;
    const int n = static_cast<int>(s_.rq(cpu).nr_running);
    if (n == last_level_[cpu]) return;
    last_level_[cpu] = n;
    levels_.push_back({t, cpu, static_cast<unsigned>(n)});
}

void sched_timeline::sample(unsigned cpu, nsec t) {
    if (!in_window(t)) return;
    if (const auto d = sampler_.sample(cpu, t)) samples_.push_back({t, cpu, d->l1d, d->l2, d->l3, d->accesses});
}

void sched_timeline::sched_switch(unsigned cpu, nsec now, bool, const task& prev, const task& next) {
    name(prev);
    name(next);
    close(cpu, now);
    running_pid_[cpu] = next.is_idle ? 0 : next.pid;
    running_tgid_[cpu] = next.is_idle ? 0 : next.tgid;
    running_since_[cpu] = now;
    note_level(cpu, now);
    sample(cpu, now);
}

void sched_timeline::sched_waking(unsigned, nsec now, const task& p) {
    waking_ = &p;
    waking_now_ = now;
}

void sched_timeline::sched_wakeup(unsigned, nsec now, const task& p, bool) {
    waking_ = nullptr;
    name(p);
    note_level(p.cpu, now);
}

void sched_timeline::sched_migrate_task(unsigned, nsec now, const task& p, unsigned orig, unsigned dest) {
    if (&p == waking_) now = waking_now_; // as trace.txt: a wakeup's move carries the wakeup's time
    name(p);
    if (!in_window(now)) return;
    const auto& l = s_.layout();
    const int d = l.core_of[orig] == l.core_of[dest]   ? 0
                  : l.llc_of[orig] == l.llc_of[dest]   ? 1
                  : l.node_of[orig] == l.node_of[dest] ? 2
                                                       : 3;
    migrations_.push_back({now, p.pid, orig, dest, d});
    note_level(orig, now);
    note_level(dest, now);
}

void sched_timeline::sched_process_fork(unsigned cpu, nsec now, const task& parent, const task& child) {
    name(parent);
    name(child);
    note_level(cpu, now);
}

void sched_timeline::sched_process_exit(unsigned cpu, nsec now, const task& p) {
    name(p);
    note_level(cpu, now);
}

void sched_timeline::sched_tick(unsigned cpu, nsec now) {
    note_level(cpu, now);
    sample(cpu, now);
}

void sched_timeline::finish(nsec end) {
    for (unsigned c = 0; c < num_cpus_; ++c) {
        close(c, end);
        running_pid_[c] = 0;
    }
    end_ = settings_.end_ns ? std::min(end, settings_.end_ns) : end;
    // CPUs run ahead of each other within the quantum: the events arrive out of global time order.
    std::stable_sort(slices_.begin(), slices_.end(),
                     [](const slice& a, const slice& b) { return a.start < b.start; });
    std::stable_sort(levels_.begin(), levels_.end(),
                     [](const level& a, const level& b) { return a.t < b.t; });
    std::stable_sort(samples_.begin(), samples_.end(),
                     [](const misses& a, const misses& b) { return a.t < b.t; });
    std::stable_sort(migrations_.begin(), migrations_.end(),
                     [](const migration& a, const migration& b) { return a.t < b.t; });
}

} // namespace warmsched::sim
