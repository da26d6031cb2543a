// Benchmark: the scheduler's own cost per tick and per sleep/wakeup with N tasks queued on one CPU, under
// CFS (v5.15) and EEVDF (v6.12), without the hardware model or SystemC -- the scheduler library alone,
// driven the way the simulated kernel drives it. Shows how the fair queue scales with its length: the
// kernel's augmented rbtree makes update_min_vruntime, cfs_rq_min_slice and pick_eevdf O(log n), and so
// must the model's (scheduler/fair/entity_tree.h). Not a test; see docs/performance.md.
//
//   queue_cost [PLATFORM [N ...]]      default: zen3-5950x, N = 10 100 1000 4000
//
// For each kernel and N: N nice-0 tasks pinned to CPU 0; then (a) 20,000 ticks 4 ms apart, each with the
// reschedule it asks for, and (b) 20,000 cycles of "curr blocks, the next task runs, the blocked task is
// woken by CPU 1 1 us later". Prints the host nanoseconds per tick and per cycle.
#include "platforms/config/config_error.h"
#include "platforms/fabric_graph.h"
#include "platforms/platform_loader.h"
#include "scheduler/core/scheduler.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

using namespace warmsched;
using scheduler::nsec;

namespace {
struct no_hooks final : scheduler::scheduler_hooks {
    void kick_cpu(unsigned) override {}
};

struct result {
    double tick_ns, cycle_ns;
};

result measure(const platform::topology& topo, const std::vector<std::vector<unsigned>>& distances,
               scheduler::kernel_version k, unsigned n) {
    no_hooks hooks;
    const scheduler::sched_config cfg = scheduler::sched_config::defaults(k, topo.num_cpus());
    scheduler::scheduler s(topo, distances, cfg, hooks);
    std::deque<scheduler::task> idle, tasks;
    for (unsigned c = 0; c < topo.num_cpus(); ++c) {
        idle.emplace_back();
        idle.back().comm = "swapper/" + std::to_string(c);
        s.init_idle(idle.back(), c);
    }
    for (unsigned i = 0; i < n; ++i) {
        tasks.emplace_back();
        scheduler::task& t = tasks.back();
        t.pid = static_cast<int>(i + 1);
        t.tgid = t.pid;
        t.comm = "hog";
        t.allowed.assign(topo.num_cpus(), false);
        t.allowed[0] = true;
        s.add_initial_task(t, 0, 0);
    }
    nsec now = 1000;
    s.schedule(0, true, now);
    const nsec period = cfg.tick_ns();
    constexpr int rounds = 20000;
    using clock = std::chrono::steady_clock;

    auto t0 = clock::now();
    for (int i = 0; i < rounds; ++i) {
        now += period;
        s.scheduler_tick(0, now);
        if (s.need_resched(0)) s.schedule(0, true, now);
    }
    const double tick_ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / rounds;

    t0 = clock::now();
    for (int i = 0; i < rounds; ++i) {
        now += 50'000;
        scheduler::task* p = s.rq(0).curr;
        p->state = scheduler::task_state::sleeping;
        s.schedule(0, false, now);
        now += 1'000;
        s.try_to_wake_up(*p, 1, 0, now);
        if (s.need_resched(0)) s.schedule(0, true, now);
    }
    const double cycle_ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / rounds;
    return {tick_ns, cycle_ns};
}
} // namespace

int main(int argc, char* argv[]) {
    try {
        const std::string name = argc > 1 ? argv[1] : "zen3-5950x";
        std::vector<unsigned> sizes;
        for (int i = 2; i < argc; ++i) sizes.push_back(static_cast<unsigned>(std::atoi(argv[i])));
        if (sizes.empty()) sizes = {10, 100, 1000, 4000};
        const platform::platform_params p = platform::load_platform(name);
        const platform::topology topo(p);
        const platform::fabric_graph graph(p, topo, {});
        const auto distances = platform::numa_distances(p, topo, graph);
        std::printf("%-6s %6s %14s %24s\n", "kernel", "N", "ns per tick", "ns per sleep+wakeup");
        for (const auto k : {scheduler::kernel_version::cfs_v5_15, scheduler::kernel_version::eevdf_v6_12})
            for (const unsigned n : sizes) {
                const result r = measure(topo, distances, k, n);
                std::printf("%-6s %6u %14.0f %24.0f\n", scheduler::to_string(k), n, r.tick_ns, r.cycle_ns);
            }
    } catch (const config::config_error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
    return 0;
}
