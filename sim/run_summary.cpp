// Run summary and stats.txt; see run_summary.h.
#include "sim/run_summary.h"

#include "scheduler/rt/rt_class.h"
#include "sim/migration_report.h"
#include "workloads/kernel/cpu_executor.h"

#include <array>
#include <cstdio>
#include <map>
#include <string>

namespace warmsched::sim {

using models::mem_source;

run_totals run_totals::of(const workloads::sim_kernel& k, models::machine& m) {
    run_totals t;
    for (const auto& kt : k.tasks()) {
        const auto& s = kt->t.stats;
        t.voluntary += s.nr_voluntary_switches;
        t.involuntary += s.nr_involuntary_switches;
        t.migrations += s.nr_migrations;
        t.wakeups += s.nr_wakeups;
        t.wakeups_remote += s.nr_wakeups_remote;
        t.wakeups_sync += s.nr_wakeups_sync;
        t.wakeups_affine += s.nr_wakeups_affine;
        t.affine_attempts += s.nr_wakeups_affine_attempts;
        t.user_s += static_cast<double>(kt->utime) / 1e9;
        t.busy_s += static_cast<double>(kt->t.se.sum_exec_runtime) / 1e9;
    }
    // A task still running when the run stopped has not had its current stint accounted yet.
    for (unsigned c = 0; c < m.num_cpus(); ++c) {
        const scheduler::task* curr = k.sched().rq(c).curr;
        if (curr && !curr->is_idle && k.now() > curr->se.exec_start)
            t.busy_s += static_cast<double>(k.now() - curr->se.exec_start) / 1e9;
    }
    t.forks = k.forks();
    for (const auto& sd : k.sched().domains().all_domains()) {
        for (int i = 0; i < 3; ++i) {
            t.lb_count[i] += sd.stats.lb_count[i];
            t.lb_gained[i] += sd.stats.lb_gained[i];
            t.lb_failed[i] += sd.stats.lb_failed[i];
        }
        t.alb_pushed += sd.stats.alb_pushed;
    }
    for (unsigned c = 0; c < m.num_cpus(); ++c) {
        t.switches += k.sched().rq(c).nr_switches;
        const auto& e = k.executor(c).stats();
        t.ipis += e.ipis;
        t.idle_exits += e.idle_exits;
        t.ticks += e.ticks;
        t.idle_state_usage.resize(e.idle_state_usage.size());
        t.idle_state_ns.resize(e.idle_state_ns.size());
        for (std::size_t i = 0; i < e.idle_state_usage.size(); ++i) {
            t.idle_state_usage[i] += e.idle_state_usage[i];
            t.idle_state_ns[i] += e.idle_state_ns[i];
        }
        t.core_flushes += e.core_flushes;
        t.idle_s += static_cast<double>(k.executor(c).idle_ns(sc_core::sc_time_stamp().value())) / 1e9;
        const auto& hs = m.cpu(c).stats();
        for (int i = 0; i < static_cast<int>(mem_source::count); ++i) {
            t.accesses[i] += hs.accesses[i];
            t.total_accesses += hs.accesses[i];
        }
    }
    return t;
}

namespace {
std::uint64_t at(const run_totals& t, mem_source s) {
    return t.accesses[static_cast<int>(s)];
}
std::string pct(std::uint64_t part, std::uint64_t whole) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return b;
}
} // namespace

// The RT class's placement work, when RT tasks woke or moved: where RT wakeups put the task against the
// CPU it last ran on, the pushes and pulls (and how many crossed to another LLC), RT_PUSH_IPI's IPIs and
// the other CPUs' run queues the RT code read.
static void print_rt_summary(std::ostream& out, const workloads::sim_kernel& k) {
    const scheduler::scheduler& s = k.sched();
    const scheduler::rt_counters& c = s.rt().counters();
    if (c.wakeups + c.pushes + c.pulls == 0) return;
    using w = scheduler::rt_counters;
    char b[512];
    std::snprintf(
        b, sizeof b,
        "%-18s %12llu  RT wakeups onto: same CPU %llu, SMT sibling %llu, same LLC %llu, same socket "
        "%llu, other socket %llu; pushes %llu (to another LLC %llu), pulls %llu (from another LLC "
        "%llu), push IPIs %llu, run queues read %llu\n",
        "rt placement", static_cast<unsigned long long>(c.wakeups),
        static_cast<unsigned long long>(c.woke[w::same_cpu]),
        static_cast<unsigned long long>(c.woke[w::same_core]),
        static_cast<unsigned long long>(c.woke[w::same_llc]),
        static_cast<unsigned long long>(c.woke[w::same_socket]),
        static_cast<unsigned long long>(c.woke[w::other_socket]), static_cast<unsigned long long>(c.pushes),
        static_cast<unsigned long long>(c.pushes_cross_llc), static_cast<unsigned long long>(c.pulls),
        static_cast<unsigned long long>(c.pulls_cross_llc), static_cast<unsigned long long>(c.push_ipis),
        static_cast<unsigned long long>(s.rt_rq_reads_total()));
    out << b;
}

void print_run_summary(std::ostream& out, const workloads::sim_kernel& k, models::machine& m, double sim_s,
                       std::uint64_t seed) {
    const run_totals t = run_totals::of(k, m);
    const auto& cfg = k.sched().config();
    char b[256];
    out << "\n--- warmsched: " << m.platform().name << " (" << m.num_cpus() << " CPUs), "
        << (cfg.kernel == scheduler::kernel_version::cfs_v5_15 ? "CFS (Linux v5.15)" : "EEVDF (Linux v6.12)")
        << ", HZ=" << cfg.hz << ", seed " << seed << "\n";
    std::snprintf(b, sizeof b, "%-18s %.6f s\n", "simulated time", sim_s);
    out << b;
    std::snprintf(b, sizeof b, "%-18s %12llu  (voluntary %llu, involuntary %llu)\n", "context switches",
                  static_cast<unsigned long long>(t.switches), static_cast<unsigned long long>(t.voluntary),
                  static_cast<unsigned long long>(t.involuntary));
    out << b;
    std::snprintf(b, sizeof b, "%-18s %12llu  (forks %llu)\n", "migrations",
                  static_cast<unsigned long long>(t.migrations), static_cast<unsigned long long>(t.forks));
    out << b;
    std::snprintf(b, sizeof b, "%-18s %12llu  (to another CPU %s, sync %s; IPIs %llu, idle exits %llu)\n",
                  "wakeups", static_cast<unsigned long long>(t.wakeups),
                  pct(t.wakeups_remote, t.wakeups).c_str(), pct(t.wakeups_sync, t.wakeups).c_str(),
                  static_cast<unsigned long long>(t.ipis), static_cast<unsigned long long>(t.idle_exits));
    out << b;
    const auto& states = m.platform().idle_states;
    if (states.size() > 1) { // cpuidle's usage and time per state (a platform with idle_states listed)
        std::string line;
        for (std::size_t i = 0; i < states.size() && i < t.idle_state_usage.size(); ++i)
            line += (i ? ", " : "") + states[i].name + " " + std::to_string(t.idle_state_usage[i]) + " (" +
                    std::to_string(t.idle_state_ns[i] / 1000) + " us)";
        std::snprintf(b, sizeof b, "%-18s %s; core flushes %llu\n", "idle states", line.c_str(),
                      static_cast<unsigned long long>(t.core_flushes));
        out << b;
    }
    std::snprintf(b, sizeof b,
                  "%-18s %12llu  chosen by wake_affine in %llu attempts (undecided ones keep prev)\n",
                  "wake placement", static_cast<unsigned long long>(t.wakeups_affine),
                  static_cast<unsigned long long>(t.affine_attempts));
    out << b;
    print_rt_summary(out, k);
    using scheduler::CPU_IDLE, scheduler::CPU_NOT_IDLE, scheduler::CPU_NEWLY_IDLE;
    std::snprintf(
        b, sizeof b,
        "%-18s runs idle/busy/newidle %llu/%llu/%llu, tasks pulled %llu/%llu/%llu, failed %llu/%llu/%llu, "
        "active pushes %llu\n",
        "load balancing", static_cast<unsigned long long>(t.lb_count[CPU_IDLE]),
        static_cast<unsigned long long>(t.lb_count[CPU_NOT_IDLE]),
        static_cast<unsigned long long>(t.lb_count[CPU_NEWLY_IDLE]),
        static_cast<unsigned long long>(t.lb_gained[CPU_IDLE]),
        static_cast<unsigned long long>(t.lb_gained[CPU_NOT_IDLE]),
        static_cast<unsigned long long>(t.lb_gained[CPU_NEWLY_IDLE]),
        static_cast<unsigned long long>(t.lb_failed[CPU_IDLE]),
        static_cast<unsigned long long>(t.lb_failed[CPU_NOT_IDLE]),
        static_cast<unsigned long long>(t.lb_failed[CPU_NEWLY_IDLE]),
        static_cast<unsigned long long>(t.alb_pushed));
    out << b;
    std::snprintf(b, sizeof b, "%-18s user %.4f s, system %.4f s, idle %.4f s (%u CPUs x %.4f s)\n",
                  "CPU time", t.user_s, t.busy_s - t.user_s, t.idle_s, m.num_cpus(), sim_s);
    out << b;
    const std::uint64_t n = t.total_accesses;
    const std::uint64_t l1 = at(t, mem_source::l1), l2 = at(t, mem_source::l2);
    const std::uint64_t own_llc = at(t, mem_source::llc) + at(t, mem_source::peer_cache);
    const std::uint64_t other_llc = at(t, mem_source::remote_llc) + at(t, mem_source::remote_socket);
    const std::uint64_t mem = at(t, mem_source::local_memory) + at(t, mem_source::remote_memory);
    std::snprintf(b, sizeof b, "%-18s %12llu  (L1 %s, L2 %s, own L3 %s, other L3 %s, DRAM %s)\n",
                  "memory accesses", static_cast<unsigned long long>(n), pct(l1, n).c_str(),
                  pct(l2, n).c_str(), pct(own_llc, n).c_str(), pct(other_llc, n).c_str(),
                  pct(mem, n).c_str());
    out << b;
    std::snprintf(b, sizeof b, "%-18s L1d %llu, L2 %llu, L3 %llu (served by another L3 %llu, by DRAM %llu)\n",
                  "cache misses", static_cast<unsigned long long>(n - l1),
                  static_cast<unsigned long long>(n - l1 - l2),
                  static_cast<unsigned long long>(other_llc + mem),
                  static_cast<unsigned long long>(other_llc), static_cast<unsigned long long>(mem));
    out << b;
    if (k.fast_forward() > 1) {
        std::uint64_t chunks = 0, ff = 0, sampled = 0, drifts = 0;
        for (unsigned c = 0; c < m.num_cpus(); ++c) {
            const auto& s = k.executor(c).stats();
            chunks += s.ff_chunks;
            ff += s.ff_accesses;
            sampled += s.ff_sampled;
            drifts += s.ff_drifts;
        }
        std::snprintf(b, sizeof b,
                      "%-18s 1 in %u: %llu chunks, %s of the accesses (%llu simulated), %llu drifts back\n",
                      "fast-forward", k.fast_forward(), static_cast<unsigned long long>(chunks),
                      pct(ff, n).c_str(), static_cast<unsigned long long>(sampled),
                      static_cast<unsigned long long>(drifts));
        out << b;
    }
}

void add_run_stats(stats::group& root, const workloads::sim_kernel& k, models::machine& m, double sim_s) {
    using stats::unit;
    const run_totals t = run_totals::of(k, m);
    root.add("simSeconds", sim_s, unit::second, "Number of seconds simulated");
    stats::group& kernel = root.child("kernel");
    kernel.add("contextSwitches", t.switches, unit::count, "context switches, all CPUs");
    kernel.add("voluntarySwitches", t.voluntary, unit::count, "switches away from a blocking task");
    kernel.add("involuntarySwitches", t.involuntary, unit::count, "preemptions and yields");
    kernel.add("migrations", t.migrations, unit::count, "task moves between CPUs");
    kernel.add("wakeups", t.wakeups, unit::count, "try_to_wake_up that woke a task");
    kernel.add("wakeupsRemote", t.wakeups_remote, unit::count, "wakeups onto another CPU");
    kernel.add("wakeupsAffine", t.wakeups_affine, unit::count, "wake_affine chose the target");
    kernel.add("wakeAffineAttempts", t.affine_attempts, unit::count, "wake_affine evaluated");
    const char* idle_names[3] = {"idle", "busy", "newidle"};
    for (int i = 0; i < 3; ++i) {
        kernel.add(std::string("lbCount::") + idle_names[i], t.lb_count[i], unit::count,
                   "load_balance runs, all domains");
        kernel.add(std::string("lbGained::") + idle_names[i], t.lb_gained[i], unit::count,
                   "tasks pulled by load_balance");
        kernel.add(std::string("lbFailed::") + idle_names[i], t.lb_failed[i], unit::count,
                   "load_balance runs that moved nothing although imbalanced");
    }
    kernel.add("albPushed", t.alb_pushed, unit::count, "tasks pushed by active balance");
    // Per domain level (SMT, MC, PKG/DIE, NUMA; summed over the CPUs' domains of that level): a name that
    // two levels share (several NUMA levels) gets the level's number after it.
    {
        std::map<int, std::string> level_names;
        std::map<std::string, int> levels_per_name;
        for (const auto& sd : k.sched().domains().all_domains())
            if (level_names.emplace(sd.level, sd.name).second) ++levels_per_name[sd.name];
        std::map<int, std::array<std::uint64_t, 3>> count, gained;
        for (const auto& sd : k.sched().domains().all_domains())
            for (int i = 0; i < 3; ++i) {
                count[sd.level][i] += sd.stats.lb_count[i];
                gained[sd.level][i] += sd.stats.lb_gained[i];
            }
        stats::group& domain = kernel.child("domain");
        for (const auto& [level, name] : level_names) {
            stats::group& g =
                domain.child(name + (levels_per_name[name] > 1 ? std::to_string(level) : std::string()));
            for (int i = 0; i < 3; ++i) {
                g.add(std::string("lbCount::") + idle_names[i], count[level][i], unit::count,
                      "load_balance runs at this domain level");
                g.add(std::string("lbGained::") + idle_names[i], gained[level][i], unit::count,
                      "tasks pulled by load_balance at this domain level");
            }
        }
    }
    kernel.add("forks", t.forks, unit::count, "tasks created by fork/clone");
    kernel.add("ipis", t.ipis, unit::count, "reschedule IPIs received");
    const auto& states = m.platform().idle_states;
    if (states.size() > 1) { // cpuidle (a platform with idle_states listed), as sysfs usage and time
        for (std::size_t i = 0; i < states.size() && i < t.idle_state_usage.size(); ++i) {
            const std::string p = "idleState::" + states[i].name + ".";
            kernel.add(p + "usage", t.idle_state_usage[i], unit::count, "entries, all CPUs");
            kernel.add(p + "time", static_cast<double>(t.idle_state_ns[i]) / 1e9, unit::second,
                       "time in the state, all CPUs");
        }
        kernel.add("coreFlushes", t.core_flushes, unit::count,
                   "entries that flushed a core's private caches");
    }
    if (const auto* c = k.migration_costs()) add_migration_stats(kernel, *c);
    // The machine: each CPU's kernel counters, then every model's own group (system.cpuN's accesses,
    // system.coreN.l1d/l2, system.llcN, system.homeN, system.memN).
    stats::group& system = root.child("system");
    for (unsigned c = 0; c < m.num_cpus(); ++c) {
        stats::group& cpu = system.child("cpu" + std::to_string(c));
        const auto& e = k.executor(c).stats();
        cpu.add("contextSwitches", k.sched().rq(c).nr_switches, unit::count, "context switches");
        cpu.add("idleSeconds",
                static_cast<double>(k.executor(c).idle_ns(sc_core::sc_time_stamp().value())) / 1e9,
                unit::second, "time idle");
        cpu.add("ticks", e.ticks, unit::count, "scheduler ticks");
    }
    m.add_stats(system);
}

} // namespace warmsched::sim
