// Load balancing and fork placement against reference/scheduler/04-load-balance.md ("What to test" 1-6)
// and item 5 of 03-wakeup-placement.md, for Linux v5.15 (CFS) and v6.12 (EEVDF). Whole runs (hogs
// spreading, pinned tasks settling, active balance) use the simulated kernel (kernel_rig, one SystemC
// elaboration per TEST_CASE); exact decisions drive the scheduler directly (sched_harness). Machines are
// built from platform YAML: `machine(sockets, LLCs per socket, cores per LLC, threads per core)`, one
// NUMA node per socket at distance 21.
#include "scheduler/fair/fair_class.h"
#include "support/kernel_rig.h"
#include "support/sched_harness.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace warmsched;
using scheduler::cpu_idle_type;
using scheduler::kernel_version;
using scheduler::migration_cause;
using test::ms;
using test::us;
namespace op = workloads;

namespace {

constexpr auto cfs = kernel_version::cfs_v5_15;
constexpr auto eevdf = kernel_version::eevdf_v6_12;
constexpr kernel_version both[] = {cfs, eevdf};

platform::platform_params machine(unsigned sockets, unsigned llcs, unsigned cores, unsigned threads) {
    std::string y = test::mini_platform_yaml();
    auto set = [&](const std::string& from, const std::string& to) {
        y.replace(y.find(from), from.size(), to);
    };
    set("{name: socket, count: 1}", "{name: socket, count: " + std::to_string(sockets) + "}");
    set("{name: ccx, count: 2}", "{name: ccx, count: " + std::to_string(llcs) + "}");
    set("{name: core, count: 2}", "{name: core, count: " + std::to_string(cores) + "}");
    set("threads_per_core: 2", "threads_per_core: " + std::to_string(threads));
    if (sockets == 2) {
        set("  node_per: socket\n", "  node_per: socket\n  distances:\n    - [10, 21]\n    - [21, 10]\n");
        y += "    - {from: hub, to: hub, pattern: all, latency: 20ns, bandwidth: 64GB/s}\n";
    }
    return platform::read_platform(config::load_yaml_text(y, "lb.yaml"));
}

scheduler::fair_class& fair(scheduler::scheduler& s) {
    return static_cast<scheduler::fair_class&>(s.fair());
}

// The domain of `cpu` with this name (SMT, MC, PKG/DIE, NUMA).
scheduler::sched_domain& domain(scheduler::scheduler& s, unsigned cpu, const std::string& name) {
    for (auto& sd : s.domains().domains(cpu))
        if (name == sd.name) return sd;
    FAIL("no " << name << " domain on CPU " << cpu);
    throw 0;
}

// Sums of a per-domain counter over every CPU's domains.
template <class F> std::uint64_t sum_stats(scheduler::scheduler& s, F f) {
    std::uint64_t n = 0;
    for (unsigned c = 0; c < s.num_cpus(); ++c)
        for (const auto& sd : s.domains().domains(c)) n += f(sd.stats);
    return n;
}
std::uint64_t lb_gained(scheduler::scheduler& s) {
    return sum_stats(s, [](const scheduler::sched_domain_stats& st) {
        return st.lb_gained[scheduler::CPU_IDLE] + st.lb_gained[scheduler::CPU_NOT_IDLE] +
               st.lb_gained[scheduler::CPU_NEWLY_IDLE];
    });
}

workloads::kernel_task& hog(test::kernel_rig& r, const std::string& comm, unsigned cpu,
                            std::vector<bool> allowed = {}) {
    workloads::spawn_spec s;
    s.comm = comm;
    s.allowed = std::move(allowed);
    s.body = std::make_shared<workloads::scripted_program>(
        std::vector<op::op>{op::op::compute(1'000'000'000, nullptr)}, -1);
    return r.k.spawn(s, cpu);
}

std::vector<bool> cpus(std::initializer_list<unsigned> list, unsigned n = 8) {
    std::vector<bool> a(n, false);
    for (unsigned c : list) a[c] = true;
    return a;
}

// A task allowed on `allowed` (empty: everywhere), queued on `cpu` at `now`.
scheduler::task& add_task(test::sched_harness& h, const std::string& comm, unsigned cpu, scheduler::nsec now,
                          std::vector<bool> allowed = {}) {
    scheduler::task& t = h.make(comm, cpu, 0, scheduler::sched_policy::normal, false);
    t.allowed = std::move(allowed);
    h.s->add_initial_task(t, cpu, now);
    return t;
}

// One load_balance() pass of `cpu` at `sd`, run by that CPU.
unsigned balance(test::sched_harness& h, unsigned cpu, scheduler::sched_domain& sd, cpu_idle_type idle,
                 scheduler::nsec now) {
    h.s->set_calling_cpu(cpu);
    bool continue_balancing = true;
    return fair(*h.s).balancer().load_balance(cpu, sd, idle, continue_balancing, now);
}

bool spread_one_per_cpu(test::kernel_rig& r) {
    for (unsigned c = 0; c < r.k.sched().num_cpus(); ++c)
        if (r.k.sched().rq(c).nr_running != 1) return false;
    return true;
}

} // namespace

// ---- 1. Eight hogs started on one CPU of an idle 8-CPU LLC spread one per CPU. ------------------------

void rig_lb_1_8_hogs_started_on_cpu_0_of_an_idle(kernel_version k) {
    test::kernel_rig r(test::flat_machine(), test::rig_config(k));
    for (int i = 0; i < 8; ++i) hog(r, "hog" + std::to_string(i), 0);
    scheduler::nsec spread_at = 0;
    for (scheduler::nsec t = 5 * ms; t <= 1000 * ms && !spread_at; t += 5 * ms) {
        run_to(r, t);
        if (spread_one_per_cpu(r)) spread_at = t;
    }
    CAPTURE(spread_at / ms);
    CHECK(spread_at > 0);
    CHECK(spread_at <= 300 * ms);
    // It stays so, and the balancer moved them (the hogs never sleep: no wakeup placement).
    run_to(r, 2000 * ms);
    CHECK(spread_one_per_cpu(r));
    CHECK(lb_gained(r.k.sched()) >= 7);
    for (const auto& t : r.k.tasks()) CHECK(t->t.stats.nr_wakeups == 0);
}
TEST_CASE(
    "LB 1: 8 hogs started on CPU 0 of an idle 8-CPU LLC end up one per CPU within a few hundred ms (v5.15)") {
    rig_lb_1_8_hogs_started_on_cpu_0_of_an_idle(cfs);
}
TEST_CASE(
    "LB 1: 8 hogs started on CPU 0 of an idle 8-CPU LLC end up one per CPU within a few hundred ms (v6.12)") {
    rig_lb_1_8_hogs_started_on_cpu_0_of_an_idle(eevdf);
}

// The first moves in detail: the busy CPU's tick kicks an idle CPU (NOHZ), which pulls on behalf of
// the idle CPUs; a CPU that runs dry pulls at once (newidle).
TEST_CASE(
    "LB 1: the busy tick kicks the first idle CPU, which pulls for the idle CPUs, newidle pulls at once") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        std::vector<scheduler::task*> tasks;
        for (int i = 0; i < 8; ++i) tasks.push_back(&add_task(h, "hog" + std::to_string(i), 0, 0));
        h.schedule(0, 0);
        CHECK(fair(*h.s).balancing().nohz_nr_cpus() == 8); // CPU 0 has not ticked yet
        h.hooks.kicks.clear();
        // Jiffy 3: the idle CPUs' MC level (8 ms = 2 jiffies) is due.
        h.s->scheduler_tick(0, 12 * ms);
        // Its first busy tick takes it out of the NOHZ mask and kicks CPU 1 (the first idle CPU).
        CHECK(fair(*h.s).balancing().nohz_nr_cpus() == 7);
        REQUIRE(h.hooks.kicks == std::vector<unsigned>{1});
        REQUIRE(h.s->nohz_kick_pending(1));
        h.hooks.migrations.clear();
        h.s->nohz_idle_balance(1, 12 * ms + 2 * us);
        CHECK_FALSE(h.s->nohz_kick_pending(1));
        // CPUs 2-7 and then CPU 1 itself pulled (half the difference each time, some from CPUs that had
        // just pulled): one task per CPU.
        CHECK(h.hooks.migrations.size() >= 7);
        for (const auto& m : h.hooks.migrations) CHECK(m.why == migration_cause::nohz_balance);
        for (unsigned c = 0; c < 8; ++c) CHECK(h.rq(c).nr_running == 1);
        // CPU 2 balanced first and took half of CPU 0's eight.
        CHECK(domain(*h.s, 2, "MC").stats.lb_gained[scheduler::CPU_IDLE] == 4);
        // The NOHZ balancer's work is charged to CPU 1, which ran it.
        const auto w = h.s->take_balance_work(1);
        CHECK(w.migrations == h.hooks.migrations.size());
        CHECK(w.cost_ns > 0);
        // A CPU whose only task blocks pulls from an overloaded one before going idle.
        const unsigned lone = 5;
        h.schedule(lone, 13 * ms);
        add_task(h, "late", 0, 13 * ms);
        h.hooks.migrations.clear();
        h.block(lone, 14 * ms);
        REQUIRE(h.hooks.migrations.size() == 1); // a preemptible kernel stops after one
        CHECK(h.hooks.migrations[0].why == migration_cause::newidle_balance);
        CHECK(h.hooks.migrations[0].to == lone);
        CHECK(h.curr(lone) != &h.idle[lone]);
        CHECK(h.rq(lone).idle_stamp == 0); // it did not go idle
    }
}

// ---- 2. SMT: four hogs on four cores. -------------------------------------------------------------

void rig_lb_2_smt_2_with_4_cores_and_4_hogs_start(kernel_version k) {
    test::kernel_rig r(test::rig_config(k)); // mini: CPUs c and c + 4 are the threads of core c
    for (int i = 0; i < 4; ++i) hog(r, "hog" + std::to_string(i), 0);
    run_to(r, 1000 * ms);
    for (scheduler::nsec t = 1000 * ms; t <= 2000 * ms; t += 100 * ms) {
        run_to(r, t);
        for (unsigned core = 0; core < 4; ++core) {
            CAPTURE(t / ms, core);
            CHECK(r.k.sched().rq(core).nr_running + r.k.sched().rq(core + 4).nr_running == 1);
        }
    }
}
TEST_CASE("LB 2: SMT-2 with 4 cores and 4 hogs started on one CPU: one hog per core (v5.15)") {
    rig_lb_2_smt_2_with_4_cores_and_4_hogs_start(cfs);
}
TEST_CASE("LB 2: SMT-2 with 4 cores and 4 hogs started on one CPU: one hog per core (v6.12)") {
    rig_lb_2_smt_2_with_4_cores_and_4_hogs_start(eevdf);
}

// The decision behind it: an idle core pulls from a core running two hogs (prefer_sibling: the task
// difference between the groups, halved; v6.12 counts it per core with sibling_imbalance).
TEST_CASE("LB 2: an idle core's CPU pulls one of two hogs sharing a core, but not from a core with one") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k, {}, {}, test::smt_machine());
        auto& a = add_task(h, "a", 0, 0);
        auto& b = add_task(h, "b", 4, 0);
        h.schedule(0, 0);
        h.schedule(4, 0);
        h.ticks(0, 0, 40 * ms);
        h.ticks(4, 0, 40 * ms);
        // CPU 1 (idle core 1, same LLC) balances its MC domain: groups are cores {0,4} {1,5}.
        auto& mc = domain(*h.s, 1, "MC");
        // Both hogs run, one per thread: the imbalance (one task) cannot be pulled; a failed attempt.
        CHECK(balance(h, 1, mc, scheduler::CPU_IDLE, 41 * ms) == 0);
        CHECK(mc.stats.lb_failed[scheduler::CPU_IDLE] == 1);
        CHECK(mc.nr_balance_failed == 1);
        CHECK(a.cpu == 0);
        CHECK(b.cpu == 4);
        // A third hog queued on core 0's first thread can move.
        auto& c = add_task(h, "c", 0, 41 * ms);
        CHECK(balance(h, 1, mc, scheduler::CPU_IDLE, 42 * ms) == 1);
        CHECK(c.cpu == 1);
        CHECK(h.rq(1).nr_running == 1);
        CHECK(mc.nr_balance_failed == 0);
        CHECK(mc.balance_interval == mc.min_interval);
        // Core 1 now has one task: CPU 5, its idle sibling, does not take it (one per core).
        CHECK(balance(h, 5, domain(*h.s, 5, "SMT"), scheduler::CPU_IDLE, 43 * ms) == 0);
    }
}

// ---- 3. NUMA: a communicating pair stays on its node; 2 x (node CPUs) hogs split evenly. ------------

// The NUMA allowance is the version change NUMA_IMB_PER_LLC (v5.18): `per_llc` says whether the run has it.
void lb_3_numa_allowance(kernel_version k, const std::vector<std::pair<std::string, bool>>& features,
                         bool per_llc) {
    {
        CAPTURE(scheduler::to_string(k), per_llc);
        test::sched_harness h(k, features, {}, machine(2, 1, 8, 1)); // nodes {0-7} {8-15}
        REQUIRE(h.s->domains().describe(0) == "MC 8, NUMA 16");
        add_task(h, "ping", 0, 0);
        add_task(h, "pong", 1, 0);
        h.schedule(0, 0);
        h.schedule(1, 0);
        h.ticks(0, 0, 40 * ms);
        h.ticks(1, 0, 40 * ms);
        auto& numa = domain(*h.s, 8, "NUMA");
        h.hooks.migrations.clear();
        CHECK(balance(h, 8, numa, scheduler::CPU_IDLE, 41 * ms) == 0);
        CHECK(numa.stats.lb_balanced[scheduler::CPU_IDLE] == 1);
        CHECK(numa.stats.lb_nobusyg[scheduler::CPU_IDLE] == 1); // the imbalance came out 0
        CHECK(h.hooks.migrations.empty());
        // More runnable tasks on node 0, until node 1 takes some. v6.12 allows an imbalance of 2 tasks
        // while the destination runs at most imb_numa_nr (2); v5.15 allows half the difference up to 2
        // while the destination runs fewer than a quarter of its 8 CPUs: 6 tasks on node 0 before it pulls.
        unsigned on_node0 = 2;
        scheduler::nsec t = 42 * ms;
        while (h.rq(8).nr_running == 0 && on_node0 < 10) {
            add_task(h, "more" + std::to_string(on_node0), on_node0 % 2, t);
            ++on_node0;
            balance(h, 8, numa, scheduler::CPU_IDLE, t += ms);
        }
        CHECK(on_node0 == (per_llc ? 3u : 6u));
        // v5.15's imbalance is then 3 tasks, but the busiest CPU (3 of them) keeps its running one.
        CHECK(h.rq(8).nr_running == (per_llc ? 1u : 2u));
    }
}

TEST_CASE("LB 3: two NUMA nodes: an idle node does not pull one of two tasks (imbalance <= 2 allowed)") {
    for (auto k : both) lb_3_numa_allowance(k, {}, k == eevdf);
}

TEST_CASE("LB 3: the NUMA allowance follows NUMA_IMB_PER_LLC alone: v5.15 with it allows v6.12's, v6.12 "
          "without it v5.15's") {
    lb_3_numa_allowance(cfs, {{"NUMA_IMB_PER_LLC", true}}, true);
    lb_3_numa_allowance(eevdf, {{"NUMA_IMB_PER_LLC", false}}, false);
}

void rig_lb_3_two_numa_nodes_a_communicating_pair(kernel_version k) {
    test::kernel_rig r(machine(2, 1, 8, 1), test::rig_config(k));
    auto& ab = r.k.make_channel(workloads::channel_kind::pipe);
    auto& ba = r.k.make_channel(workloads::channel_kind::pipe);
    auto spec = [&](const char* comm, std::vector<op::op> ops) {
        workloads::spawn_spec s;
        s.comm = comm;
        s.body = std::make_shared<workloads::scripted_program>(std::move(ops), -1);
        return s;
    };
    // Pipelined: ping computes about 3 ms per message, pong 2 ms while ping does too (then it waits for
    // the next message), so both are runnable most of the time and an idle node could take one (pull
    // it, or push it by active balance).
    auto& a = r.k.spawn(
        spec("ping", {op::op::write(ab, 64), op::op::compute(3'000'000, nullptr), op::op::read(ba, 64)}), 0);
    auto& b = r.k.spawn(
        spec("pong", {op::op::read(ab, 64), op::op::write(ba, 64), op::op::compute(2'000'000, nullptr)}), 1);
    const auto& layout = r.k.sched().layout();
    for (scheduler::nsec t = 10 * ms; t <= 1000 * ms; t += 10 * ms) {
        run_to(r, t);
        CAPTURE(t / ms, a.t.cpu, b.t.cpu);
        CHECK(layout.node_of[a.t.cpu] == 0);
        CHECK(layout.node_of[b.t.cpu] == 0);
    }
    CHECK(b.t.stats.nr_wakeups > 100);                                    // pong waited for ping's messages
    CHECK(a.t.se.sum_exec_runtime + b.t.se.sum_exec_runtime > 1500 * ms); // mostly both running
    // No balancer moved either across the nodes (a wakeup would bring it back at once, so also count).
    std::uint64_t numa_moves = 0;
    for (unsigned c = 0; c < r.k.sched().num_cpus(); ++c)
        for (const auto& sd : r.k.sched().domains().domains(c))
            if (std::string(sd.name) == "NUMA") {
                for (auto g : sd.stats.lb_gained) numa_moves += g;
                numa_moves += sd.stats.alb_pushed;
            }
    CHECK(numa_moves == 0);
}
TEST_CASE("LB 3: two NUMA nodes: a communicating pair stays on its node (v5.15)") {
    rig_lb_3_two_numa_nodes_a_communicating_pair(cfs);
}
TEST_CASE("LB 3: two NUMA nodes: a communicating pair stays on its node (v6.12)") {
    rig_lb_3_two_numa_nodes_a_communicating_pair(eevdf);
}

void rig_lb_3_two_numa_nodes_2_x_node_cpus_hogs_s(kernel_version k) {
    test::kernel_rig r(machine(2, 1, 4, 1), test::rig_config(k)); // nodes {0-3} {4-7}
    for (int i = 0; i < 8; ++i) hog(r, "hog" + std::to_string(i), 0);
    run_to(r, 1500 * ms);
    unsigned node0 = 0, node1 = 0;
    for (unsigned c = 0; c < 8; ++c) {
        CAPTURE(c);
        CHECK(r.k.sched().rq(c).nr_running == 1);
        (r.k.sched().layout().node_of[c] == 0 ? node0 : node1) += r.k.sched().rq(c).nr_running;
    }
    CHECK(node0 == 4);
    CHECK(node1 == 4);
    // The NUMA level did move tasks.
    std::uint64_t numa_gained = 0;
    for (unsigned c = 0; c < 8; ++c)
        for (const auto& sd : r.k.sched().domains().domains(c))
            if (std::string(sd.name) == "NUMA")
                for (auto g : sd.stats.lb_gained) numa_gained += g;
    CHECK(numa_gained >= 4);
}
TEST_CASE("LB 3: two NUMA nodes: 2 x (node CPUs) hogs started on one CPU split evenly, one per CPU (v5.15)") {
    rig_lb_3_two_numa_nodes_2_x_node_cpus_hogs_s(cfs);
}
TEST_CASE("LB 3: two NUMA nodes: 2 x (node CPUs) hogs started on one CPU split evenly, one per CPU (v6.12)") {
    rig_lb_3_two_numa_nodes_2_x_node_cpus_hogs_s(eevdf);
}

// ---- Uptime: the first balance of every level is due once the machine has been up an interval. --------

// When a task first runs on node 1 after 40 hogs start on CPU 0 of an idle 2-node machine (2 x 4 LLCs x 4
// cores x 2 threads: the NUMA level spans 64 CPUs, a 64 ms interval), up `uptime` seconds.
scheduler::nsec first_on_node_1(kernel_version k, unsigned uptime) {
    auto cfg = test::rig_config(k);
    cfg.uptime_s = uptime;
    test::kernel_rig r(machine(2, 4, 4, 2), cfg);
    for (int i = 0; i < 40; ++i) hog(r, "hog" + std::to_string(i), 0);
    const auto& node_of = r.k.sched().layout().node_of;
    for (scheduler::nsec t = 1 * ms; t <= 600 * ms; t += 1 * ms) {
        run_to(r, t);
        for (unsigned c = 0; c < r.k.sched().num_cpus(); ++c)
            if (node_of[c] == 1 && r.k.sched().rq(c).nr_running > 0) return t;
    }
    return 0;
}

// A machine up for minutes balances its idle node at the first NOHZ kicks; one just booted waits for the
// NUMA level's interval (sd->last_balance = jiffies at boot): msecs_to_jiffies(64) = 16 jiffies.
TEST_CASE("LB 3: a machine up for minutes: the idle node pulls within the first ticks (v5.15)") {
    const scheduler::nsec t = first_on_node_1(cfs, 300);
    CHECK(t > 0);
    CHECK(t <= 12 * ms);
}
TEST_CASE("LB 3: a machine up for minutes: the idle node pulls within the first ticks (v6.12)") {
    const scheduler::nsec t = first_on_node_1(eevdf, 300);
    CHECK(t > 0);
    CHECK(t <= 12 * ms);
}
TEST_CASE("LB 3: a machine just booted: the idle node waits for the NUMA interval, 64 ms (v5.15)") {
    const scheduler::nsec t = first_on_node_1(cfs, 0);
    CHECK(t >= 60 * ms);
    CHECK(t <= 600 * ms);
}
TEST_CASE("LB 3: a machine just booted: the idle node waits for the NUMA interval, 64 ms (v6.12)") {
    const scheduler::nsec t = first_on_node_1(eevdf, 0);
    CHECK(t >= 60 * ms);
    CHECK(t <= 600 * ms);
}

// ---- 4. A cache-hot task is skipped until the failures pass cache_nice_tries. -----------------------

TEST_CASE(
    "LB 4: a queued task that ran < 0.5 ms ago is skipped by LLC balancing until nr_balance_failed > 1") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        auto& a = add_task(h, "a", 0, 0);
        auto& b = add_task(h, "b", 0, 0);
        h.schedule(0, 0);
        // Tick until the CPU changes hands: the task switched out has just run.
        scheduler::task* first = h.curr(0);
        scheduler::nsec t = 0;
        while (h.curr(0) == first) {
            t += h.cfg.tick_ns();
            h.tick(0, t);
        }
        scheduler::task& hot = h.curr(0) == &a ? b : a;
        scheduler::task& running = h.curr(0) == &a ? a : b;
        REQUIRE(hot.se.exec_start == t);
        auto& mc = domain(*h.s, 1, "MC");
        REQUIRE(mc.cache_nice_tries == 1);
        // Attempts 1 and 2 (100 and 200 us later): hot, skipped; each failure counts.
        for (unsigned attempt = 1; attempt <= 2; ++attempt) {
            CAPTURE(attempt);
            CHECK(balance(h, 1, mc, scheduler::CPU_IDLE, t + attempt * 100 * us) == 0);
            CHECK(hot.stats.nr_failed_migrations_hot == attempt);
            CHECK(mc.nr_balance_failed == attempt);
            CHECK(mc.stats.lb_failed[scheduler::CPU_IDLE] == attempt);
            CHECK(mc.stats.lb_hot_gained[scheduler::CPU_IDLE] == 0);
        }
        CHECK(running.stats.nr_failed_migrations_running >= 2);
        // Attempt 3, still within 0.5 ms: nr_balance_failed (2) > cache_nice_tries (1): it moves, hot.
        CHECK(balance(h, 1, mc, scheduler::CPU_IDLE, t + 300 * us) == 1);
        CHECK(hot.cpu == 1);
        CHECK(mc.stats.lb_hot_gained[scheduler::CPU_IDLE] == 1);
        CHECK(hot.stats.nr_forced_migrations == 1);
        CHECK(mc.nr_balance_failed == 0);
        CHECK(mc.stats.lb_gained[scheduler::CPU_IDLE] == 1);
    }
}

TEST_CASE("LB 4: a task last run 0.5 ms ago or more is cold and moves at the first attempt") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        add_task(h, "a", 0, 0);
        add_task(h, "b", 0, 0);
        h.schedule(0, 0);
        scheduler::task* first = h.curr(0);
        scheduler::nsec t = 0;
        while (h.curr(0) == first) {
            t += h.cfg.tick_ns();
            h.tick(0, t);
        }
        auto& mc = domain(*h.s, 1, "MC");
        CHECK(balance(h, 1, mc, scheduler::CPU_IDLE, t + 500 * us) == 1);
        CHECK(mc.stats.lb_hot_gained[scheduler::CPU_IDLE] == 0);
    }
}

// ---- 5. Pinned tasks: group_imbalanced keeps two groups from balancing group-wise. ------------------

void rig_lb_5_4_hogs_allowed_on_cpus_3_6_across_g(kernel_version k) {
    test::kernel_rig r(machine(1, 2, 4, 1), test::rig_config(k)); // LLCs {0-3} {4-7}
    for (int i = 0; i < 4; ++i) hog(r, "hog" + std::to_string(i), 3, cpus({3, 4, 5, 6}));
    run_to(r, 1000 * ms);
    for (scheduler::nsec t = 1000 * ms; t <= 3000 * ms; t += 50 * ms) {
        run_to(r, t);
        CAPTURE(t / ms);
        for (unsigned c = 3; c <= 6; ++c) {
            CAPTURE(c);
            CHECK(r.k.sched().rq(c).nr_running == 1);
        }
    }
}
TEST_CASE("LB 5: 4 hogs allowed on CPUs 3-6 across groups {0-3} {4-7} settle one per CPU, never two on CPU 3 "
          "(v5.15)") {
    rig_lb_5_4_hogs_allowed_on_cpus_3_6_across_g(cfs);
}
TEST_CASE("LB 5: 4 hogs allowed on CPUs 3-6 across groups {0-3} {4-7} settle one per CPU, never two on CPU 3 "
          "(v6.12)") {
    rig_lb_5_4_hogs_allowed_on_cpus_3_6_across_g(eevdf);
}

TEST_CASE("LB 5: affinity keeps the LLC level from balancing, so the parent sees the group imbalanced") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k, {}, {}, machine(1, 2, 4, 1));
        const char* pkg = k == cfs ? "DIE" : "PKG";
        REQUIRE(h.s->domains().describe(0) == std::string("MC 4, ") + pkg + " 8");
        std::vector<scheduler::task*> t;
        for (int i = 0; i < 4; ++i)
            t.push_back(&add_task(h, "hog" + std::to_string(i), 3, 0, cpus({3, 4, 5, 6})));
        h.schedule(3, 0);
        h.ticks(3, 0, 40 * ms);
        // CPU 0 (idle, same LLC) finds CPU 3 busiest, but no task may run on CPUs 0-2.
        auto& mc0 = domain(*h.s, 0, "MC");
        CHECK(balance(h, 0, mc0, scheduler::CPU_IDLE, 41 * ms) == 0);
        auto& pkg4 = domain(*h.s, 4, pkg);
        const auto& group03 = *std::find_if(pkg4.groups, pkg4.groups + pkg4.nr_groups,
                                            [](const scheduler::sched_group& g) { return g.contains(3); });
        CHECK(group03.sgc->imbalance == 1); // set through CPU 0's parent: the group {0-3}
        for (auto* p : t) CHECK(p->stats.nr_failed_migrations_affine >= 1);
        // The first idle CPUs of {4-7} balancing the package see {0-3} imbalanced (4 tasks on 4 CPUs
        // would otherwise look fine) and pull one task each.
        CHECK(balance(h, 4, pkg4, scheduler::CPU_IDLE, 42 * ms) == 1);
        CHECK(balance(h, 5, domain(*h.s, 5, pkg), scheduler::CPU_IDLE, 43 * ms) == 1);
        CHECK(balance(h, 6, domain(*h.s, 6, pkg), scheduler::CPU_IDLE, 44 * ms) == 1);
        CHECK(h.rq(3).nr_running == 1);
        // CPU 7 is allowed nothing; CPU 0 finds CPU 3 with one task: balanced, the flag is cleared.
        CHECK(balance(h, 0, mc0, scheduler::CPU_IDLE, 45 * ms) == 0);
        CHECK(group03.sgc->imbalance == 0);
        for (unsigned c = 3; c <= 6; ++c) CHECK(h.rq(c).nr_running == 1);
    }
}

TEST_CASE(
    "LB 5: a task that may not run on the balancing CPU goes to another CPU of its group (DST_PINNED)") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k, {}, {}, machine(1, 2, 4, 1));
        const char* pkg = k == cfs ? "DIE" : "PKG";
        add_task(h, "a", 3, 0, cpus({3, 5}));
        auto& b = add_task(h, "b", 3, 0, cpus({3, 5}));
        h.schedule(3, 0);
        h.ticks(3, 0, 40 * ms);
        scheduler::task& queued = h.curr(3) == &b ? *h.rq(3).cfs_tasks.tail : b;
        REQUIRE(!queued.on_cpu);
        CHECK(balance(h, 4, domain(*h.s, 4, pkg), scheduler::CPU_IDLE, 41 * ms) == 1);
        CHECK(queued.cpu == 5);
        CHECK(h.rq(4).nr_running == 0);
        CHECK(queued.stats.nr_failed_migrations_affine == 1);
    }
}

// ---- 6. Active balance: a lone hog on a CPU that IRQ work slows down. ------------------------------

TEST_CASE("LB 6: a single hog on a CPU under heavy IRQ load moves to an idle CPU by active balance (v6.12)") {
    test::kernel_rig r(test::flat_machine(), test::rig_config(eevdf));
    auto& h = hog(r, "hog", 2);
    run_to(r, 50 * ms);
    REQUIRE(h.t.cpu == 2);
    r.k.sched().set_capacity_pressure(2, 600); // IRQ work takes 600 of its 1024
    run_to(r, 500 * ms);
    CHECK(h.t.cpu != 2);
    CHECK(sum_stats(r.k.sched(), [](const scheduler::sched_domain_stats& st) { return st.alb_pushed; }) == 1);
    // It keeps running where it went; CPU 2 stays empty.
    run_to(r, 1000 * ms);
    CHECK(r.k.sched().rq(2).nr_running == 0);
}

TEST_CASE("LB 6: v5.15 has no misfit class on symmetric CPUs: a lone hog stays on its slowed CPU") {
    test::kernel_rig r(test::flat_machine(), test::rig_config(cfs));
    auto& h = hog(r, "hog", 2);
    run_to(r, 50 * ms);
    r.k.sched().set_capacity_pressure(2, 600);
    run_to(r, 500 * ms);
    CHECK(h.t.cpu == 2);
    CHECK(sum_stats(r.k.sched(), [](const scheduler::sched_domain_stats& st) { return st.alb_count; }) == 0);
}

TEST_CASE("LB 6: the stopper switches the running task out and pushes it, two switches on the source") {
    test::sched_harness h(eevdf);
    auto& p = add_task(h, "hog", 2, 0);
    h.schedule(2, 0);
    h.ticks(2, 0, 40 * ms);
    h.s->set_capacity_pressure(2, 600);
    auto& mc = domain(*h.s, 5, "MC");
    h.hooks.kicks.clear();
    CHECK(balance(h, 5, mc, scheduler::CPU_IDLE, 41 * ms) == 0);
    CHECK(mc.stats.lb_failed[scheduler::CPU_IDLE] == 1);
    CHECK(h.rq(2).active_balance);
    CHECK(h.rq(2).push_cpu == 5);
    CHECK(h.hooks.kicks == std::vector<unsigned>{2}); // the stopper's wakeup: an IPI to CPU 2
    const auto switches = h.rq(2).nr_switches;
    h.hooks.kicks.clear();
    h.hooks.migrations.clear();
    CHECK(&h.schedule(2, 41 * ms + 2 * us) == &h.idle[2]); // the stopper ran, then nothing is left
    REQUIRE(h.hooks.migrations.size() == 1);
    CHECK(h.hooks.migrations[0].why == migration_cause::active_balance);
    CHECK(p.cpu == 5);
    CHECK(h.rq(2).nr_switches == switches + 1); // hog -> stopper (stopper -> idle is the idle switch)
    CHECK(p.stats.nr_involuntary_switches >= 1);
    CHECK(h.s->take_balance_work(2).switches == 1);
    CHECK(h.hooks.kicks == std::vector<unsigned>{5}); // CPU 5 is told to run it
    CHECK(mc.stats.alb_pushed == 1);
    CHECK_FALSE(h.rq(2).active_balance);
}

// ---- Intervals and newidle gating. ------------------------------------------------------------------

TEST_CASE(
    "LB intervals: a balanced domain doubles balance_interval up to max_interval, an imbalance resets it") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        auto& mc = domain(*h.s, 1, "MC");
        REQUIRE(mc.balance_interval == 8);
        CHECK(balance(h, 1, mc, scheduler::CPU_IDLE, 1 * ms) == 0); // nothing anywhere
        CHECK(mc.balance_interval == 16);
        CHECK(balance(h, 1, mc, scheduler::CPU_IDLE, 2 * ms) == 0);
        CHECK(mc.balance_interval == 16); // max_interval = 2 x 8 CPUs
        CHECK(balance(h, 1, mc, scheduler::CPU_NEWLY_IDLE, 3 * ms) == 0);
        CHECK(mc.balance_interval == 16); // newidle never changes it
        add_task(h, "a", 0, 3 * ms);
        add_task(h, "b", 0, 3 * ms);
        h.schedule(0, 3 * ms);
        CHECK(balance(h, 1, mc, scheduler::CPU_IDLE, 10 * ms) == 1);
        CHECK(mc.balance_interval == 8);
        // get_sd_balance_interval: 8 ms idle = 2 jiffies at HZ 250; busy: x 16 = 32 jiffies, less one.
        CHECK(fair(*h.s).balancing().balance_interval(mc, false) == 2);
        CHECK(fair(*h.s).balancing().balance_interval(mc, true) == 31);
    }
}

TEST_CASE("LB newidle: skipped while no CPU is overloaded or avg_idle is shorter than the balance costs") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        auto& mc = domain(*h.s, 1, "MC");
        add_task(h, "a", 0, 0);
        add_task(h, "b", 0, 0);
        auto& c = add_task(h, "c", 1, 0, cpus({1}));
        h.schedule(0, 0);
        h.schedule(1, 0);
        REQUIRE(h.s->rd_overloaded());
        // avg_idle below the threshold (v5.15: migration_cost 0.5 ms; v6.12: MC's max_newidle_lb_cost).
        mc.max_newidle_lb_cost = 600 * us;
        h.rq(1).avg_idle = 400 * us;
        h.hooks.migrations.clear();
        h.block(1, 1 * ms);
        CHECK(h.hooks.migrations.empty());
        CHECK(mc.stats.lb_count[scheduler::CPU_NEWLY_IDLE] == 0);
        CHECK(h.curr(1) == &h.idle[1]);
        // Long idle periods: it balances, pulls one task, and records what the pass cost.
        h.wake(c, 1, 2 * ms);
        h.schedule(1, 2 * ms);
        REQUIRE(h.curr(1) == &c);
        h.rq(1).avg_idle = 2 * ms;
        mc.max_newidle_lb_cost = 0;
        h.block(1, 3 * ms);
        CHECK(mc.stats.lb_count[scheduler::CPU_NEWLY_IDLE] == 1);
        CHECK(h.hooks.migrations.size() == 1);
        CHECK(h.curr(1) != &h.idle[1]);
        CHECK(mc.max_newidle_lb_cost > 0);
        CHECK(mc.max_newidle_lb_cost == fair(*h.s).balancer().last_cost());
    }
}

// ---- 03 item 5: fork placement on two sockets. -----------------------------------------------------

TEST_CASE("03 5: forking hogs on an idle 2-socket machine: v5.15 stays on the node until running + 1 reaches "
          "25% of its CPUs, v6.12 leaves once idle counts differ by more than 2") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k, {}, {}, machine(2, 1, 8, 2)); // 2 x 8 cores x 2 threads: 16 CPUs a node
        REQUIRE(h.s->domains().describe(0) == "SMT 2, MC 16, NUMA 32");
        const auto& layout = h.s->layout();
        auto& parent = add_task(h, "parent", 0, 0);
        h.schedule(0, 0);
        std::vector<unsigned> where;
        for (int i = 0; i < 3; ++i) {
            auto& child = h.make("child" + std::to_string(i), 0, 0, scheduler::sched_policy::normal, false);
            const scheduler::nsec now = (1 + static_cast<scheduler::nsec>(i)) * ms;
            h.s->sched_fork(child, 0, now);
            where.push_back(h.s->wake_up_new_task(child, 0, now));
        }
        CAPTURE(where[0], where[1], where[2]);
        // v5.15: node 0 has 16 CPUs, 25% is 4: children 1 and 2 (running + 1 = 2, 3) stay, child 3 goes.
        // v6.12: imb_numa_nr = 2 (two LLCs): child 1 stays (2 <= 2, idle 15 vs 16), child 2 goes.
        const unsigned stay = k == cfs ? 2 : 1;
        std::set<unsigned> cores{layout.core_of[parent.cpu]};
        for (unsigned i = 0; i < where.size(); ++i) {
            CAPTURE(i);
            CHECK(layout.node_of[where[i]] == (i < stay ? 0u : 1u));
            if (i < stay) CHECK(cores.insert(layout.core_of[where[i]]).second); // one per core
        }
        CHECK(layout.node_of[where[stay]] == 1);
    }
}

TEST_CASE("03 5: forks on an idle single-LLC machine each go to an idle CPU, the parent's last") {
    for (auto k : both) {
        CAPTURE(scheduler::to_string(k));
        test::sched_harness h(k);
        add_task(h, "parent", 3, 0);
        h.schedule(3, 0);
        std::set<unsigned> used{3};
        for (int i = 0; i < 7; ++i) {
            auto& child = h.make("child" + std::to_string(i), 3, 0, scheduler::sched_policy::normal, false);
            h.s->sched_fork(child, 3, ms);
            const unsigned cpu = h.s->wake_up_new_task(child, 3, ms);
            CHECK(used.insert(cpu).second);
        }
        CHECK(used.size() == 8);
        // Pinned children go where they may, even if that CPU is busy.
        auto& pinned = h.make("pinned", 3, 0, scheduler::sched_policy::normal, true);
        h.s->sched_fork(pinned, 3, 2 * ms);
        CHECK(h.s->wake_up_new_task(pinned, 3, 2 * ms) == 3);
    }
}
