// Fast-forward of settled compute (cpu_executor, compute_settling, flow_meter): when it settles and when
// it starts over, and that a fast-forwarded run retires what the exact run retires while simulating a
// fraction of the accesses.
#include "platforms/platform_loader.h"
#include "support/kernel_rig.h"
#include "workloads/kernel/compute_settling.h"

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

using namespace warmsched;
using models::mem_source;
using workloads::access_mix;
using workloads::compute_settling;

namespace {
// `n` accesses, half served by the own L3 at 10 ns and half by DRAM at `dram_ns`.
access_mix mix(double n, double dram_ns) {
    access_mix m;
    m.count[static_cast<int>(mem_source::llc)] = n / 2;
    m.latency_ps[static_cast<int>(mem_source::llc)] = n / 2 * 10'000;
    m.count[static_cast<int>(mem_source::local_memory)] = n / 2;
    m.latency_ps[static_cast<int>(mem_source::local_memory)] = n / 2 * dram_ns * 1000;
    return m;
}
// One window of `compute_settling::window_accesses` accesses at `ps_per_instr`, 100 instructions each.
void window(compute_settling& s, double ps_per_instr, double dram_ns = 90) {
    const double a = compute_settling::window_accesses;
    s.detailed(static_cast<std::uint64_t>(100 * a), ps_per_instr * 100 * a, mix(a, dram_ns));
}

struct hog_run {
    double instructions = 0;
    std::uint64_t accesses = 0, fast_forwarded = 0, sampled = 0;
};

// `tasks` CPU hogs, each walking its own 4 MiB at 10 accesses per kilo-instruction, on zen3-5950x.
hog_run run_hogs(unsigned tasks, unsigned fast_forward, scheduler::nsec ns, std::uint64_t seed = 1) {
    const auto p = platform::load_platform("zen3-5950x");
    test::kernel_rig r(p, scheduler::sched_config::defaults(scheduler::kernel_version::eevdf_v6_12, 32),
                       seed);
    r.k.set_fast_forward(fast_forward);
    workloads::memory_profile prof;
    prof.working_set = 4 << 20;
    prof.accesses_per_kilo_instruction = 10;
    prof.write_fraction = 0.25;
    std::vector<workloads::kernel_task*> ts;
    for (unsigned i = 0; i < tasks; ++i)
        ts.push_back(&r.start("hog" + std::to_string(i), {workloads::op::compute(4'000'000'000, &prof)}, -1,
                              2 * i, true));
    r.k.run(ns);
    hog_run out;
    for (auto* t : ts) out.instructions += static_cast<double>(t->current->count - t->remaining);
    for (unsigned c = 0; c < r.m.num_cpus(); ++c) {
        for (auto n : r.m.cpu(c).stats().accesses) out.accesses += n;
        out.fast_forwarded += r.k.executor(c).stats().ff_accesses;
        out.sampled += r.k.executor(c).stats().ff_sampled;
    }
    return out;
}

// SystemC elaborates one simulation per process: each run goes in a child process.
hog_run in_child(unsigned tasks, unsigned fast_forward, scheduler::nsec ns) {
    int fd[2];
    REQUIRE(pipe(fd) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        const hog_run r = run_hogs(tasks, fast_forward, ns);
        const bool ok = write(fd[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
        _exit(ok ? 0 : 1);
    }
    close(fd[1]);
    hog_run r;
    const ssize_t got = read(fd[0], &r, sizeof r);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(got == static_cast<ssize_t>(sizeof r));
    REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    return r;
}
} // namespace

TEST_CASE("compute settles after three windows that agree within 4 percent") {
    compute_settling s;
    int profile = 0;
    s.at(3, 7, reinterpret_cast<const workloads::memory_profile*>(&profile), 1000);
    window(s, 300, 150); // a refill: slow
    window(s, 246, 100);
    window(s, 240, 90);
    CHECK_FALSE(s.settled()); // 300 vs 240: still warming
    window(s, 238, 80);
    CHECK(s.settled()); // 246, 240, 238: within 4%
    CHECK(s.ps_per_instruction() == Approx((246 + 240 + 238) / 3.0));
    CHECK(s.latency_per_access() == Approx((10'000 + 90'000) / 2.0)); // L3 10 ns, DRAM 100/90/80 ns
}

TEST_CASE("compute does not settle before it has made three accesses per working-set line") {
    compute_settling s;
    int profile = 0;
    // 16,384 lines (1 MiB): 49,152 accesses, i.e. six windows, however steady the first ones look.
    s.at(0, 1, reinterpret_cast<const workloads::memory_profile*>(&profile), 16384);
    for (int i = 0; i < 5; ++i) window(s, 200);
    CHECK_FALSE(s.settled());
    window(s, 200);
    CHECK(s.settled());
}

TEST_CASE("after a drift three windows settle the compute again without a second refill") {
    compute_settling s;
    int profile = 0;
    s.at(0, 1, reinterpret_cast<const workloads::memory_profile*>(&profile), 16384);
    for (int i = 0; i < 6; ++i) window(s, 200);
    REQUIRE(s.settled());
    access_mix all_dram;
    all_dram.count[static_cast<int>(mem_source::local_memory)] = compute_settling::drift_accesses;
    all_dram.latency_ps[static_cast<int>(mem_source::local_memory)] =
        compute_settling::drift_accesses * 90'000;
    CHECK_FALSE(s.sampled(all_dram));
    for (int i = 0; i < 2; ++i) window(s, 300, 400);
    CHECK_FALSE(s.settled());
    window(s, 300, 400);
    CHECK(s.settled());
}

TEST_CASE("a settled compute slows down with its sources' queues but not with its mix") {
    compute_settling s;
    int profile = 0;
    s.at(0, 1, reinterpret_cast<const workloads::memory_profile*>(&profile), 1000);
    for (int i = 0; i < 3; ++i) window(s, 200, 90); // mean latency 50 ns
    REQUIRE(s.settled());
    CHECK(s.slowdown(mix(256, 90)) == Approx(1.0));
    CHECK(s.slowdown(mix(256, 190)) == Approx(100.0 / 50.0)); // DRAM queues 100 ns longer
    // A sample that happened to hit DRAM more often, at the same latencies: no slowdown.
    access_mix more_dram = mix(256, 90);
    more_dram.count[static_cast<int>(mem_source::local_memory)] += 64;
    more_dram.latency_ps[static_cast<int>(mem_source::local_memory)] += 64 * 90'000;
    CHECK(s.slowdown(more_dram) == Approx(1.0));
}

TEST_CASE("a switch or a drift of more than 50 percent starts settling over") {
    int profile = 0;
    const auto* prof = reinterpret_cast<const workloads::memory_profile*>(&profile);
    compute_settling s;
    s.at(0, 1, prof, 1000);
    for (int i = 0; i < 3; ++i) window(s, 200);
    REQUIRE(s.settled());
    s.at(0, 1, prof, 1000); // same place: kept
    CHECK(s.settled());
    // Queues alone (DRAM 300 ns instead of 90, the same mix) are not a drift: slowdown() covers them.
    CHECK(s.sampled(mix(compute_settling::drift_accesses, 300)));
    CHECK(s.settled());
    // A mix within 50% of the settled mean latency (50 ns) keeps it settled; one that moved further drifts.
    access_mix more_dram = mix(compute_settling::drift_accesses, 90);   // 512 L3 + 512 DRAM
    more_dram.count[static_cast<int>(mem_source::local_memory)] += 400; // mean (5.12+83.1)/1424 = 62 ns
    more_dram.latency_ps[static_cast<int>(mem_source::local_memory)] += 400 * 90'000;
    CHECK(s.sampled(more_dram));
    CHECK(s.settled());
    access_mix all_dram;
    all_dram.count[static_cast<int>(mem_source::local_memory)] = compute_settling::drift_accesses;
    all_dram.latency_ps[static_cast<int>(mem_source::local_memory)] =
        compute_settling::drift_accesses * 90'000;
    CHECK_FALSE(s.sampled(all_dram)); // mean 90 ns: 80% off
    CHECK_FALSE(s.settled());
    for (int i = 0; i < 3; ++i) window(s, 200);
    REQUIRE(s.settled());
    s.at(0, 2, prof, 1000); // a switch on that CPU (new epoch)
    CHECK_FALSE(s.settled());
    for (int i = 0; i < 3; ++i) window(s, 200);
    s.at(5, 2, prof, 1000); // a migration
    CHECK_FALSE(s.settled());
}

TEST_CASE("fast-forwarded hogs retire what exact hogs retire from a fraction of the accesses") {
    // 16 hogs with 4 MiB each on zen3-5950x for 8 ms (8 per CCD: 32 MiB of working sets per 32 MiB L3).
    const hog_run exact = in_child(16, 1, 8'000'000);
    const hog_run ff = in_child(16, 64, 8'000'000);
    REQUIRE(exact.fast_forwarded == 0);
    // Most of the run is fast-forwarded once the working sets are warm...
    CHECK(ff.fast_forwarded > 0.4 * static_cast<double>(ff.accesses));
    CHECK(ff.sampled * 64 <= ff.fast_forwarded + 64 * 16);
    // ...and the tasks make the same progress (measured: within 1%).
    CHECK(ff.instructions == Approx(exact.instructions).epsilon(0.10));
    // The accesses counted stand for the ones the tasks made.
    CHECK(static_cast<double>(ff.accesses) == Approx(static_cast<double>(exact.accesses)).epsilon(0.10));
    // Same seed, same run.
    const hog_run again = in_child(16, 64, 8'000'000);
    CHECK(again.instructions == ff.instructions);
    CHECK(again.fast_forwarded == ff.fast_forwarded);
}
