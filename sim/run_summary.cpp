// Run summary and stats.txt; see run_summary.h.
#include "sim/run_summary.h"

#include "sim/policy_exit_report.h"

#include "scheduler/rt/rt_class.h"
#include "sim/migration_report.h"
#include "workloads/kernel/cpu_executor.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

namespace warmsched::sim {

using models::mem_source;

namespace {
// The run's counters summed over tasks, CPUs and domains, as add_run_stats registers them.
struct run_totals {
    std::uint64_t switches = 0, voluntary = 0, involuntary = 0, migrations = 0;
    std::uint64_t wakeups = 0, wakeups_remote = 0, wakeups_sync = 0, forks = 0;
    std::uint64_t ipis = 0, idle_exits = 0;
    std::vector<std::uint64_t> idle_state_usage, idle_state_ns; // per cpuidle state, all CPUs
    std::uint64_t core_flushes = 0;
    std::uint64_t wakeups_affine = 0, affine_attempts = 0;
    // Load balancing, summed over every CPU's domains, per idle type (idle, busy, newly idle).
    std::array<std::uint64_t, 3> lb_count{}, lb_gained{}, lb_failed{};
    std::uint64_t alb_pushed = 0;
    double user_s = 0, busy_s = 0, idle_s = 0;
    std::uint64_t ff_chunks = 0, ff_accesses = 0, ff_sampled = 0, ff_drifts = 0;
    static run_totals of(const workloads::sim_kernel& k, models::machine& m);
};

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
        t.ff_chunks += e.ff_chunks;
        t.ff_accesses += e.ff_accesses;
        t.ff_sampled += e.ff_sampled;
        t.ff_drifts += e.ff_drifts;
        t.idle_state_usage.resize(e.idle_state_usage.size());
        t.idle_state_ns.resize(e.idle_state_ns.size());
        for (std::size_t i = 0; i < e.idle_state_usage.size(); ++i) {
            t.idle_state_usage[i] += e.idle_state_usage[i];
            t.idle_state_ns[i] += e.idle_state_ns[i];
        }
        t.core_flushes += e.core_flushes;
        t.idle_s += static_cast<double>(k.executor(c).idle_ns(sc_core::sc_time_stamp().value())) / 1e9;
    }
    return t;
}

} // namespace

void add_run_stats(stats::group& root, const workloads::sim_kernel& k, models::machine& m, double sim_s,
                   double warmup_s) {
    using stats::unit;
    const run_totals t = run_totals::of(k, m);
    root.add("simSeconds", sim_s, unit::second, "Number of seconds simulated");
    if (warmup_s > 0)
        root.add("warmupSeconds", warmup_s, unit::second,
                 "simulated seconds before the measured window: every other stat covers the window",
                 stats::kind::level);
    stats::group& kernel = root.child("kernel");
    kernel.add("contextSwitches", t.switches, unit::count, "context switches, all CPUs");
    kernel.add("voluntarySwitches", t.voluntary, unit::count, "switches away from a blocking task");
    kernel.add("involuntarySwitches", t.involuntary, unit::count, "preemptions and yields");
    kernel.add("migrations", t.migrations, unit::count, "task moves between CPUs");
    kernel.add("wakeups", t.wakeups, unit::count, "try_to_wake_up that woke a task");
    kernel.add("wakeupsRemote", t.wakeups_remote, unit::count, "wakeups onto another CPU");
    kernel.add("wakeupsSync", t.wakeups_sync, unit::count,
               "wakeups with WF_SYNC (the waker is about to sleep)");
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
    add_policy_exit_stats(kernel, k.sched()); // kernel.ext, with a policy of one's own
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
    kernel.add("idleExits", t.idle_exits, unit::count, "idle periods a CPU left");
    kernel.add("userSeconds", t.user_s, unit::second, "CPU time in user mode, all tasks");
    kernel.add("systemSeconds", t.busy_s - t.user_s, unit::second, "CPU time in the kernel, all tasks");
    kernel.add("idleSeconds", t.idle_s, unit::second, "time idle, all CPUs");
    {
        const scheduler::scheduler& s = k.sched();
        const scheduler::rt_counters& c = s.rt().counters();
        using w = scheduler::rt_counters;
        stats::group& rt = kernel.child("rt");
        rt.add("wakeups", c.wakeups, unit::count, "RT tasks woken");
        static const char* where[w::num_where] = {"sameCpu", "smtSibling", "sameLlc", "sameSocket",
                                                  "otherSocket"};
        for (int i = 0; i < w::num_where; ++i)
            rt.add(std::string("wokeOnto::") + where[i], c.woke[i], unit::count,
                   "RT wakeups placed so, against the CPU the task last ran on");
        rt.add("pushes", c.pushes, unit::count, "tasks moved by push_rt_task");
        rt.add("pushesOtherLlc", c.pushes_cross_llc, unit::count, "of them to a CPU of another LLC");
        rt.add("pulls", c.pulls, unit::count, "tasks moved by pull_rt_task");
        rt.add("pullsOtherLlc", c.pulls_cross_llc, unit::count, "of them from a CPU of another LLC");
        rt.add("pushIpis", c.push_ipis, unit::count, "RT_PUSH_IPI's IPIs to overloaded CPUs");
        rt.add("rqReads", s.rt_rq_reads_total(), unit::count, "other CPUs' run queues the RT code read");
    }
    if (k.fast_forward() > 1) {
        stats::group& ff = kernel.child("fastForward");
        ff.add("chunks", t.ff_chunks, unit::count, "compute chunks fast-forwarded");
        ff.add("accesses", t.ff_accesses, unit::count, "the accesses they stood for");
        ff.add("sampled", t.ff_sampled, unit::count, "of them simulated through the hierarchy");
        ff.add("drifts", t.ff_drifts, unit::count, "returns to detailed simulation on drift");
    }
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

run_header run_header::of(const workloads::sim_kernel& k, const models::machine& m, std::uint64_t seed) {
    run_header h;
    const auto& cfg = k.sched().config();
    h.platform = m.platform().name;
    h.cpus = m.num_cpus();
    h.kernel =
        cfg.kernel == scheduler::kernel_version::cfs_v5_15 ? "CFS (Linux v5.15)" : "EEVDF (Linux v6.12)";
    h.hz = cfg.hz;
    h.seed = seed;
    if (m.platform().idle_states.size() > 1)
        for (const auto& st : m.platform().idle_states) h.idle_states.push_back(st.name);
    h.fast_forward = k.fast_forward();
    return h;
}

namespace {
std::string pct(std::uint64_t part, std::uint64_t whole) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return b;
}
unsigned long long ull(std::uint64_t v) {
    return static_cast<unsigned long long>(v);
}
// The RT class's placement work, when RT tasks woke or moved: where RT wakeups put the task against the
// CPU it last ran on, the pushes and pulls (and how many crossed to another LLC), RT_PUSH_IPI's IPIs and
// the other CPUs' run queues the RT code read.
void print_rt_summary(std::ostream& out, const stats::group& rt) {
    if (rt.count("wakeups") + rt.count("pushes") + rt.count("pulls") == 0) return;
    char b[512];
    std::snprintf(
        b, sizeof b,
        "%-18s %12llu  RT wakeups onto: same CPU %llu, SMT sibling %llu, same LLC %llu, same socket "
        "%llu, other socket %llu; pushes %llu (to another LLC %llu), pulls %llu (from another LLC "
        "%llu), push IPIs %llu, run queues read %llu\n",
        "rt placement", ull(rt.count("wakeups")), ull(rt.count("wokeOnto::sameCpu")),
        ull(rt.count("wokeOnto::smtSibling")), ull(rt.count("wokeOnto::sameLlc")),
        ull(rt.count("wokeOnto::sameSocket")), ull(rt.count("wokeOnto::otherSocket")),
        ull(rt.count("pushes")), ull(rt.count("pushesOtherLlc")), ull(rt.count("pulls")),
        ull(rt.count("pullsOtherLlc")), ull(rt.count("pushIpis")), ull(rt.count("rqReads")));
    out << b;
}
} // namespace

void print_run_summary(std::ostream& out, const run_header& h, const stats::group& registry) {
    const stats::group& kn = registry.at("kernel");
    const stats::group& system = registry.at("system");
    const double sim_s = registry.real("simSeconds");
    auto c = [&](const char* name) { return ull(kn.count(name)); };
    char b[256];
    out << "\n--- warmsched: " << h.platform << " (" << h.cpus << " CPUs), " << h.kernel << ", HZ=" << h.hz
        << ", seed " << h.seed << "\n";
    std::snprintf(b, sizeof b, "%-18s %.6f s\n", "simulated time", sim_s);
    out << b;
    if (const stats::scalar* w = registry.find("warmupSeconds")) {
        std::snprintf(b, sizeof b,
                      "%-18s from %.6f s to %.6f s (after the warm-up: the figures below; the tools' own "
                      "output above covers their whole run)\n",
                      "measured", std::get<double>(w->value), std::get<double>(w->value) + sim_s);
        out << b;
    }
    std::snprintf(b, sizeof b, "%-18s %12llu  (voluntary %llu, involuntary %llu)\n", "context switches",
                  c("contextSwitches"), c("voluntarySwitches"), c("involuntarySwitches"));
    out << b;
    std::snprintf(b, sizeof b, "%-18s %12llu  (forks %llu)\n", "migrations", c("migrations"), c("forks"));
    out << b;
    const std::uint64_t wakeups = kn.count("wakeups");
    std::snprintf(b, sizeof b, "%-18s %12llu  (to another CPU %s, sync %s; IPIs %llu, idle exits %llu)\n",
                  "wakeups", ull(wakeups), pct(kn.count("wakeupsRemote"), wakeups).c_str(),
                  pct(kn.count("wakeupsSync"), wakeups).c_str(), c("ipis"), c("idleExits"));
    out << b;
    if (!h.idle_states.empty()) { // cpuidle's usage and time per state (a platform with idle_states listed)
        std::string line;
        for (std::size_t i = 0; i < h.idle_states.size(); ++i) {
            const std::string p = "idleState::" + h.idle_states[i] + ".";
            const auto ns = static_cast<std::uint64_t>(std::llround(kn.real(p + "time") * 1e9));
            line += (i ? ", " : "") + h.idle_states[i] + " " + std::to_string(kn.count(p + "usage")) + " (" +
                    std::to_string(ns / 1000) + " us)";
        }
        std::snprintf(b, sizeof b, "%-18s %s; core flushes %llu\n", "idle states", line.c_str(),
                      c("coreFlushes"));
        out << b;
    }
    std::snprintf(b, sizeof b,
                  "%-18s %12llu  chosen by wake_affine in %llu attempts (undecided ones keep prev)\n",
                  "wake placement", c("wakeupsAffine"), c("wakeAffineAttempts"));
    out << b;
    print_rt_summary(out, kn.at("rt"));
    std::snprintf(b, sizeof b,
                  "%-18s runs idle/busy/newidle %llu/%llu/%llu, tasks pulled %llu/%llu/%llu, failed "
                  "%llu/%llu/%llu, active pushes %llu\n",
                  "load balancing", c("lbCount::idle"), c("lbCount::busy"), c("lbCount::newidle"),
                  c("lbGained::idle"), c("lbGained::busy"), c("lbGained::newidle"), c("lbFailed::idle"),
                  c("lbFailed::busy"), c("lbFailed::newidle"), c("albPushed"));
    out << b;
    std::snprintf(b, sizeof b, "%-18s user %.4f s, system %.4f s, idle %.4f s (%u CPUs x %.4f s)\n",
                  "CPU time", kn.real("userSeconds"), kn.real("systemSeconds"), kn.real("idleSeconds"),
                  h.cpus, sim_s);
    out << b;
    // Accesses by the level that served them, summed over the CPUs (system.cpuN.accesses::SOURCE).
    std::array<std::uint64_t, static_cast<int>(mem_source::count)> by{};
    std::uint64_t n = 0;
    for (unsigned cpu = 0; cpu < h.cpus; ++cpu) {
        const stats::group& g = system.at("cpu" + std::to_string(cpu));
        for (int i = 0; i < static_cast<int>(mem_source::count); ++i)
            by[i] += g.count(std::string("accesses::") + models::to_string(static_cast<mem_source>(i)));
        n += g.count("accesses::total");
    }
    auto at = [&](mem_source s) { return by[static_cast<int>(s)]; };
    const std::uint64_t l1 = at(mem_source::l1), l2 = at(mem_source::l2);
    const std::uint64_t own_llc = at(mem_source::llc) + at(mem_source::peer_cache);
    const std::uint64_t other_llc = at(mem_source::remote_llc) + at(mem_source::remote_socket);
    const std::uint64_t mem = at(mem_source::local_memory) + at(mem_source::remote_memory);
    std::snprintf(b, sizeof b, "%-18s %12llu  (L1 %s, L2 %s, own L3 %s, other L3 %s, DRAM %s)\n",
                  "memory accesses", ull(n), pct(l1, n).c_str(), pct(l2, n).c_str(), pct(own_llc, n).c_str(),
                  pct(other_llc, n).c_str(), pct(mem, n).c_str());
    out << b;
    std::snprintf(b, sizeof b, "%-18s L1d %llu, L2 %llu, L3 %llu (served by another L3 %llu, by DRAM %llu)\n",
                  "cache misses", ull(n - l1), ull(n - l1 - l2), ull(other_llc + mem), ull(other_llc),
                  ull(mem));
    out << b;
    if (const stats::group* ff = kn.find_child("fastForward")) {
        std::snprintf(b, sizeof b,
                      "%-18s 1 in %u: %llu chunks, %s of the accesses (%llu simulated), %llu drifts back\n",
                      "fast-forward", h.fast_forward, ull(ff->count("chunks")),
                      pct(ff->count("accesses"), n).c_str(), ull(ff->count("sampled")),
                      ull(ff->count("drifts")));
        out << b;
    }
}

} // namespace warmsched::sim
