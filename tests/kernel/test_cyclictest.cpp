// cyclictest on the simulated kernel, read the way its users read it: the per-thread "T:" lines parsed
// with the regular expression rt-tests' tooling uses on them, and the -h histogram block, checked against
// the run's own state (each thread's loops, the kernel's wakeups of the thread) and against rt-tests
// v2.x's rules for intervals, priorities and affinity; bad command lines; the latency floor the modelled
// wakeup path sets (timer interrupt + wakeup + context switch); determinism.
#include "platforms/platform_loader.h"
#include "scheduler/rt/rt_class.h"
#include "support/cli_runner.h"
#include "support/kernel_rig.h"
#include "workloads/bench/cyclictest.h"
#include "workloads/cli/command_line.h"
#include "workloads/cli/option_parser.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <unistd.h>

using namespace warmsched;
namespace fs = std::filesystem;

namespace {

workloads::workload_command parse(const std::string& line, unsigned ncpus = 8,
                                  const std::vector<std::pair<std::string, std::string>>& params = {}) {
    workloads::workload_params p;
    for (const auto& [k, v] : params) p.set(k, v);
    return workloads::parse_command_line(workloads::split_command_line(line), ncpus, p);
}

const workloads::cyclictest& ct(const workloads::workload_command& wc) {
    return dynamic_cast<const workloads::cyclictest&>(*wc.w);
}

std::string error_of(const std::string& line) {
    try {
        parse(line);
    } catch (const workloads::usage_error& e) {
        const std::string s = e.what();
        return s.substr(0, s.find('\n'));
    }
    return "";
}

// clovertown-e5335-2s (8 CPUs: 2 sockets x 2 dies x 2 cores, L2 per die) under a kernel's defaults.
test::kernel_rig clovertown(scheduler::kernel_version k = scheduler::kernel_version::eevdf_v6_12,
                            const std::vector<std::pair<std::string, bool>>& features = {},
                            std::uint64_t seed = 1) {
    auto cfg = scheduler::sched_config::defaults(k, 8);
    for (const auto& [name, on] : features) REQUIRE(cfg.features.set(name, on).empty());
    return test::kernel_rig(platform::load_platform("clovertown-e5335-2s", {}), cfg, seed);
}

struct run_output {
    std::string text;
    workloads::workload_command wc;
};
run_output run(test::kernel_rig& r, const std::string& line) {
    run_output o{"", parse(line, r.m.num_cpus())};
    o.wc.w->start(r.k, o.wc.allowed);
    r.k.run(2'000'000'000); // a 2 s limit: the runs here end by -l or -D long before
    std::ostringstream out;
    o.wc.w->report(out);
    o.text = out.str();
    return o;
}

// One "T:" line as rt-tests' own tooling parses it (the fields of print_stat, spaces optional).
struct t_line {
    unsigned thread, tid, prio, interval;
    unsigned long long cycles;
    long min, act, avg, max;
};
std::vector<t_line> t_lines(const std::string& text) {
    static const std::regex re(R"(T:\s*(\d+)\s+\(\s*(\d+)\)\s+P:\s*(\d+)\s+I:\s*(\d+)\s+C:\s*(\d+)\s+)"
                               R"(Min:\s*(-?\d+)\s+Act:\s*(-?\d+)\s+Avg:\s*(-?\d+)\s+Max:\s*(-?\d+))");
    std::vector<t_line> v;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        v.push_back({static_cast<unsigned>(std::stoul(m[1])), static_cast<unsigned>(std::stoul(m[2])),
                     static_cast<unsigned>(std::stoul(m[3])), static_cast<unsigned>(std::stoul(m[4])),
                     std::stoull(m[5]), std::stol(m[6]), std::stol(m[7]), std::stol(m[8]), std::stol(m[9])});
    }
    return v;
}

// The -h block: per-microsecond rows and the summary rows, by title.
struct histogram_block {
    std::vector<std::vector<unsigned long long>> rows; // rows[us][thread]
    std::map<std::string, std::vector<unsigned long long>> summary;
};
histogram_block histogram_of(const std::string& text) {
    histogram_block h;
    std::istringstream in(text.substr(text.find("# Histogram\n")));
    std::string line;
    std::getline(in, line);
    static const std::regex row(R"((\d{6}) ((?:\d{6}\t)*\d{6}))");
    static const std::regex sum(R"(# ([A-Za-z ]+):((?: \d+)+))");
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, row)) {
            CHECK(std::stoul(m[1]) == h.rows.size());
            std::vector<unsigned long long> r;
            std::istringstream cells(m[2]);
            std::string c;
            while (std::getline(cells, c, '\t')) r.push_back(std::stoull(c));
            h.rows.push_back(r);
        } else if (std::regex_match(line, m, sum)) {
            std::istringstream vals(m[2]);
            unsigned long long v;
            while (vals >> v) h.summary[m[1]].push_back(v);
        }
    }
    return h;
}

} // namespace

TEST_CASE("cyclictest options follow rt-tests v2.x: intervals i + k*d and one priority unless --priospread") {
    {
        const auto wc = parse("cyclictest -n -p 90 -t 8 -i 100 -d 100");
        const auto& c = ct(wc);
        CHECK(c.options().threads == 8);
        CHECK(c.options().policy == workloads::cyclictest_options::sched::fifo); // -p implies SCHED_FIFO
        for (unsigned k = 0; k < 8; ++k) {
            CHECK(c.thread_interval_us(k) == 100 + 100 * static_cast<long>(k));
            CHECK(c.thread_priority(k) == 90);
            CHECK(c.thread_cpu(k) == -1); // not pinned without -a
        }
    }
    {
        const auto wc = parse("cyclictest -p90 --priospread -t4 -i 200");
        for (unsigned k = 0; k < 4; ++k) {
            CHECK(ct(wc).thread_priority(k) == 90 - static_cast<int>(k));
            CHECK(ct(wc).thread_interval_us(k) == 200 + 500 * static_cast<long>(k)); // default -d 500
        }
    }
    {
        const auto wc = parse("cyclictest -p 80 -t 3 -i 100 -d 50 -h 200"); // -h: one interval for all
        for (unsigned k = 0; k < 3; ++k) CHECK(ct(wc).thread_interval_us(k) == 100);
    }
    {
        const auto wc = parse("cyclictest -t -a -p 50", 8); // -t alone: one per CPU; -a alone: CPU k
        CHECK(ct(wc).options().threads == 8);
        for (unsigned k = 0; k < 8; ++k) CHECK(ct(wc).thread_cpu(k) == static_cast<int>(k));
    }
    {
        const auto wc = parse("cyclictest -t 5 -a 2,5-6 -p 50"); // round robin over the list
        const int want[] = {2, 5, 6, 2, 5};
        for (unsigned k = 0; k < 5; ++k) CHECK(ct(wc).thread_cpu(k) == want[k]);
    }
    {
        const auto wc = parse("cyclictest --policy=rr -t 2"); // RT policy without -p: priority threads + 1
        CHECK(ct(wc).options().policy == workloads::cyclictest_options::sched::rr);
        CHECK(ct(wc).thread_priority(0) == 3);
    }
    CHECK(ct(parse("cyclictest -D 1m")).options().duration_s == 60);
    CHECK(ct(parse("cyclictest -D 0.25")).options().duration_s == 0.25);
}

TEST_CASE("cyclictest -S is -a -t with one priority, --json names a file, -n is taken as rt-tests 1.x did") {
    const auto smp = parse("cyclictest -S -p 80 -i 200");
    CHECK(ct(smp).options().threads == 8);
    CHECK(ct(smp).options().affinity_mode == workloads::cyclictest_options::affinity::use_all);
    for (unsigned k = 0; k < 8; ++k) {
        CHECK(ct(smp).thread_cpu(k) == static_cast<int>(k));
        CHECK(ct(smp).thread_priority(k) == 80);
    }
    CHECK(ct(parse("cyclictest --smp --priospread -p 90")).thread_priority(7) == 90); // -S: same priority
    CHECK(ct(parse("cyclictest --json=out/ct.json")).options().json_file == "out/ct.json");
    CHECK(ct(parse("cyclictest -n -t 4")).options().nanosleep);
    CHECK(ct(parse("cyclictest -t 4 -a 2")).options().threads == 4); // optional values: the next word
    CHECK(ct(parse("cyclictest -a 2 -t 4")).options().affinity_cpus == std::vector<unsigned>{2});
    CHECK(ct(parse("cyclictest --threads=3")).options().threads == 3);
    CHECK(ct(parse("cyclictest -t")).options().threads == 8);
}

TEST_CASE(
    "cyclictest --json writes rt-tests 2.40's file: its T: figures per thread, the histogram's non-zero "
    "rows") {
    const fs::path dir = fs::temp_directory_path() / "warmsched-cyclictest-json";
    fs::remove_all(dir);
    const auto r = test::run_cli("run --platform clovertown-e5335-2s --seed 1 --out " + dir.string() +
                                 " -- cyclictest -m -S -p 90 -i 500 -l 40 -h 100 --json=/somewhere/ct.json");
    REQUIRE(r.status == 0);
    std::ifstream in(dir / "ct.json"); // into the results directory, under the file's name
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    const auto j = nlohmann::json::parse(text.str());
    CHECK(j.at("file_version") == 1);
    CHECK(j.at("cmdline:") == "cyclictest -m -S -p 90 -i 500 -l 40 -h 100 --json=/somewhere/ct.json");
    CHECK(j.at("return_code") == 0);
    CHECK(j.at("sysinfo").at("release") == "6.12.0-warmsched");
    CHECK(j.at("num_threads") == 8);
    // The T: lines of the same run: cycles, min, max per thread.
    const std::regex t_line(
        R"(T:\s*(\d+) \(\s*\d+\) P:\s*90 I:500 C:\s*(\d+) Min:\s*(\d+) Act:\s*\d+ Avg:\s*\d+ Max:\s*(\d+))");
    unsigned lines = 0;
    for (std::sregex_iterator m(r.out.begin(), r.out.end(), t_line), end; m != end; ++m, ++lines) {
        const auto& t = j.at("thread").at((*m)[1].str());
        CHECK(t.at("cycles") == std::stoull((*m)[2]));
        CHECK(t.at("min") == std::stoll((*m)[3]));
        CHECK(t.at("max") == std::stoll((*m)[4]));
        CHECK(t.at("cpu") == std::stoi((*m)[1]));
        CHECK(t.at("node") == -1); // pinned threads: no node, as rt-tests 2.40 prints
        std::uint64_t in_hist = 0;
        for (const auto& [us, n] : t.at("histogram").items()) {
            CHECK(n.get<std::uint64_t>() > 0); // only the non-zero rows
            CHECK(std::stoul(us) < 100);
            in_hist += n.get<std::uint64_t>();
        }
        CHECK(in_hist == 40); // every latency is below the 100 us limit here
    }
    CHECK(lines == 8);
}

TEST_CASE("cyclictest rejects bad command lines with one line naming the option") {
    CHECK(error_of("cyclictest -p 100") ==
          "cyclictest: invalid value '100' for -p (expected an integer from 0 to 99)");
    CHECK(error_of("cyclictest -i abc") ==
          "cyclictest: invalid value 'abc' for -i (expected an integer from 1 to 1000000000)");
    CHECK(error_of("cyclictest -x") == "cyclictest: invalid option -- 'x'"); // getopt_long's words
    CHECK(error_of("cyclictest -i") == "cyclictest: option requires an argument -- 'i'");
    CHECK(error_of("cyclictest -S -a 1") ==
          "cyclictest: -S runs a thread on every CPU: it does not take -a CPUSET");
    CHECK(error_of("cyclictest -a 9-12") ==
          "cyclictest: invalid CPU list '9-12' for -a (this machine has CPUs 0-7)");
    CHECK(error_of("cyclictest -D 3x") ==
          "cyclictest: invalid duration '3x' for -D (a number of seconds, optionally with s, m, h or d)");
    CHECK(error_of("cyclictest -p 3 --priospread -t 8") ==
          "cyclictest: --priospread: -p 3 leaves thread 7 below priority 1 (use a -p of at least 8)");
    CHECK(error_of("cyclictest --policy=deadline") ==
          "cyclictest: invalid value 'deadline' for --policy (other, normal, batch, idle, fifo or rr)");
}

TEST_CASE(
    "cyclictest T: lines: C is each thread's loops and Min <= Avg <= Max above the wakeup path's cost") {
    auto r = clovertown();
    const auto o = run(r, "cyclictest -n -p 90 -t 4 -i 200 -d 100 -l 300 -q");
    const auto lines = t_lines(o.text);
    REQUIRE(lines.size() == 4);
    const auto& st = ct(o.wc).outcome();
    CHECK(st.done);
    const auto& costs = r.m.platform().kernel_costs;
    // Timer interrupt entry, try_to_wake_up and the switch to the thread: the least a wakeup can cost.
    const double floor_us = (costs.ipi_handler_ps + costs.wakeup_ps + costs.context_switch_ps) / 1e6;
    for (unsigned k = 0; k < 4; ++k) {
        const t_line& l = lines[k];
        CHECK(l.thread == k);
        CHECK(l.prio == 90);
        CHECK(l.interval == 200 + 100 * k);
        CHECK(l.cycles == 300);
        CHECK(l.min <= l.avg);
        CHECK(l.avg <= l.max);
        CHECK(static_cast<double>(l.min) >= std::floor(floor_us));
        CHECK(l.max < 200); // an idle machine: no wakeup misses its period
        // The tid is the thread's pid, and the kernel woke that task at least once per cycle.
        const workloads::kernel_task* task = nullptr;
        for (const auto& kt : r.k.tasks())
            if (kt->t.pid == static_cast<int>(l.tid)) task = kt.get();
        REQUIRE(task);
        CHECK(task->t.policy == scheduler::sched_policy::fifo);
        CHECK(task->t.rt_priority == 90);
        CHECK(task->t.stats.nr_wakeups >= l.cycles);
        CHECK(st.threads[k].tid == static_cast<int>(l.tid));
    }
    // The RT class counted each thread's wakeups (one per cycle) in the run summary's counters.
    const auto& rt = dynamic_cast<const scheduler::rt_class&>(r.k.sched().rt());
    CHECK(rt.counters().wakeups >= 4 * 300);
}

TEST_CASE("cyclictest -h: the histogram's totals plus overflows equal each thread's C and its rows match "
          "the summary") {
    auto r = clovertown();
    const auto o = run(r, "cyclictest -p 80 -t 3 -i 150 -l 200 -h 20");
    const auto lines = t_lines(o.text); // without -q the T: lines come first
    REQUIRE(lines.size() == 3);
    auto h = histogram_of(o.text);
    REQUIRE(h.rows.size() == 20);
    REQUIRE(h.summary["Total"].size() == 3);
    for (unsigned k = 0; k < 3; ++k) {
        CHECK(lines[k].interval == 150); // -h: the same interval on every thread
        unsigned long long sum = 0, first = 0, last = 0;
        for (unsigned us = 0; us < 20; ++us) {
            sum += h.rows[us][k];
            if (h.rows[us][k] && !first) first = us;
            if (h.rows[us][k]) last = us;
        }
        CHECK(sum == h.summary["Total"][k]);
        CHECK(h.summary["Total"][k] + h.summary["Histogram Overflows"][k] == lines[k].cycles);
        CHECK(lines[k].cycles == 200);
        CHECK(h.summary["Min Latencies"][k] == static_cast<unsigned long long>(lines[k].min));
        CHECK(h.summary["Max Latencies"][k] == static_cast<unsigned long long>(lines[k].max));
        CHECK(h.summary["Avg Latencies"][k] == static_cast<unsigned long long>(lines[k].avg));
        if (h.summary["Histogram Overflows"][k] == 0) {
            CHECK(first == static_cast<unsigned long long>(lines[k].min));
            CHECK(last == static_cast<unsigned long long>(lines[k].max));
        }
    }
    CHECK(o.text.find("# Histogram Overflow at cycle number:\n# Thread 0:") != std::string::npos);
}

TEST_CASE("cyclictest -q -h prints the histogram only") {
    auto r = clovertown();
    const auto q = run(r, "cyclictest -p 80 -t 3 -i 150 -l 50 -h 20 -q");
    CHECK(t_lines(q.text).empty());
    CHECK(q.text.rfind("# Histogram\n", 0) == 0);
    CHECK(histogram_of(q.text).summary["Total"].size() == 3);
}

TEST_CASE("cyclictest -D stops every thread and -a pins thread k to CPU k") {
    auto r = clovertown();
    const auto o = run(r, "cyclictest -p 70 -t 4 -a -i 1000 -d 0 -D 0.05 -q");
    const auto lines = t_lines(o.text);
    REQUIRE(lines.size() == 4);
    for (unsigned k = 0; k < 4; ++k) {
        // 50 ms at 1 ms: 50 wakeups (the one that sees the end) and at most one more for a thread asleep
        // when another ended the run.
        CHECK(lines[k].cycles >= 49);
        CHECK(lines[k].cycles <= 51);
        for (const auto& kt : r.k.tasks())
            if (kt->t.pid == static_cast<int>(lines[k].tid)) {
                CHECK(kt->t.cpu == k);
                CHECK(kt->t.stats.nr_migrations == 0);
            }
    }
    const auto& rt = dynamic_cast<const scheduler::rt_class&>(r.k.sched().rt());
    CHECK(rt.counters().woke[scheduler::rt_counters::same_cpu] == rt.counters().wakeups); // pinned
}

namespace {
// The "rt placement" line of the run summary: RT wakeups, pushes, pulls, push IPIs, run queues read.
struct rt_line {
    unsigned long long wakeups = 0, pushes = 0, pulls = 0, ipis = 0, reads = 0;
};
rt_line rt_line_of(const std::string& out) {
    static const std::regex re(
        R"(rt placement\s+(\d+)\s+RT wakeups onto: .*; pushes (\d+) \(to another LLC \d+\), )"
        R"(pulls (\d+) \(from another LLC \d+\), push IPIs (\d+), run queues read (\d+))");
    std::smatch m;
    REQUIRE(std::regex_search(out, m, re));
    return {std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3]), std::stoull(m[4]), std::stoull(m[5])};
}
} // namespace

TEST_CASE("cyclictest beside FIFO 95 hogs: byte-identical for one seed and the older RT mechanisms push and "
          "read run queues") {
    // Four SCHED_FIFO 95 rt-app threads allowed on CPUs 0-3 run 300 us and sleep 100 us: a cyclictest
    // thread whose CPU is busy with one must be placed elsewhere (pre-routed at wakeup by cpupri now;
    // queued, then pushed after a linear scan, with the older mechanisms).
    const fs::path dir = fs::temp_directory_path() / ("warmsched-cyclictest-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "hogs.json")
        << R"({"global": {"duration": 1}, "tasks": {"hog": {"instance": 4, "policy": "SCHED_FIFO", )"
           R"("priority": 95, "cpus": [0, 1, 2, 3], "run": 300, "sleep": 100}}})";
    std::ofstream(dir / "x.yaml") << "platform: clovertown-e5335-2s\nseed: 3\nduration: 0.05s\nworkloads:\n"
                                     "  - cyclictest -n -p 90 -t 8 -i 100 -d 20 -l 100 -q\n"
                                     "  - rt-app "
                                  << (dir / "hogs.json").string() << "\n";
    const std::string older =
        " --feature RT_CPUPRI=off --feature RT_OVERLOAD_PUSH=off --feature RT_WAKE_PREROUTE=off "
        "--feature RT_TOPOLOGY_PREF=off --feature RT_PUSH_IPI=off";
    const auto run = [&](const std::string& name, const std::string& flags) {
        return test::run_cli("run " + (dir / "x.yaml").string() + flags + " --out " + (dir / name).string());
    };
    const auto a = run("a", ""), b = run("b", ""), c = run("c", older);
    REQUIRE(a.status == 0);
    REQUIRE(c.status == 0);
    CHECK(a.out.substr(0, a.out.find("results:")) == b.out.substr(0, b.out.find("results:")));
    for (const auto* o : {&a, &c}) {
        const auto lines = t_lines(o->out);
        REQUIRE(lines.size() == 8);
        for (const auto& l : lines) {
            CHECK(l.cycles == 100);
            CHECK(l.min <= l.avg);
            CHECK(l.avg <= l.max);
        }
    }
    const rt_line now = rt_line_of(a.out), then = rt_line_of(c.out);
    CHECK(now.wakeups >= 800);
    CHECK(then.wakeups >= 800);
    CHECK(then.ipis == 0);             // RT_PUSH_IPI off
    CHECK(then.pushes > now.pushes);   // no pre-routing: queued behind a hog, then pushed
    CHECK(then.reads > 2 * now.reads); // the linear scans and depth-driven pulls read other run queues
    fs::remove_all(dir);
}
