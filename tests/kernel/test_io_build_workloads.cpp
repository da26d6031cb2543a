// The kernel-build and I/O workloads and the kernel paths under them: exec (a new image and address
// space, exec balancing through the stopper), wait for any child, kernbench / make -jN (jobs kept
// running, elapsed time against the jobs' own CPU time), fio against the block device (IOPS against
// the device's own count, the QD1 latency path, the device's throughput limit, the completion
// interrupt's CPU), the tools' output parsed the way their users parse it, bad options, determinism.
// Machines: the mini platform (8 CPUs at 1 GHz, two LLCs: CPUs 0, 1, 4, 5 and 2, 3, 6, 7).
#include "support/cli_runner.h"
#include "support/kernel_rig.h"
#include "workloads/bench/fio.h"
#include "workloads/bench/kernbench.h"
#include "workloads/cli/command_line.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>

using namespace warmsched;
using scheduler::kernel_version;
using test::kernel_rig;
namespace wl = workloads;

namespace {
constexpr scheduler::nsec ms = 1'000'000;

scheduler::sched_config eevdf_config() {
    return scheduler::sched_config::defaults(kernel_version::eevdf_v6_12, 8);
}

wl::workload_command start(kernel_rig& r, const std::string& line,
                           const std::vector<std::pair<std::string, std::string>>& params = {}) {
    wl::workload_params p;
    for (const auto& [k, v] : params) p.set(k, v);
    auto wc = wl::parse_command_line(wl::split_command_line(line), r.m.num_cpus(), p);
    wc.w->start(r.k, wc.allowed);
    return wc;
}

std::string report(const wl::workload_command& wc) {
    std::ostringstream out;
    wc.w->report(out);
    return out.str();
}

// The first match of `re` in `text` (its groups), or a failed test.
std::smatch find(const std::string& text, const std::string& re) {
    std::smatch m;
    const bool found = std::regex_search(text, m, std::regex(re));
    INFO(text);
    REQUIRE(found);
    return m;
}

// fio's num2str back to a number: "11.1k" -> 11100, "480MiB/s" -> 480 x 2^20.
double fio_value(const std::string& num, const std::string& prefix) {
    const double v = std::stod(num);
    const bool iec = prefix.size() == 2 && prefix[1] == 'i';
    const double k = iec ? 1024.0 : 1000.0;
    const std::string p = prefix.substr(0, 1);
    return p == "k" || p == "K" ? v * k : p == "M" ? v * k * k : p == "G" ? v * k * k * k : v;
}

// The cc1 tasks of a run (make's exec'd children).
std::vector<const wl::kernel_task*> compilers(const kernel_rig& r) {
    std::vector<const wl::kernel_task*> out;
    for (const auto& t : r.k.tasks())
        if (t->t.comm == "cc1") out.push_back(t.get());
    return out;
}

// Most compilers alive at once (between fork and exit).
std::size_t max_concurrent(const std::vector<const wl::kernel_task*>& ts) {
    std::vector<std::pair<scheduler::nsec, int>> events;
    for (const auto* t : ts) events.push_back({t->created, 1}), events.push_back({t->exited, -1});
    std::sort(events.begin(), events.end());
    std::size_t now = 0, most = 0;
    for (const auto& e : events) {
        now = static_cast<std::size_t>(static_cast<long>(now) + e.second);
        most = std::max(most, now);
    }
    return most;
}

// Small, cheap compile jobs for tests: equal sizes, a working set that stays in the caches.
const std::vector<std::pair<std::string, std::string>> small_tree = {
    {"objects", "32"},
    {"job_instructions_median", "4000000"},
    {"job_instructions_sigma", "0"},
    {"cc1_working_set_mib", "0.25"},
    {"cc1_accesses_per_kilo_instruction", "1"},
    {"make_instructions_per_job", "20000"},
};

using test::run_cli;
} // namespace

// ---- exec and wait ----------------------------------------------------------------------------------

TEST_CASE("exec runs the new image in a fresh address space, and leaves a busy LLC for an idle one") {
    // A machine just booted (kernel.uptime 0): on one up for minutes the tick at 0 ns finds every balance
    // level due and moves sh or hog1 off the shared CPU 1 before sh execs; here the exec's own placement
    // (sched_exec) is what is tested.
    auto cfg = eevdf_config();
    cfg.uptime_s = 0;
    kernel_rig r(cfg);
    for (unsigned c : {0u, 1u, 4u, 5u}) r.hog("hog" + std::to_string(c), c); // LLC 0 is busy
    wl::memory_profile p;
    p.working_set = 4096;
    p.accesses_per_kilo_instruction = 10;
    auto image = std::make_shared<wl::spawn_spec>();
    image->comm = "cc1";
    image->body = std::make_shared<wl::scripted_program>(
        std::vector<wl::op>{wl::op::compute(2'000'000, &p), wl::op::exit()}, 1);
    auto& sh = r.start("sh", {wl::op::compute(100'000, &p), wl::op::exec(image)}, 1, 0, false);
    const auto* old_mm = sh.mm.get();
    const int pid = sh.t.pid;
    run_to(r, 50 * ms);
    CHECK(r.k.execs() == 1);
    CHECK(sh.t.comm == "cc1");
    CHECK(sh.t.pid == pid); // the same task
    CHECK(sh.mm.get() != old_mm);
    CHECK(sh.t.state == scheduler::task_state::dead);
    const auto& layout = r.k.sched().layout();
    CHECK(layout.llc_of[sh.t.cpu] == 1); // it ran its image on the idle LLC
    const auto* costs = r.k.migration_costs();
    REQUIRE(costs);
    std::uint64_t exec_moves = 0;
    for (unsigned d = 0; d < wl::migration_cost::num_distances; ++d)
        exec_moves +=
            costs->at(scheduler::migration_cause::exec, static_cast<wl::migration_distance>(d)).migrations;
    CHECK(exec_moves == 1);
}

TEST_CASE("wait for any child reaps exited children one at a time and returns 0 when none are left") {
    kernel_rig r(eevdf_config());
    auto child = [](scheduler::nsec sleep) {
        auto s = std::make_shared<wl::spawn_spec>();
        s->comm = "child";
        s->body = std::make_shared<wl::scripted_program>(std::vector<wl::op>{wl::op::sleep(sleep)}, 1);
        return s;
    };
    struct parent final : wl::copyable_program<parent> {
        std::vector<std::shared_ptr<wl::spawn_spec>> kids;
        std::vector<std::uint64_t>* got;
        std::vector<scheduler::nsec>* when;
        std::size_t step = 0;
        wl::op next(wl::program_context& ctx) override {
            if (step < kids.size()) return wl::op::fork(kids[step++]);
            if (step > kids.size()) got->push_back(ctx.result), when->push_back(ctx.now);
            ++step;
            if (step > 2 * kids.size() + 1) return wl::op::exit();
            return wl::op::wait_child();
        }
    };
    std::vector<std::uint64_t> got;
    std::vector<scheduler::nsec> when;
    auto body = std::make_shared<parent>();
    body->kids = {child(3 * ms), child(1 * ms), child(2 * ms)};
    body->got = &got;
    body->when = &when;
    wl::spawn_spec s;
    s.comm = "parent";
    s.body = body;
    r.k.spawn(s, 0);
    r.k.run();
    // Children are pids 2, 3, 4; they exit at ~3, ~1, ~2 ms: reaped in exit order, then 0 (ECHILD).
    REQUIRE(got.size() == 4);
    CHECK(got == std::vector<std::uint64_t>{3, 4, 2, 0});
    CHECK(when[0] >= 1 * ms);
    CHECK(when[0] < 2 * ms);
    CHECK(when[2] >= 3 * ms);
}

// ---- kernbench and make -jN -------------------------------------------------------------------------

TEST_CASE("make -j4 builds every object with at most 4 jobs at once in about objects x job time / 4") {
    kernel_rig r(eevdf_config());
    auto wc = start(r, "time make -j4", small_tree);
    r.k.run();
    REQUIRE(wc.w->finished());
    const auto& kb = dynamic_cast<const wl::kernbench&>(*wc.w);
    const auto cc1 = compilers(r);
    CHECK(cc1.size() == 32);
    CHECK(kb.outcome().jobs_reaped == 32);
    CHECK(r.k.execs() == 32);
    CHECK(max_concurrent(cc1) == 4);
    // bash's `time`: real / user / sys lines.
    const std::string out = report(wc);
    const auto real = find(out, "\nreal\t([0-9]+)m([0-9]+\\.[0-9]{3})s\nuser\t([0-9]+)m([0-9]+\\.[0-9]{3})s\n"
                                "sys\t([0-9]+)m([0-9]+\\.[0-9]{3})s\n");
    const double elapsed = std::stod(real[1]) * 60 + std::stod(real[2]);
    double job_s = 0, user_s = 0;
    for (const auto* t : cc1) job_s += static_cast<double>(t->t.se.sum_exec_runtime) / 1e9;
    for (const auto& t : r.k.tasks())
        if (t->t.comm != "bash") user_s += static_cast<double>(t->utime) / 1e9;
    const double mean_job = job_s / 32;
    const double expected = 32 * mean_job / 4;
    CAPTURE(elapsed, mean_job, expected);
    CHECK(elapsed == Approx(expected).epsilon(0.10)); // fork, exec, exit and make's work per job on top
    CHECK(elapsed >= expected * 0.99);
    CHECK(std::stod(real[3]) * 60 + std::stod(real[4]) == Approx(user_s).margin(0.0011));
}

TEST_CASE("kernbench -j prints the Average ... Run block in kernbench's format with the runs' own figures") {
    kernel_rig r(eevdf_config());
    auto wc = start(r, "kernbench -j 4 -n 2 -f", small_tree);
    r.k.run();
    REQUIRE(wc.w->finished());
    const auto& kb = dynamic_cast<const wl::kernbench&>(*wc.w);
    const std::string out = report(wc);
    CHECK(out.find("8 cpus found\n") == 0);
    CHECK(out.find("Performing 2 runs of\nmake -j 4\n\n") != std::string::npos);
    CHECK(out.find("Optimal load -j 4 run number 1...\nOptimal load -j 4 run number 2...\n") !=
          std::string::npos);
    // What scripts parse: the block header, then "Name value (sdev)" lines.
    const std::string num = "([0-9]+(?:\\.[0-9]+)?)";
    const auto m =
        find(out, "Average Optimal load -j 4 Run \\(std deviation\\):\nElapsed Time " + num + " \\(" + num +
                      "\\)\nUser Time " + num + " \\(" + num + "\\)\nSystem Time " + num + " \\(" + num +
                      "\\)\nPercent CPU " + num + " \\(" + num + "\\)\nContext Switches " + num + " \\(" +
                      num + "\\)\nSleeps " + num + " \\(" + num + "\\)\n");
    const auto& runs = kb.outcome().runs;
    REQUIRE(runs.size() == 2);
    double elapsed = 0, user = 0, voluntary = 0;
    for (const auto& x : runs) {
        CHECK(x.done);
        CHECK(x.objects == 32);
        elapsed += std::floor(static_cast<double>(x.stop_ns - x.start_ns) / 1e7) / 100;
        user += std::floor(x.user_s * 100) / 100;
        voluntary += static_cast<double>(x.voluntary);
    }
    CHECK(std::stod(m[1]) == Approx(elapsed / 2).margin(1e-6));
    CHECK(std::stod(m[3]) == Approx(user / 2).margin(1e-6));
    CHECK(std::stod(m[11]) == Approx(voluntary / 2).margin(1e-6));
    CHECK(std::stod(m[1]) > 0.02);
    // Percent CPU near 4 CPUs' worth (GNU time: (user + sys) x 100 / elapsed).
    CHECK(std::stod(m[7]) > 300);
    CHECK(std::stod(m[7]) <= 410); // make's own work beside the 4 jobs
    CHECK(kb.outcome().jobs_forked == 64);
}

TEST_CASE("kernbench -t stops starting jobs when the time is up, and the cut run is not averaged") {
    kernel_rig r(eevdf_config());
    auto params = small_tree;
    params[0] = {"objects", "1000"};
    auto wc = start(r, "kernbench -j 8 -f -t 0.02", params);
    r.k.run();
    REQUIRE(wc.w->finished());
    const auto& kb = dynamic_cast<const wl::kernbench&>(*wc.w);
    CHECK(r.k.now() < 40 * ms);
    REQUIRE(kb.outcome().runs.size() == 1);
    CHECK_FALSE(kb.outcome().runs[0].done);
    CHECK(kb.outcome().jobs_reaped == kb.outcome().jobs_forked);
    CHECK(report(wc).find("Elapsed Time No data\n") != std::string::npos);
}

TEST_CASE("kernbench and make reject options their parsers would reject") {
    using wl::parse_command_line;
    CHECK_THROWS_WITH(parse_command_line({"kernbench", "-x"}, 8),
                      Catch::StartsWith("kernbench: illegal option -- x"));
    CHECK_THROWS_WITH(parse_command_line({"kernbench", "-n"}, 8),
                      Catch::StartsWith("kernbench: option requires an argument -- n"));
    CHECK_THROWS_WITH(parse_command_line({"kernbench", "-n", "0"}, 8), Catch::Contains("Nothing to do"));
    CHECK_THROWS_WITH(parse_command_line({"kernbench", "-j", "four"}, 8), Catch::Contains("-j four"));
    CHECK_THROWS_WITH(parse_command_line({"kernbench", "-H", "-O", "-M"}, 8), Catch::Contains("no load"));
    CHECK_THROWS_WITH(parse_command_line({"make", "-j0"}, 8), Catch::Contains("positive integer"));
    CHECK_THROWS_WITH(parse_command_line({"make", "-k"}, 8), Catch::Contains("'-k'"));
    wl::workload_params p;
    p.set("object", "3");
    CHECK_THROWS_WITH(parse_command_line({"kernbench"}, 8, p), Catch::Contains("unknown parameter 'object'"));
    wl::workload_params q;
    q.set("job_instructions_sigma", "9");
    CHECK_THROWS_WITH(parse_command_line({"make"}, 8, q), Catch::Contains("job_instructions_sigma"));
    CHECK_NOTHROW(parse_command_line({"time", "make", "-j", "8"}, 8));
    CHECK_NOTHROW(parse_command_line({"make", "-j"}, 8));
    CHECK_NOTHROW(parse_command_line({"kernbench", "-sHf", "-n3", "-o", "12"}, 8));
}

// ---- fio ----------------------------------------------------------------------------------------------

TEST_CASE(
    "fio psync at iodepth 1: IOPS x runtime = the device's completions, IOPS = 1 / (device + software)") {
    kernel_rig r(eevdf_config());
    auto wc = start(r, "fio --name=qd1 --rw=randread --bs=4k --iodepth=1 --numjobs=1 --runtime=30ms "
                       "--ioengine=psync --direct=1");
    r.k.run();
    REQUIRE(wc.w->finished());
    const std::string out = report(wc);
    CHECK(out.find("qd1: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, "
                   "ioengine=psync, iodepth=1\nfio-3.33\nStarting 1 process\n") == 0);
    const auto m =
        find(out, "\n  read: IOPS=([0-9.]+)([kM]?), BW=([0-9.]+)([KMG]i)B/s \\(([0-9.]+)([kMG])B/s\\)"
                  "\\(([0-9.]+)([KMG]i)?B/([0-9]+)msec\\)\n");
    const double iops = fio_value(m[1], m[2]);
    const double runtime_s = std::stod(m[9]) / 1000;
    const auto ios = find(out, "issued rwts: total=([0-9]+),0,0,0");
    const auto disk = find(out, "\n  nvme0n1: ios=([0-9]+)/0, ");
    const auto* dev = r.k.disk();
    REQUIRE(dev);
    CHECK(std::stoull(ios[1]) == dev->stats().ios[0]);
    CHECK(std::stoull(disk[1]) == dev->stats().ios[0]);
    CHECK(iops * runtime_s == Approx(static_cast<double>(dev->stats().ios[0])).epsilon(0.01));
    CHECK(fio_value(m[3], m[4]) == Approx(iops * 4096).epsilon(0.01));
    // One request at a time: the device's latency plus the software path -- fio's own work, the syscall,
    // the submission, and the completion interrupt on the (idle) submitting CPU that wakes the job.
    const auto& c = r.k.costs();
    const double device = r.m.platform().block_device.random_read_latency_ps / 1e12;
    const double software = (c.syscall_ps + c.io_submit_ps + c.idle_exit_ps + c.ipi_handler_ps +
                             c.io_complete_ps + c.wakeup_ps + c.context_switch_ps) /
                                1e12 +
                            5000 * r.m.platform().core.base_cpi / r.m.platform().core.frequency_hz;
    CAPTURE(iops, device, software);
    CHECK(1.0 / iops == Approx(device + software).epsilon(0.05));
    CHECK(1.0 / iops > device + software * 0.9);
    // Every completion interrupted the submitting CPU.
    std::uint64_t irqs = 0;
    for (unsigned cpu = 0; cpu < 8; ++cpu) irqs += r.k.executor(cpu).stats().device_irqs;
    CHECK(irqs == dev->stats().ios[0]);
}

TEST_CASE("fio libaio at iodepth 32 x 8 jobs reaches the device's 4 KiB random-read IOPS") {
    // 8 jobs: on the mini platform's 1 GHz CPUs one job's software path (about 8 us a request) keeps
    // only a quarter of the device's rate in flight.
    kernel_rig r(eevdf_config());
    auto wc = start(r, "fio --name=deep --rw=randread --bs=4k --iodepth=32 --numjobs=8 --runtime=20ms "
                       "--ioengine=libaio --direct=1 --group_reporting");
    r.k.run();
    REQUIRE(wc.w->finished());
    const std::string out = report(wc);
    CHECK(out.find("ioengine=libaio, iodepth=32\n...\nfio-3.33\nStarting 8 processes\n") !=
          std::string::npos);
    CHECK(out.find("deep: (groupid=0, jobs=8): err= 0: pid=") != std::string::npos);
    const auto m = find(out, "\n  read: IOPS=([0-9.]+)([kM]?), ");
    const double iops = fio_value(m[1], m[2]);
    CHECK(iops == Approx(r.m.platform().block_device.read_iops).epsilon(0.03));
    find(out, "\n    slat \\(nsec\\): min=[0-9]+, max=[0-9]+, avg=[0-9.]+, stdev=[0-9.]+\n"
              "    clat \\(usec\\): min=[0-9]+, max=[0-9]+, avg=[0-9.]+, stdev=[0-9.]+\n");
    find(out, "\n    clat percentiles \\(usec\\):\n     \\|  1\\.00th=\\[ *[0-9]+\\],");
    const auto g = find(
        out,
        "\nRun status group 0 \\(all jobs\\):\n   READ: bw=([0-9.]+)([KMG]i)B/s \\(([0-9.]+)([kMG])B/s\\), "
        "[^\n]*, io=([0-9.]+)([KMG]i)B \\([^)]*\\), run=([0-9]+)-([0-9]+)msec\n");
    const double io_bytes = fio_value(g[5], g[6]);
    CHECK(io_bytes == Approx(static_cast<double>(r.k.disk()->stats().bytes[0])).epsilon(0.01));
    // Queueing behind the device's rate: clat well above the lone-request latency.
    const auto& fo = dynamic_cast<const wl::fio&>(*wc.w);
    double clat = 0;
    std::uint64_t n = 0;
    for (const auto& j : fo.outcome().jobs)
        clat += j.clat.mean * static_cast<double>(j.clat.samples), n += j.clat.samples;
    CHECK(clat / static_cast<double>(n) > 2 * r.m.platform().block_device.random_read_latency_ps / 1000);
}

TEST_CASE("fio with a fixed interrupt CPU: completions interrupt that CPU, which wakes the job remotely") {
    auto p = test::mini_platform();
    p.block_device.irq_cpu = 3;
    kernel_rig r(p, eevdf_config());
    auto wc =
        start(r, "taskset -c 0 fio --name=irq --rw=read --bs=4k --iodepth=1 --runtime=5ms --ioengine=psync");
    r.k.run();
    REQUIRE(wc.w->finished());
    const auto ios = r.k.disk()->stats().ios[0];
    CHECK(ios > 100); // sequential reads: 10 us each
    CHECK(r.k.executor(3).stats().device_irqs == ios);
    CHECK(r.k.executor(0).stats().device_irqs == 0);
    const auto& fo = dynamic_cast<const wl::fio&>(*wc.w);
    for (const auto& t : r.k.tasks())
        if (t->t.pid == fo.outcome().jobs[0].pid) {
            CHECK(t->t.stats.nr_wakeups_remote >= ios - 1);
        }
    CHECK(r.k.executor(0).stats().ipis >= ios - 1); // each wakeup reaches CPU 0 by IPI
}

TEST_CASE("fio rejects options its parser would reject, naming the option") {
    using wl::parse_command_line;
    CHECK_THROWS_WITH(parse_command_line({"fio", "--rw=randread", "--runtime=1"}, 8),
                      Catch::Contains("--name"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x", "--rw=sideways", "--runtime=1"}, 8),
                      Catch::StartsWith("fio: --rw=sideways: invalid value"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x", "--rw=randrw", "--runtime=1"}, 8),
                      Catch::Contains("not modelled"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x", "--bs=3", "--runtime=1"}, 8),
                      Catch::StartsWith("fio: --bs=3:"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x", "--iodepth=0", "--runtime=1"}, 8),
                      Catch::StartsWith("fio: --iodepth=0:"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x", "--ioengine=io_uring", "--runtime=1"}, 8),
                      Catch::StartsWith("fio: --ioengine=io_uring:"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x", "--runtime=1.5"}, 8),
                      Catch::StartsWith("fio: --runtime=1.5:"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x", "--frobnicate=1", "--runtime=1"}, 8),
                      Catch::StartsWith("fio: unrecognized option '--frobnicate=1'"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x"}, 8), Catch::Contains("--runtime or --size"));
    CHECK_THROWS_WITH(parse_command_line({"fio", "--name=x", "--numjobs"}, 8),
                      Catch::StartsWith("fio: option '--numjobs' requires an argument"));
    auto ok =
        parse_command_line(wl::split_command_line("fio --name=j --rw=write --bs=128k --iodepth 8 --numjobs=2 "
                                                  "--runtime=2s --time_based --ioengine=libaio --size=1g"),
                           8);
    const auto& o = dynamic_cast<const wl::fio&>(*ok.w).options();
    CHECK(o.bs == 128 * 1024);
    CHECK(o.write());
    CHECK(o.sequential());
    CHECK(o.runtime_ms == 2000);
    CHECK(o.size == (1ull << 30));
    CHECK(o.time_based);
}

// fio 3.33 parses its command line with glibc getopt_long_only over a table of every option fio knows
// (init.c's and all job options, options.c); the expected texts are the installed fio 3.33's own.
TEST_CASE("fio parses its options with getopt_long_only, as fio 3.33 does") {
    using wl::parse_command_line;
    auto options_of = [](const std::string& line) {
        auto wc = parse_command_line(wl::split_command_line(line), 8);
        return dynamic_cast<const wl::fio&>(*wc.w).options();
    };
    // One dash works as two; "--opt value" and "-opt value" for an option with a required value.
    auto o = options_of("fio -name=single -rw=randwrite -bs 8k --iodepth 4 -runtime=1");
    CHECK(o.name == "single");
    CHECK(o.rw == "randwrite");
    CHECK(o.bs == 8192);
    CHECK(o.iodepth == 4);
    CHECK(o.runtime_ms == 1000);
    CHECK(options_of("fio --name=x --bs 4k --size=1m").bs == 4096);
    // Unique abbreviations: fio accepts them (numjobs, group_reporting, ioengine, name, output-format),
    // and records the option under its full name.
    o = options_of("fio -nam=abbr --numj=3 --gro -ioeng=libaio --output-f=json --runtime=1");
    CHECK(o.name == "abbr");
    CHECK(o.numjobs == 3);
    CHECK(o.group_reporting);
    CHECK(o.ioengine == "libaio");
    CHECK(o.json);
    CHECK(o.given == std::vector<std::pair<std::string, std::string>>{{"name", "abbr"},
                                                                      {"numjobs", "3"},
                                                                      {"group_reporting", ""},
                                                                      {"ioengine", "libaio"},
                                                                      {"runtime", "1"}});
    // Aliases are options of their own in fio's table.
    o = options_of("fio --name=x --readwrite=write --blocksize=64k --timeout=2");
    CHECK(o.rw == "write");
    CHECK(o.bs == 65536);
    CHECK(o.runtime_ms == 2000);
    CHECK(o.given == std::vector<std::pair<std::string, std::string>>{
                         {"name", "x"}, {"rw", "write"}, {"bs", "64k"}, {"runtime", "2"}});
    // A flag (FIO_OPT_STR_SET) takes an optional value, attached only.
    CHECK(options_of("fio --name=x --thread=1 --runtime=1").thread);
    CHECK_FALSE(options_of("fio --name=x --thread=0 --runtime=1").thread);

    auto refusal = [](const std::string& line) {
        try {
            parse_command_line(wl::split_command_line(line), 8);
        } catch (const wl::usage_error& e) {
            const std::string text = e.what();
            return text.substr(0, text.find("\nfio (warmsched subset)"));
        }
        return std::string("(accepted)");
    };
    // Unknown: getopt's line, then parse_cmd_line's own.
    CHECK(refusal("fio --name=x --bogus=3 --runtime=1") ==
          "fio: unrecognized option '--bogus=3'\nfio: unrecognized option '--bogus=3'");
    // Ambiguous abbreviations: every option of fio's table the prefix matches, then show_closest_option's
    // guess (its Levenshtein distance includes "=value", so for --filen=... it guesses none).
    CHECK(refusal("fio --name=x --iodep=4 --runtime=1") ==
          "fio: option '--iodep=4' is ambiguous; possibilities: '--iodepth' '--iodepth_batch' "
          "'--iodepth_batch_submit' '--iodepth_batch_complete_min' '--iodepth_batch_complete' "
          "'--iodepth_batch_complete_max' '--iodepth_low'\n"
          "fio: unrecognized option '--iodep=4'\nDid you mean iodepth?");
    CHECK(refusal("fio --name=x --siz=1m") ==
          "fio: option '--siz=1m' is ambiguous; possibilities: '--size' "
          "'--size'\nfio: unrecognized option '--siz=1m'\nDid you mean size?");
    CHECK(refusal("fio --name=x --filen=/dev/nvme0n1 --runtime=1") ==
          "fio: option '--filen=/dev/nvme0n1' is ambiguous; possibilities: '--filename' '--filename_format'\n"
          "fio: unrecognized option '--filen=/dev/nvme0n1'");
    CHECK(refusal("fio -n=x --runtime=1") ==
          "fio: option '-n=x' is ambiguous; possibilities: '-name' '-number_ios' '-norandommap' '-nrfiles' "
          "'-nr_files' '-numjobs' '-nice' '-numa_cpu_nodes' '-numa_mem_policy' '-new_group' '-numruns'\n"
          "fio: unrecognized option '-n=x'");
    // --direct is a bool (FIO_OPT_BOOL): it needs its value -- the next word, if there is one, as getopt
    // takes it (fio: "failed parsing direct=--runtime=1").
    CHECK(refusal("fio --name=x --direct --runtime=1") == "fio: --direct=--runtime=1: expected 0 or 1");
    CHECK(refusal("fio --name=x --runtime=1 --direct") ==
          "fio: option '--direct' requires an argument\nfio: unrecognized option '--direct'\nDid you mean "
          "direct?");
    CHECK(options_of("fio --name=x --direct=1 --runtime=1").direct);
    // fio's own options: --readonly takes no value; the short letters are fio's (-x is --section).
    CHECK(refusal("fio --name=x --readonly=1 --runtime=1") ==
          "fio: option '--readonly' doesn't allow an argument\nfio: unrecognized option '--readonly=1'\n"
          "Did you mean readonly?");
    CHECK(refusal("fio --name=x --runtime=1 -x") ==
          "fio: option requires an argument -- 'x'\nfio: unrecognized option '-x'");
    // libaio's options end the table once --ioengine=libaio is parsed, as fio_options_set_ioengine_opts
    // puts them; a value is required as in fio (nowait is a bool).
    CHECK(refusal("fio --ioengine=libaio -n=x --runtime=1") ==
          "fio: option '-n=x' is ambiguous; possibilities: '-name' '-number_ios' '-norandommap' '-nrfiles' "
          "'-nr_files' '-numjobs' '-nice' '-numa_cpu_nodes' '-numa_mem_policy' '-new_group' '-numruns' "
          "'-nowait'\nfio: unrecognized option '-n=x'");
    CHECK(refusal("fio --ioengine=libaio --name=x --runtime=1 --nowai") ==
          "fio: option '--nowait' requires an argument\nfio: unrecognized option '--nowai'\nDid you mean "
          "nowait?");
    CHECK(refusal("fio --name=x --ioengine=psync --runtime=1 --userspace_reap") ==
          "fio: unrecognized option '--userspace_reap'\nfio: unrecognized option '--userspace_reap'");
    CHECK(refusal("fio --name=x --ioengine=libaio --runtime=1 --userspace_reap") ==
          "fio: --userspace_reap: this fio option is not modelled by warmsched");
    // Options fio has and warmsched does not model are refused by their name, abbreviated or not, once
    // getopt has them with their value if they require one.
    CHECK(refusal("fio --name=x --runtime=1 --verify") ==
          "fio: option '--verify' requires an argument\nfio: unrecognized option '--verify'\nDid you mean "
          "verify?");
    CHECK(refusal("fio --name=x --verify md5 --runtime=1") ==
          "fio: --verify: this fio option is not modelled by warmsched");
    CHECK(refusal("fio --name=x --verify=md5 --runtime=1") ==
          "fio: --verify: this fio option is not modelled by warmsched");
    CHECK(refusal("fio --name=x --iodepth_l=4 --runtime=1") ==
          "fio: --iodepth_low: this fio option is not modelled by warmsched");
    // Operands are job files.
    CHECK(refusal("fio --name=x --time_based 1 --runtime=1") ==
          "fio: '1': job files are not supported, give the job as --options");
    CHECK_THROWS_AS(parse_command_line({"fio", "--help"}, 8), wl::help_requested);
}

TEST_CASE("fio's num2str prints as fio does") {
    CHECK(wl::fio_num2str(11111, 4, 1, false, 0) == "11.1k");
    CHECK(wl::fio_num2str(495000, 4, 1, false, 0) == "495k");
    CHECK(wl::fio_num2str(4096, 4, 1, true, 2) == "4096B");
    CHECK(wl::fio_num2str(503316480, 4, 1, true, 4) == "480MiB/s");
    CHECK(wl::fio_num2str(503316480, 4, 1, false, 4) == "503MB/s");
    CHECK(wl::fio_num2str(123, 6, 1, false, 0) == "123");
}

// ---- determinism (the command line, twice) ----------------------------------------------------------

TEST_CASE("the same seed gives byte-identical kernbench and fio output") {
    const std::string fio_run =
        "run -p platform=zen3-5950x --seed 7 --out /tmp/warmsched-io-det -- fio --name=d "
        "--rw=randread --iodepth=8 --numjobs=2 --ioengine=libaio --runtime=3ms";
    const auto a = run_cli(fio_run), b = run_cli(fio_run);
    CHECK(a.status == 0);
    CHECK(a.out.find("  read: IOPS=") != std::string::npos);
    CHECK(a.out == b.out);
    const std::string yaml = "/tmp/warmsched-io-det.yaml";
    {
        std::ofstream f(yaml);
        f << "platform: zen3-5950x\nseed: 7\nworkloads:\n  - command: time make -j16\n    objects: 48\n"
             "    job_instructions_median: 1000000\n    cc1_working_set_mib: 1\n";
    }
    const auto c = run_cli("run " + yaml + " --out /tmp/warmsched-io-det"),
               d = run_cli("run " + yaml + " --out /tmp/warmsched-io-det");
    CHECK(c.status == 0);
    CHECK(c.out.find("\nreal\t0m0.") != std::string::npos);
    CHECK(c.out == d.out);
}

TEST_CASE("fio --output-format=json prints fio 3.33's document with the figures of the normal output, and "
          "the Disk stats line is 3.33's (no sectors=)") {
    const std::string job = "fio --name=qd1 --rw=randread --bs=4k --iodepth=1 --runtime=10ms "
                            "--filename=/dev/nvme0n1";
    const auto normal =
        test::run_cli("run --platform zen3-5950x --seed 1 --out /tmp/warmsched-fio-normal -- " + job);
    const auto js = test::run_cli("run --platform zen3-5950x --seed 1 --out /tmp/warmsched-fio-json -- " +
                                  job + " --output-format=json");
    REQUIRE(normal.status == 0);
    REQUIRE(js.status == 0);
    std::smatch m;
    REQUIRE(std::regex_search(
        normal.out, m,
        std::regex(R"(\n  nvme0n1: ios=(\d+)/0, merge=0/0, ticks=\d+/0, in_queue=\d+, util=[0-9.]+%\n)")));
    const std::uint64_t device_ios = std::stoull(m[1]);
    CHECK(normal.out.find("sectors=") == std::string::npos);
    // The document is the tool's output: what precedes the run summary.
    const auto doc = nlohmann::json::parse(js.out.substr(0, js.out.find("\n--- warmsched:")));
    CHECK(doc.at("fio version") == "fio-3.33");
    const auto& j = doc.at("jobs").at(0);
    CHECK(j.at("jobname") == "qd1");
    CHECK(j.at("job options").at("rw") == "randread");
    CHECK(j.at("job options").at("runtime") == "10ms");
    const auto& rd = j.at("read");
    REQUIRE(std::regex_search(normal.out, m,
                              std::regex(R"(read: IOPS=([0-9.]+k?), BW=.*\((\d+)KiB/(\d+)msec\))")));
    CHECK(rd.at("runtime") == std::stoull(m[3]));
    CHECK(workloads::fio_num2str(static_cast<std::uint64_t>(rd.at("iops").get<double>()), 4, 1, false, 0) ==
          m[1].str());
    CHECK(rd.at("io_kbytes") == std::stoull(m[2]));
    REQUIRE(std::regex_search(normal.out, m, std::regex(R"(50\.00th=\[\s*(\d+)\])")));
    CHECK(rd.at("clat_ns").at("percentile").at("50.000000") == std::stoull(m[1])); // nsec in both here
    CHECK(rd.at("clat_ns").at("N") == rd.at("total_ios"));
    CHECK(j.at("write").at("total_ios") == 0);
    CHECK(j.at("iodepth_level").at("1") == 100.0);
    CHECK(doc.at("disk_util").at(0).at("name") == "nvme0n1");
    CHECK(doc.at("disk_util").at(0).at("read_ios") == device_ios);
    const auto bad = test::run_cli("run --out /tmp/warmsched-fio-bad -- " + job + " --output-format=terse");
    CHECK(bad.status == 2);
    CHECK(bad.err.rfind("fio: --output-format=terse: not written by warmsched (normal or json)", 0) == 0);
}
