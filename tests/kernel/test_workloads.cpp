// The benchmark workloads on the simulated kernel: hackbench delivers every message in every mode, and
// perf bench sched pipe reproduces the direct-cost calibration of reference/scheduler/07-costs.md.
#include "support/kernel_rig.h"
#include "workloads/bench/messaging.h"
#include "workloads/bench/sched_pipe.h"
#include "workloads/cli/command_line.h"

#include "platforms/platform_loader.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace warmsched;

namespace {
workloads::workload_command start(test::kernel_rig& r, const std::string& line) {
    auto wc = workloads::parse_command_line(workloads::split_command_line(line), r.m.num_cpus());
    wc.w->start(r.k, wc.allowed);
    return wc;
}
const workloads::messaging& as_messaging(const workloads::workload_command& wc) {
    return dynamic_cast<const workloads::messaging&>(*wc.w);
}
// perf bench sched pipe on one CPU (taskset -c 0) and, at the same time, on two idle CPUs of the
// other CCD (taskset -c 8,9): us/op of each, on zen3-5950x.
std::pair<double, double> pipe_pinned_and_spread(const std::vector<std::string>& overrides) {
    test::kernel_rig r(platform::load_platform("zen3-5950x", overrides),
                       scheduler::sched_config::defaults(scheduler::kernel_version::eevdf_v6_12, 32));
    auto one = start(r, "taskset -c 0 perf bench sched pipe -l 5000");
    auto two = start(r, "taskset -c 8,9 perf bench sched pipe -l 5000");
    r.k.run();
    REQUIRE(one.w->finished());
    REQUIRE(two.w->finished());
    return {dynamic_cast<const workloads::sched_pipe&>(*one.w).usecs_per_op(),
            dynamic_cast<const workloads::sched_pipe&>(*two.w).usecs_per_op()};
}
// Request/response loops of 100-byte messages between two pinned tasks, over a pipe or an AF_UNIX stream
// socket each way (bench/calibration/loopback_rr.c's pipe and unix modes), all at once on zen3-5950x
// (one SystemC design per process): us per round trip of each pair of CPUs {client, server}.
std::vector<double> round_trips_us(const std::vector<std::pair<workloads::channel_kind, std::pair<unsigned, unsigned>>>& loops) {
    test::kernel_rig r(platform::load_platform("zen3-5950x", {}),
                       scheduler::sched_config::defaults(scheduler::kernel_version::eevdf_v6_12, 32));
    constexpr long trips = 2000;
    using workloads::op;
    std::vector<workloads::kernel_task*> clients;
    for (const auto& [kind, cpus] : loops) {
        workloads::channel& up = r.k.make_channel(kind);
        workloads::channel& down = r.k.make_channel(kind);
        r.start("server", {op::read(up, 100), op::write(down, 100)}, trips, cpus.second);
        clients.push_back(&r.start("client", {op::write(up, 100), op::read(down, 100)}, trips, cpus.first));
    }
    r.k.run();
    REQUIRE(r.k.finished());
    std::vector<double> us;
    for (const auto* c : clients) us.push_back(static_cast<double>(c->exited - c->created) / 1e3 / trips);
    return us;
}
} // namespace

TEST_CASE("hackbench options parse like rt-tests hackbench") {
    auto wc = workloads::parse_command_line(
        workloads::split_command_line("hackbench -p -s 200 -l5 --groups=3 -f 4 -T"), 8);
    const auto& o = as_messaging(wc).options();
    CHECK(o.pipes);
    CHECK(o.datasize == 200);
    CHECK(o.loops == 5);
    CHECK(o.groups == 3);
    CHECK(o.fds == 4);
    CHECK(o.threads);
    auto d = workloads::parse_command_line({"hackbench"}, 8);
    CHECK(as_messaging(d).options().groups == 10);
    CHECK(as_messaging(d).options().fds == 20);
    CHECK(as_messaging(d).options().loops == 100);
    CHECK(as_messaging(d).options().datasize == 100);
    CHECK_FALSE(as_messaging(d).options().pipes);
    CHECK_FALSE(as_messaging(d).options().threads);
    CHECK_THROWS_WITH(workloads::parse_command_line({"hackbench", "-g"}, 8),
                      Catch::StartsWith("hackbench: option requires an argument -- 'g'"));
    CHECK_THROWS_WITH(workloads::parse_command_line({"hackbench", "-s", "1k"}, 8),
                      Catch::StartsWith("hackbench: --datasize|-s requires an integer > 0"));
    std::vector<bool> mask;
    REQUIRE(workloads::parse_cpu_list("0-2,5", 8, mask));
    CHECK(mask == std::vector<bool>{true, true, true, false, false, true, false, false});
    CHECK_FALSE(workloads::parse_cpu_list("3-1", 8, mask));
    // util-linux's strides (cpulist_parse): N-M:S takes every S-th CPU of the range.
    REQUIRE(workloads::parse_cpu_list("0-7:2", 8, mask));
    CHECK(mask == std::vector<bool>{true, false, true, false, true, false, true, false});
    REQUIRE(workloads::parse_cpu_list("1-6:3,7", 8, mask));
    CHECK(mask == std::vector<bool>{false, true, false, false, true, false, false, true});
    CHECK_FALSE(workloads::parse_cpu_list("0-7:0", 8, mask)); // no stride 0
    CHECK_FALSE(workloads::parse_cpu_list("3:2", 8, mask));   // a stride needs a range
    CHECK_FALSE(workloads::parse_cpu_list("0-7:", 8, mask));
}

TEST_CASE("hackbench over sockets with processes delivers every message") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto wc = start(r, "hackbench -g 2 -f 4 -l 10");
    r.k.run();
    const auto& m = as_messaging(wc);
    REQUIRE(m.finished());
    CHECK(m.outcome().messages == 2 * 4 * 4 * 10);
    for (const auto& t : r.k.tasks()) CHECK(t->t.state == scheduler::task_state::dead);
    CHECK(r.k.tasks().size() == 1 + 2 * 8);
    std::ostringstream out;
    m.report(out);
    CHECK(
        out.str().rfind("Running in process mode with 2 groups using 8 file descriptors each (== 16 tasks)\n"
                        "Each sender will pass 10 messages of 100 bytes\nTime: 0.00",
                        0) == 0);
}

TEST_CASE("hackbench over pipes with threads delivers every message and shares one address space") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::cfs_v5_15));
    auto wc = start(r, "hackbench -p -T -g 3 -f 5 -l 7 -s 5000");
    r.k.run();
    const auto& m = as_messaging(wc);
    REQUIRE(m.finished());
    CHECK(m.outcome().messages == 3 * 5 * 5 * 7);
    for (const auto& t : r.k.tasks()) CHECK(t->t.tgid == 1);
    CHECK(m.seconds() > 0);
}

TEST_CASE("07-costs 1: perf bench sched pipe is 3.5-5 us/op on one CPU and 2.5 us more per hand-off on two") {
    const auto [one, two] = pipe_pinned_and_spread({});
    INFO("one CPU " << one << " us/op, two CPUs " << two << " us/op");
    CHECK(one >= 3.5);
    CHECK(one <= 5.0);
    // Published: 3.74 us/op on one CPU, 8.81 on two: about 2.5 us more per cross-CPU hand-off (two per op).
    CHECK((two - one) / 2 == Approx(2.5).margin(0.5));
}

TEST_CASE("07-costs 2: with idle=poll a hand-off to an idle CPU no longer pays the IPI and the idle exit") {
    const auto [one, two] = pipe_pinned_and_spread({"kernel_costs.idle_polling=true"});
    INFO("one CPU " << one << " us/op, two polling CPUs " << two << " us/op");
    CHECK(one >= 3.5);
    CHECK(one <= 5.0);
    // The default run's 2.5 us per hand-off minus IPI (1.5), C1 exit (1.0) and interrupt handler (0.5).
    CHECK((two - one) / 2 == Approx(2.5 - 3.0).margin(0.5));
}

TEST_CASE("07-costs 3: an AF_UNIX round trip costs what the host measured over a pipe's, and more across CCDs") {
    using workloads::channel_kind;
    // One CPU each (0, 1), and across the two CCDs (2 and 10, 3 and 11); no SMT siblings share a core.
    const auto us = round_trips_us({{channel_kind::pipe, {0, 0}},
                                    {channel_kind::socket, {1, 1}},
                                    {channel_kind::pipe, {2, 10}},
                                    {channel_kind::socket, {3, 11}}});
    const double pipe_one = us[0], unix_one = us[1], pipe_two = us[2], unix_two = us[3];
    INFO("one CPU: pipe " << pipe_one << " us, unix " << unix_one << " us; across the CCDs: pipe " << pipe_two
                          << " us, unix " << unix_two << " us");
    // Measured on the project's host (loopback_rr pipe|unix 3 100 100 on one CPU, 7 interleaved pairs,
    // docs/kernel.md): the socketpair's round trip took 1.14-1.25x the pipes', median 1.167.
    CHECK(unix_one / pipe_one >= 1.12);
    CHECK(unix_one / pipe_one <= 1.25);
    // Across the two CCDs the reader's free and the sender's next allocation also move the sk_buff's
    // header and the sender's sk_wmem_alloc between the caches: the socket's extra grows.
    CHECK(unix_two - pipe_two > unix_one - pipe_one);
}
