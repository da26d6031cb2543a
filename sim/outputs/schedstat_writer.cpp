// /proc/schedstat and /proc/<pid>/{sched,schedstat} writers; see schedstat_writer.h.
#include "sim/outputs/schedstat_writer.h"
#include "base/files/output_file.h"

#include "workloads/kernel/sim_kernel.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <cinttypes>
#include <cstdio>

namespace warmsched::sim {
namespace {
using scheduler::nsec;
using ull = unsigned long long;

// The CPU_MAX_IDLE_TYPES blocks in the order a version prints them: 15 (v5.15's enum) idle, busy,
// newidle; 16 and later (__CPU_NOT_IDLE = 0) busy, idle, newidle.
constexpr scheduler::cpu_idle_type v15_order[] = {scheduler::CPU_IDLE, scheduler::CPU_NOT_IDLE,
                                                  scheduler::CPU_NEWLY_IDLE};
constexpr scheduler::cpu_idle_type v17_order[] = {scheduler::CPU_NOT_IDLE, scheduler::CPU_IDLE,
                                                  scheduler::CPU_NEWLY_IDLE};

void domain_line(std::ostream& out, const scheduler::sched_domain& sd, unsigned index, unsigned version,
                 unsigned nr_cpu_ids) {
    const auto& st = sd.stats;
    out << "domain" << index << ' ';
    if (version >= 17) out << sd.name << ' ';
    out << cpumask_hex(sd.span(), nr_cpu_ids);
    char b[512];
    for (auto it : version >= 16 ? v17_order : v15_order) { // 16: 17's order, 15's 8 fields
        if (version >= 17)
            std::snprintf(b, sizeof b, " %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                          ull(st.lb_count[it]), ull(st.lb_balanced[it]), ull(st.lb_failed[it]),
                          ull(st.lb_imbalance_load[it]), ull(st.lb_imbalance_util[it]),
                          ull(st.lb_imbalance_task[it]), ull(st.lb_imbalance_misfit[it]),
                          ull(st.lb_gained[it]), ull(st.lb_hot_gained[it]), ull(st.lb_nobusyq[it]),
                          ull(st.lb_nobusyg[it]));
        else
            std::snprintf(b, sizeof b, " %llu %llu %llu %llu %llu %llu %llu %llu", ull(st.lb_count[it]),
                          ull(st.lb_balanced[it]), ull(st.lb_failed[it]), ull(st.lb_imbalance[it]),
                          ull(st.lb_gained[it]), ull(st.lb_hot_gained[it]), ull(st.lb_nobusyq[it]),
                          ull(st.lb_nobusyg[it]));
        out << b;
    }
    std::snprintf(b, sizeof b, " %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
                  ull(st.alb_count), ull(st.alb_failed), ull(st.alb_pushed), ull(st.sbe_count),
                  ull(st.sbe_balanced), ull(st.sbe_pushed), ull(st.sbf_count), ull(st.sbf_balanced),
                  ull(st.sbf_pushed), ull(st.ttwu_wake_remote), ull(st.ttwu_move_affine),
                  ull(st.ttwu_move_balance));
    out << b;
}

// debug.c's __PS and __PSN (SPLIT_NS: milliseconds, then the remainder in ns as 6 digits).
void count_line(std::ostream& out, const char* name, long long v) {
    char b[128];
    std::snprintf(b, sizeof b, "%-45s:%21lld\n", name, v);
    out << b;
}
void time_line(std::ostream& out, const char* name, long long ns) {
    const long long high = ns < 0 ? -(-ns / 1000000) : ns / 1000000;
    const long low = static_cast<long>((ns < 0 ? -ns : ns) % 1000000);
    char b[128];
    std::snprintf(b, sizeof b, "%-45s:%14lld.%06ld\n", name, high, low);
    out << b;
}
} // namespace

std::string cpumask_hex(const scheduler::cpumask& m, unsigned nr_cpu_ids) {
    if (nr_cpu_ids == 0) return "0";
    std::string s;
    const unsigned groups = (nr_cpu_ids + 31) / 32;
    for (unsigned g = groups; g-- > 0;) {
        std::uint32_t word = 0;
        for (unsigned bit = 0; bit < 32; ++bit)
            if (m.test(g * 32 + bit)) word |= std::uint32_t{1} << bit;
        const unsigned bits = g == groups - 1 && nr_cpu_ids % 32 ? nr_cpu_ids % 32 : 32;
        char b[16];
        std::snprintf(b, sizeof b, "%0*x", static_cast<int>((bits + 3) / 4), word);
        if (!s.empty()) s += ',';
        s += b;
    }
    return s;
}

void write_proc_schedstat(std::ostream& out, const scheduler::scheduler& s, unsigned version, nsec now) {
    const unsigned n = s.num_cpus();
    out << "version " << version << "\n";
    out << "timestamp " << s.config().jiffies(now) << "\n";
    char b[256];
    for (unsigned c = 0; c < n; ++c) {
        const auto& st = s.rq(c).stats;
        std::snprintf(b, sizeof b, "cpu%u %llu 0 %llu %llu %llu %llu %llu %llu %llu\n", c, ull(st.yld_count),
                      ull(st.sched_count), ull(st.sched_goidle), ull(st.ttwu_count), ull(st.ttwu_local),
                      ull(st.rq_cpu_time), ull(st.run_delay), ull(st.pcount));
        out << b;
        unsigned index = 0;
        for (const auto& sd : s.domains().domains(c)) domain_line(out, sd, index++, version, n);
    }
}

void write_proc_pid_schedstat(std::ostream& out, const scheduler::task& t) {
    out << t.se.sum_exec_runtime << ' ' << t.stats.run_delay << ' ' << t.stats.pcount << '\n';
}

void write_proc_pid_sched(std::ostream& out, const scheduler::task& t, unsigned nr_threads) {
    const auto& st = t.stats;
    out << t.comm << " (" << t.pid << ", #threads: " << nr_threads << ")\n"
        << "-------------------------------------------------------------------\n";
    auto ll = [](std::uint64_t v) { return static_cast<long long>(v); };
    time_line(out, "se.exec_start", ll(t.se.exec_start));
    time_line(out, "se.vruntime", t.se.vruntime);
    time_line(out, "se.sum_exec_runtime", ll(t.se.sum_exec_runtime));
    count_line(out, "se.nr_migrations", ll(st.nr_migrations));
    time_line(out, "wait_start", ll(st.wait_start));
    time_line(out, "sleep_start", ll(st.sleep_start));
    time_line(out, "sleep_max", ll(st.sleep_max));
    time_line(out, "exec_max", ll(st.exec_max));
    time_line(out, "slice_max", ll(st.slice_max));
    time_line(out, "wait_max", ll(st.wait_max));
    time_line(out, "wait_sum", ll(st.run_delay));
    count_line(out, "wait_count", ll(st.wait_count));
    count_line(out, "nr_failed_migrations_affine", ll(st.nr_failed_migrations_affine));
    count_line(out, "nr_failed_migrations_running", ll(st.nr_failed_migrations_running));
    count_line(out, "nr_failed_migrations_hot", ll(st.nr_failed_migrations_hot));
    count_line(out, "nr_forced_migrations", ll(st.nr_forced_migrations));
    count_line(out, "nr_wakeups", ll(st.nr_wakeups));
    count_line(out, "nr_wakeups_sync", ll(st.nr_wakeups_sync));
    count_line(out, "nr_wakeups_migrate", ll(st.nr_wakeups_migrate));
    count_line(out, "nr_wakeups_local", ll(st.nr_wakeups_local));
    count_line(out, "nr_wakeups_remote", ll(st.nr_wakeups_remote));
    count_line(out, "nr_wakeups_affine", ll(st.nr_wakeups_affine));
    count_line(out, "nr_wakeups_affine_attempts", ll(st.nr_wakeups_affine_attempts));
    const std::uint64_t switches = st.nr_switches;
    time_line(out, "avg_atom", switches ? ll(t.se.sum_exec_runtime / switches) : -1);
    time_line(out, "avg_per_cpu", st.nr_migrations ? ll(t.se.sum_exec_runtime / st.nr_migrations) : -1);
    count_line(out, "nr_switches", ll(switches));
    count_line(out, "nr_voluntary_switches", ll(st.nr_voluntary_switches));
    count_line(out, "nr_involuntary_switches", ll(st.nr_involuntary_switches));
    count_line(out, "se.load.weight", ll(std::uint64_t{t.se.weight} << 10)); // scale_load on 64-bit
    count_line(out, "se.avg.load_avg", ll(t.se.avg.load_avg));
    count_line(out, "se.avg.runnable_avg", ll(t.se.avg.runnable_avg));
    count_line(out, "se.avg.util_avg", ll(t.se.avg.util_avg));
    const int policy = t.policy == scheduler::sched_policy::batch  ? 3
                       : t.policy == scheduler::sched_policy::idle ? 5
                       : t.policy == scheduler::sched_policy::ext  ? 7
                                                                   : 0;
    count_line(out, "policy", policy);
    count_line(out, "prio", t.prio());
}

schedstat_snapshot take_schedstat(const scheduler::scheduler& s, nsec now,
                                  const std::vector<unsigned>& versions) {
    schedstat_snapshot snap;
    for (unsigned v : versions) {
        std::ostringstream text;
        write_proc_schedstat(text, s, v, now);
        snap.text[v] = text.str();
    }
    return snap;
}

void write_schedstat_dir(const std::string& dir, const schedstat_snapshot& start,
                         const workloads::sim_kernel& k) {
    namespace fs = std::filesystem;
    const fs::path d = fs::path(dir) / "schedstat";
    base::make_directories(d.string());
    std::vector<unsigned> versions;
    for (const auto& [v, text] : start.text) versions.push_back(v);
    const schedstat_snapshot end = take_schedstat(k.sched(), k.now(), versions);
    for (unsigned v : versions) {
        base::write_file((d / ("v" + std::to_string(v) + "-start.txt")).string(), start.text.at(v));
        base::write_file((d / ("v" + std::to_string(v) + "-end.txt")).string(), end.text.at(v));
    }
    std::map<int, unsigned> threads; // live tasks per tgid
    for (const auto& t : k.tasks())
        if (t->t.state != scheduler::task_state::dead) ++threads[t->t.tgid];
    for (const auto& t : k.tasks()) {
        const fs::path p = d / std::to_string(t->t.pid);
        base::make_directories(p.string());
        base::output_file sched((p / "sched").string());
        write_proc_pid_sched(sched, t->t, std::max(1u, threads[t->t.tgid]));
        sched.close();
        base::output_file ss((p / "schedstat").string());
        write_proc_pid_schedstat(ss, t->t);
        ss.close();
    }
}

} // namespace warmsched::sim
