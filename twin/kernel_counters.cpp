// Reading schedstat files and ftrace text; see kernel_counters.h.
#include "twin/kernel_counters.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace warmsched::twin {
namespace {

std::vector<std::uint64_t> numbers(std::istringstream& in) {
    std::vector<std::uint64_t> v;
    std::string w;
    while (in >> w) v.push_back(std::strtoull(w.c_str(), nullptr, 10));
    return v;
}

// The level of this name; a new one is appended (cpu0's domain lines come first, bottom-up, so the
// levels stay bottom-up).
domain_level_counters& level(schedstat_counters& c, const std::string& name) {
    for (auto& l : c.levels)
        if (l.name == name) return l;
    c.levels.push_back({});
    c.levels.back().name = name;
    return c.levels.back();
}

} // namespace

schedstat_counters parse_schedstat(const std::string& text,
                                   const std::function<std::string(unsigned, unsigned)>& level_name) {
    schedstat_counters c;
    std::istringstream in(text);
    std::string line;
    unsigned cpu = 0;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string head;
        ls >> head;
        if (head == "version") {
            ls >> c.version;
        } else if (head.rfind("cpu", 0) == 0) {
            cpu = static_cast<unsigned>(std::strtoul(head.c_str() + 3, nullptr, 10));
            ++c.cpus;
            const auto v = numbers(ls);
            if (v.size() < 9) throw std::runtime_error("a cpu line with " + std::to_string(v.size()) + " fields");
            c.sched_count += v[2];
            c.sched_goidle += v[3];
            c.ttwu_count += v[4];
            c.ttwu_local += v[5];
            c.rq_cpu_time_ns += v[6];
            c.run_delay_ns += v[7];
            c.pcount += v[8];
        } else if (head.rfind("domain", 0) == 0) {
            const unsigned index = static_cast<unsigned>(std::strtoul(head.c_str() + 6, nullptr, 10));
            std::string name;
            if (c.version >= 17) ls >> name;
            else
                name = level_name(cpu, index);
            std::string mask;
            ls >> mask;
            const auto v = numbers(ls);
            domain_level_counters& l = level(c, name);
            const unsigned per = c.version >= 17 ? 11 : 8;
            if (v.size() != 3 * per + 12)
                throw std::runtime_error("a domain line with " + std::to_string(v.size()) + " fields (version " +
                                         std::to_string(c.version) + ")");
            for (unsigned b = 0; b < 3; ++b) {
                // Version 15 orders the blocks idle, busy, newly idle; 16 and 17 busy, idle, newly idle.
                const idle_type t = c.version >= 16 ? (b == 0 ? lb_busy : b == 1 ? lb_idle : lb_newidle)
                                                    : static_cast<idle_type>(b);
                const std::uint64_t* f = v.data() + b * per;
                l.lb_count[t] += f[0];
                l.lb_balanced[t] += f[1];
                l.lb_failed[t] += f[2];
                l.lb_gained[t] += f[per == 11 ? 7 : 4];
            }
            const std::uint64_t* tail = v.data() + 3 * per;
            l.alb_count += tail[0];
            l.alb_pushed += tail[2];
            l.ttwu_wake_remote += tail[9];
            l.ttwu_move_affine += tail[10];
            l.ttwu_move_balance += tail[11];
        }
    }
    if (c.version != 15 && c.version != 16 && c.version != 17)
        throw std::runtime_error("not a /proc/schedstat of version 15, 16 or 17");
    return c;
}

schedstat_counters schedstat_delta(const schedstat_counters& e, const schedstat_counters& s) {
    schedstat_counters d = e;
    d.sched_count -= s.sched_count;
    d.sched_goidle -= s.sched_goidle;
    d.ttwu_count -= s.ttwu_count;
    d.ttwu_local -= s.ttwu_local;
    d.rq_cpu_time_ns -= s.rq_cpu_time_ns;
    d.run_delay_ns -= s.run_delay_ns;
    d.pcount -= s.pcount;
    for (auto& l : d.levels)
        for (const auto& b : s.levels)
            if (b.name == l.name) {
                for (int t = 0; t < 3; ++t) {
                    l.lb_count[t] -= b.lb_count[t];
                    l.lb_balanced[t] -= b.lb_balanced[t];
                    l.lb_failed[t] -= b.lb_failed[t];
                    l.lb_gained[t] -= b.lb_gained[t];
                }
                l.alb_count -= b.alb_count;
                l.alb_pushed -= b.alb_pushed;
                l.ttwu_wake_remote -= b.ttwu_wake_remote;
                l.ttwu_move_affine -= b.ttwu_move_affine;
                l.ttwu_move_balance -= b.ttwu_move_balance;
            }
    return d;
}

namespace {

void add_into(task_counters& t, const task_counters& c) {
    t.runtime_ns += c.runtime_ns;
    t.nvcsw += c.nvcsw;
    t.nivcsw += c.nivcsw;
    t.nivcsw_wakeup += c.nivcsw_wakeup;
    t.migrations += c.migrations;
    t.wakeups += c.wakeups;
    t.wakeups_remote += c.wakeups_remote;
    t.wakeups_idle += c.wakeups_idle;
    t.wakeups_away += c.wakeups_away;
    t.away_to_waker += c.away_to_waker;
    t.away_to_prev += c.away_to_prev;
    t.wakeup_preempts += c.wakeup_preempts;
}

template <class Pred> task_counters sum_if(const std::map<long, task_counters>& tasks, Pred keep) {
    task_counters t;
    for (const auto& [pid, c] : tasks)
        if (keep(c)) add_into(t, c);
    return t;
}

} // namespace

task_counters trace_counters::total() const {
    return sum_if(tasks, [](const task_counters&) { return true; });
}

task_counters trace_counters::total_of(bool rt) const {
    return sum_if(tasks, [rt](const task_counters& c) { return c.rt() == rt; });
}

bool trace_counters::has_rt() const {
    return std::any_of(tasks.begin(), tasks.end(), [](const auto& e) { return e.second.rt(); });
}

namespace {

// "key=value" in the fields of an event, up to the next blank.
std::string_view field(std::string_view fields, std::string_view key) {
    std::size_t p = 0;
    while ((p = fields.find(key, p)) != std::string_view::npos) {
        if ((p == 0 || fields[p - 1] == ' ') && p + key.size() < fields.size() && fields[p + key.size()] == '=') {
            const std::size_t b = p + key.size() + 1;
            const std::size_t e = fields.find(' ', b);
            return fields.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
        }
        p += key.size();
    }
    return {};
}

long to_long(std::string_view s) { return s.empty() ? -1 : std::strtol(std::string(s).c_str(), nullptr, 10); }

// "12.345678" seconds -> ns.
std::uint64_t to_ns(std::string_view s) {
    const std::size_t dot = s.find('.');
    std::uint64_t sec = std::strtoull(std::string(s.substr(0, dot)).c_str(), nullptr, 10), frac = 0;
    unsigned digits = 0;
    if (dot != std::string_view::npos)
        for (std::size_t i = dot + 1; i < s.size() && digits < 9; ++i, ++digits) frac = frac * 10 + (s[i] - '0');
    while (digits++ < 9) frac *= 10;
    return sec * 1'000'000'000ull + frac;
}

} // namespace

trace_counters parse_trace(const std::string& path, const std::string& root_parent_comm) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot read " + path);
    trace_counters tc;
    std::unordered_set<long> workload;     // pids of the workload's tasks
    std::unordered_map<unsigned, std::pair<long, std::uint64_t>> on_cpu; // cpu -> (pid, since)
    std::unordered_map<long, std::pair<unsigned, long>> waking; // pid -> its last waking's CPU and target_cpu
    std::unordered_map<long, long> root_of;                               // pid -> its workload root
    std::unordered_map<unsigned, std::unordered_set<long>> woken_onto;    // cpu -> woken there since its last switch
    const bool all = root_parent_comm.empty();
    auto member = [&](long pid) { return pid > 0 && (all || workload.count(pid)); };
    std::string line;
    bool first = true;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        const std::string_view l(line);
        // "<comm>-<pid> [(tgid)] [CPU] flags timestamp: event: fields"
        std::size_t lb = l.find(" [");
        while (lb != std::string_view::npos &&
               !(lb + 2 < l.size() && l[lb + 2] >= '0' && l[lb + 2] <= '9'))
            lb = l.find(" [", lb + 1);
        if (lb == std::string_view::npos) continue;
        const std::size_t rb = l.find(']', lb);
        if (rb == std::string_view::npos) continue;
        const unsigned cpu = static_cast<unsigned>(std::strtoul(std::string(l.substr(lb + 2, rb - lb - 2)).c_str(), nullptr, 10));
        const std::size_t colon = l.find(": ", rb);
        if (colon == std::string_view::npos) continue;
        std::size_t ts_begin = l.rfind(' ', colon);
        const std::uint64_t ts = to_ns(l.substr(ts_begin + 1, colon - ts_begin - 1));
        const std::size_t ev_end = l.find(": ", colon + 2);
        if (ev_end == std::string_view::npos) continue;
        const std::string_view event = l.substr(colon + 2, ev_end - colon - 2);
        const std::string_view fields = l.substr(ev_end + 2);
        if (first) tc.first_ns = ts, first = false;
        tc.last_ns = ts;
        ++tc.events;
        if (event == "sched_switch") {
            const long prev = to_long(field(fields, "prev_pid")), next = to_long(field(fields, "next_pid"));
            const std::string_view state = field(fields, "prev_state");
            const bool preempted = !state.empty() && state[0] == 'R' && prev > 0;
            std::unordered_set<long>& woken = woken_onto[cpu];
            const bool by_wakee = preempted && woken.count(next) > 0;
            if (member(prev)) {
                auto& t = tc.tasks[prev];
                const auto it = on_cpu.find(cpu);
                if (it != on_cpu.end() && it->second.first == prev) t.runtime_ns += ts - it->second.second;
                if (preempted) {
                    ++t.nivcsw;
                    if (by_wakee) ++t.nivcsw_wakeup;
                } else {
                    ++t.nvcsw;
                }
                t.comm = std::string(field(fields, "prev_comm"));
                t.saw_prio(to_long(field(fields, "prev_prio")));
            }
            woken.clear();
            on_cpu[cpu] = {next, ts};
            if (member(next)) {
                auto& t = tc.tasks[next];
                t.comm = std::string(field(fields, "next_comm"));
                t.saw_prio(to_long(field(fields, "next_prio")));
                if (by_wakee) ++t.wakeup_preempts;
            }
        } else if (event == "sched_process_fork") {
            const long parent = to_long(field(fields, "pid")), child = to_long(field(fields, "child_pid"));
            if (!all && (workload.count(parent) ||
                         (field(fields, "comm") == root_parent_comm && !workload.count(parent))))
                workload.insert(child);
            if (member(child)) {
                const auto r = root_of.find(parent);
                root_of[child] = !member(parent) ? child : r != root_of.end() ? r->second : parent;
                tc.tasks[child].comm = std::string(field(fields, "child_comm"));
            }
        } else if (event == "sched_migrate_task") {
            const long pid = to_long(field(fields, "pid"));
            if (member(pid)) ++tc.tasks[pid].migrations;
        } else if (event == "sched_waking") {
            const long pid = to_long(field(fields, "pid"));
            if (member(pid)) waking[pid] = {cpu, to_long(field(fields, "target_cpu"))}; // target: task_cpu()
        } else if (event == "sched_wakeup") {
            const long pid = to_long(field(fields, "pid"));
            const long target = to_long(field(fields, "target_cpu"));
            if (target >= 0) woken_onto[static_cast<unsigned>(target)].insert(pid); // any task's: a kthread preempts too
            if (member(pid)) {
                auto& t = tc.tasks[pid];
                ++t.wakeups;
                const auto w = waking.find(pid);
                if (w != waking.end()) {
                    const long waker = static_cast<long>(w->second.first), prev = w->second.second;
                    if (waker != target) ++t.wakeups_remote;
                    if (prev >= 0 && prev != waker) {
                        ++t.wakeups_away;
                        if (target == waker)
                            ++t.away_to_waker;
                        else if (target == prev)
                            ++t.away_to_prev;
                    }
                }
                if (target >= 0) {
                    const auto on = on_cpu.find(static_cast<unsigned>(target));
                    if (on != on_cpu.end() && on->second.first == 0) ++t.wakeups_idle;
                }
                t.saw_prio(to_long(field(fields, "prio")));
            }
        }
    }
    for (const auto& [cpu, run] : on_cpu)
        if (member(run.first)) tc.tasks[run.first].runtime_ns += tc.last_ns - run.second;
    for (auto& [pid, t] : tc.tasks) {
        const auto r = root_of.find(pid);
        t.root = r == root_of.end() ? pid : r->second; // no fork event: a root itself
    }
    return tc;
}

} // namespace warmsched::twin
