// rt-app JSON use cases: the parser reads what rt-app reads (keys by prefix in file order, C comments,
// trailing commas) and rejects with the JSON path what it would ignore; the threads behave as rt-app's do
// (a periodic task's duty cycle, mutual exclusion, barriers, condition variables, fork, timer modes), and
// their output -- the per-thread summary and rt-app's log files -- agrees with the run's own counters.
#include "support/file_text.h"
#include "support/kernel_rig.h"
#include "workloads/cli/command_line.h"
#include "workloads/cli/option_parser.h"
#include "workloads/rtapp/rt_app.h"
#include "workloads/rtapp/rtapp_config.h"

#include <catch2/catch.hpp>

#include "support/cli_runner.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <sys/wait.h>

using namespace warmsched;
namespace fs = std::filesystem;
namespace rtapp = workloads::rtapp;

using warmsched::test::file_text;

namespace {

rtapp::config parse(const std::string& text, unsigned ncpus = 8) {
    return rtapp::parse_config(rtapp::parse_json_text(text, "t.json"), "t.json", ncpus);
}

std::string error_of(const std::string& text, unsigned ncpus = 8) {
    try {
        parse(text, ncpus);
    } catch (const workloads::usage_error& e) {
        return e.what();
    }
    return "(no error)";
}

// One row of the per-thread summary, read the way a script reads it.
struct summary_row {
    int pid = 0, prio = 0;
    std::string policy;
    unsigned loops = 0;
    double c_run = 0, run = 0, cpu = 0, util = 0, period = 0, slack = 0, wu = 0, wu_max = 0;
};
std::map<std::string, summary_row> read_summary(const std::string& report) {
    static const std::regex row(
        R"(^(\S+)\s+(\d+)\s+(SCHED_[A-Z]+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+)"
        R"(([\d.]+)\s+([\d.]+)\s+(-?\d+)\s+([\d.]+)\s+(\d+)$)");
    std::map<std::string, summary_row> out;
    std::istringstream in(report);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
        if (std::regex_match(line, m, row)) {
            summary_row r;
            r.pid = std::stoi(m[2]);
            r.policy = m[3];
            r.prio = std::stoi(m[4]);
            r.loops = static_cast<unsigned>(std::stoul(m[5]));
            r.c_run = std::stod(m[6]);
            r.run = std::stod(m[7]);
            r.cpu = std::stod(m[8]);
            r.util = std::stod(m[9]);
            r.period = std::stod(m[10]);
            r.slack = std::stod(m[11]);
            r.wu = std::stod(m[12]);
            r.wu_max = std::stod(m[13]);
            out[m[1]] = r;
        }
    return out;
}

// An rt-app log file as LISA reads it: a '#'-prefixed header naming the columns, then whitespace-separated
// numbers.
std::vector<std::map<std::string, double>> read_log(const std::string& text) {
    std::istringstream in(text);
    std::string header;
    std::getline(in, header);
    REQUIRE(header.rfind("#idx", 0) == 0);
    std::vector<std::string> cols;
    std::istringstream h(header.substr(1));
    for (std::string c; h >> c;) cols.push_back(c);
    REQUIRE(cols == std::vector<std::string>{"idx", "perf", "run", "period", "start", "end", "rel_st",
                                             "slack", "c_duration", "c_period", "wu_lat"});
    std::vector<std::map<std::string, double>> rows;
    for (std::string line; std::getline(in, line);) {
        std::istringstream l(line);
        std::map<std::string, double> r;
        for (const auto& c : cols) {
            double v = 0;
            REQUIRE(static_cast<bool>(l >> v));
            r[c] = v;
        }
        rows.push_back(r);
    }
    return rows;
}

// A use case run on the mini platform (8 CPUs at 1 GHz, CPI 1: pLoad is exactly 180 ns).
struct rig_run {
    test::kernel_rig r{test::rig_config(scheduler::kernel_version::eevdf_v6_12)};
    std::unique_ptr<workloads::rt_app> app;
    std::string report;
    std::map<std::string, summary_row> summary;

    rig_run(const std::string& text, scheduler::nsec limit = 0) {
        app = std::make_unique<workloads::rt_app>(parse(text), rtapp::rtapp_params{}, 50, "rt-app t.json");
        app->start(r.k, {});
        r.k.run(limit);
        std::ostringstream out;
        app->report(out);
        report = out.str();
        summary = read_summary(report);
    }
    const workloads::kernel_task& task(int pid) const {
        for (const auto& t : r.k.tasks())
            if (t->t.pid == pid) return *t;
        FAIL("no task " << pid);
        return *r.k.tasks().front();
    }
    std::vector<std::map<std::string, double>> log(int ind) const {
        return read_log(app->log_file_text(ind));
    }
};

using warmsched::test::cli_result;
using warmsched::test::run_cli;
} // namespace

TEST_CASE("rt-app events match by key prefix in file order") {
    const auto c = parse(R"({"tasks": {"t": {
        "sleep2": 30, "run0": 10, "runtime1": 20, "runner": 5, "timer9": {"ref": "x", "period": 100},
        "lock_a": "m", "unlock": "m", "memory": 128, "memrun": {"size": 4096}, "yield": "", "barrier": "b",
        "signal": "c", "broadcast_it": "c", "wait": {"ref": "c", "mutex": "m"}, "sync": {"ref": "c", "mutex": "m"},
        "suspend": "t", "resume": "t", "fork": "t"}}})");
    const auto& ev = c.tasks.at(0).phases.at(0).events;
    using k = rtapp::event_kind;
    const std::vector<k> want = {k::sleep,  k::run,  k::runtime, k::run,     k::timer,   k::lock,
                                 k::unlock, k::mem,  k::memrun,  k::yield,   k::barrier, k::signal,
                                 k::broad,  k::wait, k::sync,    k::suspend, k::resume,  k::fork};
    REQUIRE(ev.size() == want.size());
    for (std::size_t i = 0; i < ev.size(); ++i) CHECK(ev[i].kind == want[i]);
    CHECK(ev[0].duration_us == 30);
    CHECK(ev[1].key == "run0");
    CHECK(ev[1].duration_us == 10);
    CHECK(ev[2].duration_us == 20);
    CHECK(ev[4].duration_us == 100);
    CHECK(ev[7].bytes == 128);
    CHECK(ev[8].accesses == 64);
    // Without "loop" a task loops forever; with it, its single phase runs that often, once.
    CHECK(c.tasks[0].loop == -1);
    const auto d = parse(R"({"tasks": {"t": {"loop": 7, "run": 1}}})");
    CHECK(d.tasks[0].loop == 1);
    CHECK(d.tasks[0].phases[0].loop == 7);
    // Phases keep file order, each with its own loop.
    const auto p =
        parse(R"({"tasks": {"t": {"loop": 3, "phases": {"z": {"loop": 2, "run": 1}, "a": {"sleep": 1}}}}})");
    REQUIRE(p.tasks[0].phases.size() == 2);
    CHECK(p.tasks[0].phases[0].name == "z");
    CHECK(p.tasks[0].phases[0].loop == 2);
    CHECK(p.tasks[0].phases[1].name == "a");
    CHECK(p.tasks[0].phases[1].loop == 1);
    CHECK(p.tasks[0].loop == 3);
}

TEST_CASE("rt-app JSON accepts C comments and trailing commas like json-c") {
    const std::string text = R"(// a use case
{
    /* global section,
       two lines */
    "global": { "duration": 2, "io_device": "a,}/*not a comment*/", },
    "tasks": {
        "t": { "cpus": [1, 2,], "run": 10, // the work
               "sleep": 5, },
    },
}
)";
    // Strings are left alone, and line and column numbers are kept.
    const std::string blanked = rtapp::blank_trailing_commas(text);
    CHECK(blanked.size() == text.size());
    CHECK(blanked.find("\"a,}/*not a comment*/\"") != std::string::npos);
    CHECK(std::count(blanked.begin(), blanked.end(), '\n') == std::count(text.begin(), text.end(), '\n'));
    const auto c = parse(text);
    CHECK(c.global.duration_s == 2);
    CHECK(c.global.io_device == "a,}/*not a comment*/");
    REQUIRE(c.tasks.size() == 1);
    CHECK(c.tasks[0].cpus == std::vector<bool>{false, true, true, false, false, false, false, false});
    REQUIRE(c.tasks[0].phases[0].events.size() == 2);
    CHECK(c.tasks[0].phases[0].events[1].kind == rtapp::event_kind::sleep);
}

TEST_CASE("rt-app reports an unknown key with its JSON path") {
    CHECK_THAT(error_of(R"({"tasks": {"t": {"phases": {"p1": {"run0": 10, "slep": 5}}}}})"),
               Catch::StartsWith("rt-app: t.json: tasks.t.phases.p1.slep: unknown key (phase keys: loop,"));
    CHECK_THAT(error_of(R"({"global": {"duraton": 1}, "tasks": {"t": {"run": 1}}})"),
               Catch::StartsWith("rt-app: t.json: global.duraton: unknown key (global keys: duration,"));
    CHECK_THAT(
        error_of(R"({"tasks": {"t": {"run": 1, "timer": {"ref": "a", "period": 5, "moed": "absolute"}}}})"),
        Catch::StartsWith(
            "rt-app: t.json: tasks.t.timer.moed: unknown key (this event takes: ref, period, mode)"));
    CHECK_THAT(error_of(R"({"tasks": {"t": {"run": 1}}, "task": {}})"),
               Catch::StartsWith("rt-app: t.json: task: unknown key"));
    // Keys rt-app would silently ignore.
    CHECK(error_of(R"({"tasks": {"t": {"run": 1, "nice": 5}}})") ==
          "rt-app: t.json: tasks.t.nice: rt-app has no \"nice\" key: the nice value of a SCHED_OTHER thread "
          "is its "
          "\"priority\"");
    CHECK(error_of(R"({"tasks": {"t": {"run": 1, "dl-period": 5}}})") ==
          "rt-app: t.json: tasks.t.dl-period: a SCHED_DEADLINE parameter, but the thread's policy is "
          "SCHED_OTHER");
    CHECK(error_of(R"({"tasks": {"t": {"run": 1, "policy": "SCHED_FIFO", "dl-runtime": 5}}})") ==
          "rt-app: t.json: tasks.t.dl-runtime: dl-runtime is SCHED_DEADLINE's runtime or, on SCHED_OTHER and "
          "SCHED_BATCH, v6.12's custom slice; the thread's policy is SCHED_FIFO");
    CHECK_THAT(error_of(R"({"tasks": {"t": {"run": 1, "phases": {"p": {"run": 1}}}}})"),
               Catch::StartsWith("rt-app: t.json: tasks.t.run: an event beside \"phases\""));
    CHECK_THAT(error_of(R"({"tasks": {"t": {"exec": 5000, "period": 10000}}})"),
               Catch::StartsWith("rt-app: t.json: tasks.t.exec: rt-app's legacy grammar"));
    // Wrong types and values name the key too.
    CHECK(error_of(R"({"tasks": {"t": {"run": 1.5}}})") ==
          "rt-app: t.json: tasks.t.run: expected a duration in microseconds, got a number with a fraction");
    CHECK(error_of(R"({"tasks": {"t": {"run": 1, "cpus": [0, 8]}}})") ==
          "rt-app: t.json: tasks.t.cpus[1]: expected a CPU number of this machine in [0, 7], got 8");
    CHECK(error_of(R"({"tasks": {"t": {"fork": "nobody"}}})") ==
          "rt-app: t.json: tasks.t.fork: fork of an unknown task \"nobody\"");
    CHECK(error_of(R"({"tasks": {"t": {"run": 1, "priority": 20}}})") ==
          "rt-app: t.json: tasks.t.priority: nice 20 is invalid for SCHED_OTHER (valid between -20 and 19)");
}

TEST_CASE("rt-app reports malformed JSON with file line and column") {
    const fs::path p = fs::temp_directory_path() / ("rtapp-bad-" + std::to_string(::getpid()) + ".json");
    std::ofstream(p) << "{\n  \"tasks\": {\n    \"t\": { \"run\": 10 \"sleep\": 10 }\n  }\n}\n";
    try {
        rtapp::read_config(p.string(), 8);
        FAIL("no error");
    } catch (const workloads::usage_error& e) {
        const std::string what = e.what();
        CHECK_THAT(what, Catch::StartsWith("rt-app: " + p.string() + ":3:"));
        CHECK_THAT(what, Catch::Contains(": malformed JSON: syntax error while parsing object"));
        CHECK(what.find('\n') == std::string::npos);
    }
    // An unterminated comment, and an empty file.
    CHECK_THAT(error_of("{\"tasks\": {} /* no end"), Catch::StartsWith("rt-app: t.json:1:"));
    CHECK_THAT(error_of(""), Catch::StartsWith("rt-app: t.json:1:1: malformed JSON"));
    fs::remove(p);
}

TEST_CASE("rt-app parses deadline policies and task groups fully then says they are not modelled") {
    // SCHED_FIFO and SCHED_RR are accepted (they run in the RT class: see the next test case).
    CHECK(error_of(R"({"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 50, "run": 1}}})") ==
          "(no error)");
    CHECK(error_of(R"({"global": {"default_policy": "SCHED_RR"}, "tasks": {"t": {"run": 1}}})") ==
          "(no error)");
    CHECK(
        error_of(
            R"({"tasks": {"t": {"policy": "SCHED_DEADLINE", "dl-runtime": 100, "dl-period": 1000, "run": 1}}})") ==
        "rt-app: t.json: tasks.t.policy: SCHED_DEADLINE needs the deadline scheduling class, which is not "
        "modelled yet");
    // Fully: a real error anywhere in the file comes first, and RT parameters are still checked.
    CHECK_THAT(error_of(R"({"tasks": {"a": {"policy": "SCHED_FIFO", "run": 1}, "b": {"run": "x"}}})"),
               Catch::StartsWith("rt-app: t.json: tasks.b.run: expected a duration"));
    CHECK(error_of(R"({"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 100, "run": 1}}})") ==
          "rt-app: t.json: tasks.t.priority: priority 100 is invalid for SCHED_FIFO (1-99)");
    // A phase may restate the thread's parameters but not change them (yet).
    CHECK(parse(R"({"tasks": {"t": {"priority": 3, "phases": {"p": {"priority": 3, "run": 1}}}}})")
              .tasks[0]
              .priority == 3);
    CHECK_THAT(
        error_of(R"({"tasks": {"t": {"phases": {"p": {"run": 1}, "q": {"cpus": [1], "run": 1}}}}})"),
        Catch::StartsWith("rt-app: t.json: tasks.t.phases.q.cpus: changing a running thread's affinity"));
    // SCHED_BATCH (beyond rt-app) and SCHED_IDLE work, and "priority" is the nice value.
    const auto c = parse(R"({"tasks": {"b": {"policy": "SCHED_BATCH", "priority": -5, "run": 1},
                                         "i": {"policy": "SCHED_IDLE", "run": 1}}})");
    CHECK(c.tasks[0].pol == rtapp::policy::batch);
    CHECK(c.tasks[0].priority == -5);
    CHECK(c.tasks[1].pol == rtapp::policy::idle);
}

TEST_CASE("rt-app taskgroup is read with its JSON path and may not change between phases") {
    // The group must be in the experiment's hierarchy: checked when the run is assembled
    // (tests/kernel/test_cgroup_runs.cpp); the threads move themselves into it when they start.
    const auto c = parse(R"({"tasks": {"t": {"taskgroup": "/tg1", "run": 1},
                                       "p": {"phases": {"a": {"run": 1}, "b": {"taskgroup": "/tg2", "run": 1}}},
                                       "n": {"run": 1}}})");
    CHECK(c.tasks[0].taskgroup == "/tg1");
    CHECK(c.tasks[0].taskgroup_path == "tasks.t.taskgroup");
    CHECK(c.tasks[1].taskgroup == "/tg2");
    CHECK(c.tasks[1].taskgroup_path == "tasks.p.phases.b.taskgroup");
    CHECK(c.tasks[2].taskgroup.empty());
    CHECK(error_of(R"({"tasks": {"t": {"taskgroup": "tg1", "run": 1}}})") ==
          "rt-app: t.json: tasks.t.taskgroup: taskgroup \"tg1\" has to start with '/'");
    CHECK(
        error_of(
            R"({"tasks": {"t": {"taskgroup": "/a", "phases": {"p": {"run": 1}, "q": {"taskgroup": "/b", "run": 1}}}}})") ==
        "rt-app: t.json: tasks.t.phases.q.taskgroup: moving a running thread to another task group between "
        "phases (from \"/a\" to \"/b\") is not modelled yet");
}

TEST_CASE("rt-app periodic task run 3ms every 10ms uses 30 percent of a CPU") {
    rig_run x(R"({"global": {"duration": 1}, "tasks": {"periodic": {
                    "run": 3000, "timer": {"ref": "tick", "period": 10000}}}})");
    REQUIRE(x.app->finished());
    CHECK_THAT(x.report, Catch::StartsWith("[rt-app] <notice> pLoad = 180ns : calib_cpu 0\n"));
    REQUIRE(x.summary.count("periodic-0"));
    const summary_row& s = x.summary.at("periodic-0");
    const auto& kt = x.task(s.pid);
    // The summary's CPU time is the kernel's, and the duty cycle is the JSON's.
    CHECK(s.cpu == Approx(kt.t.se.sum_exec_runtime / 1000.0).margin(1));
    CHECK(s.util == Approx(30.0).margin(1.0));
    CHECK(s.period == Approx(10000).margin(2));
    CHECK(s.slack > 6500);
    // The log: one line per period; every run takes 3 ms, and the logged runs add up to the CPU time.
    const auto rows = x.log(0);
    CHECK(rows.size() == s.loops);
    CHECK(rows.size() >= 98);
    double run = 0;
    for (const auto& r : rows) {
        CHECK(r.at("c_duration") == 3000);
        CHECK(r.at("c_period") == 10000);
        CHECK(r.at("run") == Approx(3000).margin(60));
        CHECK(r.at("perf") == 3000 / 180);
        CHECK(r.at("end") - r.at("start") == Approx(r.at("period")).margin(1));
        run += r.at("run");
    }
    CHECK(run == Approx(s.cpu).epsilon(0.03));
    // Periods are back to back, on the timer's 10 ms grid.
    for (std::size_t i = 1; i < rows.size(); ++i)
        CHECK(rows[i].at("rel_st") - rows[i - 1].at("rel_st") == Approx(10000).margin(5));
}

TEST_CASE("rt-app mutex serialises the critical sections") {
    // Three threads, each 2 ms inside one mutex then 1 ms asleep: alone they would be busy 2/3 of the time.
    rig_run locked(R"({"global": {"duration": 1}, "tasks": {"w": {"instance": 3,
                       "lock": "m", "run": 2000, "unlock": "m", "sleep": 1000}}})");
    REQUIRE(locked.summary.size() == 3);
    double inside = 0;
    for (const auto& [name, s] : locked.summary) {
        inside += s.run;
        // Each waits for the other two's sections: a period is three sections long.
        CHECK(s.period > 5800);
        CHECK(s.util < 35);
    }
    // One at a time: the sections add up to at most the run's length.
    CHECK(inside <= 1'000'000);
    CHECK(inside > 950'000);
    // The waiters slept in the kernel: each thread switched out voluntarily far more often than it slept.
    for (const auto& [name, s] : locked.summary)
        CHECK(locked.task(s.pid).t.stats.nr_voluntary_switches > 1.5 * s.loops);
}

TEST_CASE("rt-app threads without a mutex run their sections in parallel") {
    rig_run free(
        R"({"global": {"duration": 1}, "tasks": {"w": {"instance": 3, "run": 2000, "sleep": 1000}}})");
    REQUIRE(free.summary.size() == 3);
    double run = 0;
    for (const auto& [name, s] : free.summary) {
        run += s.run;
        CHECK(s.util == Approx(66.7).margin(1.5));
    }
    CHECK(run > 1'900'000);
}

TEST_CASE("rt-app barrier releases every thread together") {
    rig_run x(R"({"global": {"duration": 1}, "tasks": {
                   "fast": {"instance": 3, "run": 1000, "barrier": "step"},
                   "slow": {"run": 4000, "barrier": "step"}}})");
    REQUIRE(x.summary.size() == 4);
    const unsigned rounds = x.summary.at("slow-3").loops;
    CHECK(rounds >= 230);
    std::vector<std::vector<std::map<std::string, double>>> logs;
    for (int i = 0; i < 4; ++i) logs.push_back(x.log(i));
    for (const auto& l : logs) CHECK(l.size() == rounds);
    // Every round ends for all four within microseconds of the slowest one's arrival, and the fast threads
    // spend 3 of the round's 4 ms waiting.
    for (unsigned r = 1; r + 1 < rounds; ++r) {
        double lo = 1e18, hi = 0;
        for (const auto& l : logs) {
            lo = std::min(lo, l[r].at("end"));
            hi = std::max(hi, l[r].at("end"));
        }
        CHECK(hi - lo < 30);
    }
    for (int i = 0; i < 3; ++i)
        CHECK(x.summary.at("fast-" + std::to_string(i)).period ==
              Approx(x.summary.at("slow-3").period).margin(1));
    CHECK(x.summary.at("slow-3").period == Approx(4000).margin(60));
}

TEST_CASE("rt-app producer wakes the consumer through a condition variable") {
    rig_run x(R"({"global": {"duration": 1}, "tasks": {
        "consumer": {"lock": "q", "wait": {"ref": "data", "mutex": "q"}, "unlock": "q", "run": 1000},
        "producer": {"delay": 1000, "run": 500, "lock": "q", "signal": "data", "unlock": "q",
                     "timer": {"ref": "tick", "period": 5000}}}})");
    const summary_row& c = x.summary.at("consumer-0");
    const summary_row& p = x.summary.at("producer-1");
    // One consumer iteration per signal: the consumer keeps the producer's 5 ms period.
    CHECK(p.loops >= 198);
    CHECK(c.loops >= p.loops - 1);
    CHECK(c.loops <= p.loops + 1);
    CHECK(c.period == Approx(5000).margin(20)); // the first one waits for the first signal
    CHECK(x.task(c.pid).t.stats.nr_wakeups >= c.loops);
}

TEST_CASE("rt-app fork creates threads of the named task") {
    rig_run x(R"({"global": {"duration": 1}, "tasks": {
        "dispatcher": {"fork": "worker", "timer": {"ref": "d", "period": 20000}},
        "worker": {"instance": 0, "loop": 1, "run": 2000, "resume": "helper"},
        "helper": {"suspend": "helper", "run": 500}}})");
    const unsigned dispatched = x.summary.at("dispatcher-0").loops;
    CHECK(dispatched >= 49);
    unsigned workers = 0, ran = 0;
    for (const auto& [name, s] : x.summary) {
        if (name.rfind("worker-", 0) != 0) continue;
        ++workers;
        CHECK(std::regex_match(name, std::regex(R"(worker-\d+-\d{4})")));
        // A thread of rt-app's process, created by the dispatcher (a clone, not a process fork).
        CHECK(x.task(s.pid).t.tgid == x.task(x.summary.at("dispatcher-0").pid).t.tgid);
        if (s.loops == 0) continue; // forked as the duration ended: stopped before its first event
        ++ran;
        CHECK(s.loops == 1);
        CHECK(s.run == Approx(2000).margin(40));
    }
    CHECK(workers >= dispatched);
    CHECK(workers <= dispatched + 1);
    CHECK(ran >= dispatched - 1);
    // Each worker resumed the helper once.
    CHECK(x.summary.at("helper-1").loops >= ran - 1);
    CHECK(x.r.k.forks() == 2 + workers); // the main thread's two threads, then one per fork event
}

TEST_CASE("rt-app absolute timers catch up after an overrun and relative ones restart") {
    // The same phases with an absolute and with a relative timer: one 15 ms overrun, then short runs.
    std::string tasks;
    for (const char* mode : {"absolute", "relative"})
        tasks += std::string(tasks.empty() ? "" : ", ") + "\"" + mode + R"(": {"loop": 1, "phases": {
            "late": {"run": 25000, "timer": {"ref": ")" +
                 mode + R"(", "period": 10000, "mode": ")" + mode + R"("}},
            "steady": {"loop": 5, "run": 1000, "timer": {"ref": ")" +
                 mode + R"(", "period": 10000}}}})";
    rig_run x("{\"tasks\": {" + tasks + "}}");
    const auto abs = x.log(0);
    const auto rel = x.log(1);
    REQUIRE(abs.size() == 6);
    REQUIRE(rel.size() == 6);
    CHECK(abs[0].at("slack") < -14000); // 15 ms late
    CHECK(abs[0].at("wu_lat") == 0);
    // Absolute: the expiries stay at 20, 30 ms ...: the first steady periods run back to back.
    CHECK(abs[1].at("period") == Approx(1000).margin(20));
    CHECK(abs[2].at("period") == Approx(4000).margin(20));
    // Relative: the grid restarts where the late period ended.
    for (int i = 1; i < 6; ++i) CHECK(rel[i].at("period") == Approx(10000).margin(20));
}

TEST_CASE("rt-app policies and nice values reach the scheduler") {
    rig_run x(R"({"tasks": {"b": {"loop": 2, "policy": "SCHED_BATCH", "priority": -5, "run": 100},
                            "i": {"loop": 2, "policy": "SCHED_IDLE", "run": 100},
                            "o": {"loop": 2, "priority": 7, "cpus": [3], "run": 100}}})");
    const auto& b = x.task(x.summary.at("b-0").pid).t;
    const auto& i = x.task(x.summary.at("i-1").pid).t;
    const auto& o = x.task(x.summary.at("o-2").pid).t;
    CHECK(b.policy == scheduler::sched_policy::batch);
    CHECK(b.nice == -5);
    CHECK(i.policy == scheduler::sched_policy::idle);
    CHECK(o.policy == scheduler::sched_policy::normal);
    CHECK(o.nice == 7);
    CHECK(o.allowed == std::vector<bool>{false, false, false, true, false, false, false, false});
    CHECK(o.cpu == 3);
    CHECK(x.summary.at("b-0").policy == "SCHED_BATCH");
    CHECK(x.summary.at("o-2").prio == 7);
}

TEST_CASE("rt-app SCHED_FIFO and SCHED_RR threads run in the RT class with their priority") {
    rig_run x(R"({"global": {"default_policy": "SCHED_RR"},
                  "tasks": {"f": {"loop": 2, "policy": "SCHED_FIFO", "priority": 50, "cpus": [2], "run": 100},
                            "r": {"loop": 2, "run": 100},
                            "o": {"loop": 2, "policy": "SCHED_OTHER", "cpus": [2], "run": 100}}})");
    const auto& f = x.task(x.summary.at("f-0").pid).t;
    const auto& r = x.task(x.summary.at("r-1").pid).t;
    const auto& o = x.task(x.summary.at("o-2").pid).t;
    CHECK(f.policy == scheduler::sched_policy::fifo);
    CHECK(f.rt_priority == 50);
    CHECK(f.prio() == 49); // kernel prio 99 - 50
    CHECK(r.policy == scheduler::sched_policy::rr);
    CHECK(r.rt_priority == 10); // rt-app's default RT priority
    CHECK(o.policy == scheduler::sched_policy::normal);
    CHECK(x.summary.at("f-0").policy == "SCHED_FIFO");
    CHECK(x.summary.at("f-0").prio == 50);
    CHECK(x.summary.at("r-1").policy == "SCHED_RR");
    // On CPU 2 the FIFO thread preempts the fair one whenever it runs: it never waits behind it.
    CHECK(f.stats.nr_involuntary_switches == 0);
}

TEST_CASE("rt-app memrun with a ref shares one buffer and mem buffers are per task") {
    rig_run x(R"({"global": {"mem_buffer_size": 65536}, "tasks": {
        "w": {"loop": 3, "memrun": {"type": "write", "ref": "frame"}, "mem": 4096},
        "r": {"loop": 3, "instance": 2, "memrun": {"type": "read", "ref": "frame", "pattern": "rand", "count": 100},
              "mem": 8192}}})");
    const rtapp::world& w = x.app->state();
    const auto& p = w.event_profiles;
    // memrun "frame": the same region for the writer and the readers; each task's mem: its own buffer.
    CHECK(p[0][0][0]->working_region == p[1][0][0]->working_region);
    CHECK(p[0][0][1]->working_region != p[1][0][1]->working_region);
    CHECK(p[0][0][1]->working_region != p[0][0][0]->working_region);
    CHECK(p[0][0][0]->write_fraction == 1);
    CHECK(p[1][0][0]->write_fraction == 0);
    CHECK(p[1][0][0]->pattern == workloads::access_pattern::uniform);
    CHECK(p[0][0][0]->working_set == 65536);
    CHECK(p[0][0][1]->working_set == 4096);
    REQUIRE(x.app->finished());
    for (const char* t : {"w-0", "r-1", "r-2"}) CHECK(x.summary.at(t).loops == 3);
}

TEST_CASE("rt-app same seed gives byte-identical reports and logs") {
    const std::string json = std::string(WARMSCHED_SOURCE_DIR) + "/configs/workloads/barrier.json";
    std::vector<std::string> reports, logs;
    for (int i = 0; i < 2; ++i) {
        const fs::path out =
            fs::temp_directory_path() / ("rtapp-det-" + std::to_string(::getpid()) + "-" + std::to_string(i));
        const auto r = run_cli("run --platform zen3-5950x --seed 7 -p duration=0.2s --out " + out.string() +
                               " -- rt-app " + json);
        REQUIRE(r.status == 0);
        reports.push_back(file_text(out / "report.txt"));
        logs.push_back(file_text(out / "rt-app-slow-3.log") + file_text(out / "rt-app-fast-0.log"));
        fs::remove_all(out);
    }
    CHECK(reports[0] == reports[1]);
    CHECK(logs[0] == logs[1]);
    CHECK(logs[0].size() > 1000);
}

TEST_CASE("rt-app every shipped example runs on zen3-5950x") {
    const fs::path dir = fs::path(WARMSCHED_SOURCE_DIR) / "configs" / "workloads";
    unsigned examples = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        ++examples;
        INFO(entry.path().filename().string());
        const fs::path out = fs::temp_directory_path() / ("rtapp-ex-" + std::to_string(::getpid()));
        const auto r = run_cli("run --platform zen3-5950x --out " + out.string() + " -- rt-app " +
                               entry.path().string());
        CHECK(r.status == 0);
        // Calibrated on CPU0 as rt-app prints it, or a fixed calibration (hogs.json: 100 ns per loop).
        CHECK_THAT(r.out, Catch::StartsWith("[rt-app] <notice> pLoad = 14ns : calib_cpu 0\n") ||
                              Catch::StartsWith("[rt-app] <notice> pLoad = 100ns\n"));
        const auto summary = read_summary(r.out);
        CHECK(!summary.empty());
        for (const auto& [name, s] : summary) {
            INFO(name);
            // A thread forked as the duration ended may have stopped before its first event.
            CHECK((s.loops > 0 || std::regex_search(name, std::regex(R"(-\d+-\d{4}$)"))));
            const fs::path log = out / ("rt-app-" + name + ".log");
            REQUIRE(fs::exists(log));
            CHECK(read_log(file_text(log)).size() == s.loops);
        }
        fs::remove_all(out);
    }
    CHECK(examples >= 7);
}

TEST_CASE("rt-app command line errors are one line naming the file and the JSON path") {
    const fs::path p = fs::temp_directory_path() / ("rtapp-cli-" + std::to_string(::getpid()) + ".json");
    std::ofstream(p) << R"({"tasks": {"t": {"phases": {"p": {"run": 10, "sleeep": 5}}}}})";
    auto r = run_cli("run --platform zen3-5950x --out /tmp/rtapp-cli-none -- rt-app " + p.string());
    CHECK(r.status != 0);
    // warmsched's own words about the file: after "error: ", as every other error
    CHECK_THAT(r.err, Catch::StartsWith("error: rt-app: " + p.string() + ": tasks.t.phases.p.sleeep: unknown key"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    r = run_cli("run --platform zen3-5950x --out /tmp/rtapp-cli-none -- rt-app");
    CHECK(r.status != 0);
    CHECK_THAT(r.err, Catch::StartsWith("rt-app: no taskset file given"));
    fs::remove(p);
}

TEST_CASE("rt-app: a key given twice in an object is numbered as workgen numbers it, and runs as its event") {
    CHECK(rtapp::number_duplicate_keys(
              R"({"run": 1, "sleep": 2, "run": 3, "run": 4, "x": {"run": 5, "run": 6}})") ==
          R"({"run": 1, "sleep": 2, "run1": 3, "run2": 4, "x": {"run": 5, "run1": 6}})");
    // workgen's counter moves on past a name in use and never goes back; values and comments stay.
    CHECK(rtapp::number_duplicate_keys(R"({"a": "a", "a1": 0, "a": "a" /* "a": */, "a": 1})") ==
          R"({"a": "a", "a1": 0, "a2": "a" /* "a": */, "a3": 1})");
    const auto c = parse(R"({"tasks": {"t": {"loop": 1, "run": 1000, "sleep": 2000, "run": 3000}}})");
    REQUIRE(c.tasks.size() == 1);
    const auto& ev = c.tasks[0].phases.at(0).events;
    REQUIRE(ev.size() == 3);
    CHECK(ev[0].duration_us == 1000);
    CHECK(ev[1].duration_us == 2000);
    CHECK(ev[2].duration_us == 3000);
    CHECK(ev[2].kind == ev[0].kind);
}

TEST_CASE("rt-app: dl-runtime on a SCHED_OTHER thread is v6.12's custom slice, as current rt-app sets it") {
    const auto c = parse(R"({"tasks": {"t": {"run": 1, "priority": -19, "dl-runtime": 5000}}})");
    CHECK(c.tasks[0].custom_slice_ns == 5'000'000);
    CHECK(parse(R"({"tasks": {"t": {"run": 1}}})").tasks[0].custom_slice_ns == 0);
    // The thread's task carries it (sched_setattr's sched_runtime): its EEVDF slice is 5 ms, not the 3 ms
    // base slice; the clamp to 0.1-100 ms is the kernel's.
    rig_run run(R"({"tasks": {"t": {"loop": 3, "run": 100, "sleep": 100, "dl-runtime": 5000}},
                    "global": {"duration": 1, "calibration": 14, "log_size": "disable"}})",
                10'000'000);
    bool found = false;
    for (const auto& t : run.r.k.tasks())
        if (t->t.comm == "t-0") { // rt-app names instance 0 of task t so
            found = true;
            CHECK(t->t.se.custom_slice == 5'000'000);
        }
    CHECK(found);
}

TEST_CASE("rt-app: a file whose threads loop forever with no duration needs the run's end, as rt-app runs "
          "until Ctrl+C") {
    namespace fs = std::filesystem;
    const fs::path f = fs::temp_directory_path() / "warmsched-rtapp-endless.json";
    std::ofstream(f) << R"({"tasks": {"t": {"loop": -1, "run": 1000, "sleep": 1000}}})";
    fs::remove_all("/tmp/warmsched-rtapp-endless");
    const auto r = test::run_cli("run --out /tmp/warmsched-rtapp-endless -- rt-app " + f.string());
    CHECK(r.status == 2);
    CHECK(r.err ==
          "error: <command line>: duration: rt-app " + f.string() +
              ": tasks.t loops forever and global.duration is not set (rt-app runs until Ctrl+C): give "
              "the run an end (-p duration=2s, or duration: in the experiment)\n");
    CHECK_FALSE(fs::exists("/tmp/warmsched-rtapp-endless/report.txt"));
    const auto bounded =
        test::run_cli("run -p duration=5ms --out /tmp/warmsched-rtapp-endless -- rt-app " + f.string());
    CHECK(bounded.status == 0);
    CHECK(bounded.out.find("# rt-app: 1 threads of 1 tasks, ran 0.005000 s (the run's duration ended it)") !=
          std::string::npos);
    fs::remove(f);
}

TEST_CASE("rt-app's summary says how long it ran: its duration, or less when the run's duration ends it") {
    const std::string periodic = std::string(WARMSCHED_SOURCE_DIR) + "/configs/workloads/periodic.json";
    const auto cut = test::run_cli("run -p duration=0.3s --out /tmp/warmsched-rtapp-span -- rt-app " + periodic);
    CHECK(cut.status == 0);
    CHECK(cut.out.find("# rt-app: 1 threads of 1 tasks, ran 0.300000 s of its 1 s duration (the run's duration "
                       "ended it); logs: rt-app-<thread>.log") != std::string::npos);
    const auto whole = test::run_cli("run --out /tmp/warmsched-rtapp-span -- rt-app " + periodic);
    CHECK(whole.status == 0);
    CHECK(whole.out.find("# rt-app: 1 threads of 1 tasks, ran 1.0") != std::string::npos);
    CHECK(whole.out.find(" s (duration 1 s); logs:") != std::string::npos);
    std::filesystem::remove_all("/tmp/warmsched-rtapp-span");
}

TEST_CASE("rt-app's own examples (Debian's rt-app, /usr/share/doc/rt-app): each runs, or is refused in one "
          "line where rt-app itself fails or the model lacks the mechanism") {
    namespace fs = std::filesystem;
    const fs::path dir = "/usr/share/doc/rt-app";
    if (!fs::exists(dir / "examples")) {
        WARN("rt-app's examples are not installed (make deps installs rt-app)");
        return;
    }
    // What each file does here; rt-app's own behaviour on it in the comment.
    const std::map<std::string, std::string> expected = {
        {"browser-long.json", "runs"},
        {"browser-short.json", "runs"}, // duplicate keys: workgen's numbering
        {"mp3-long.json", "runs"},
        {"mp3-short.json", "runs"},
        {"spreading-tasks.json", "runs"},
        {"template.json", "runs"},
        {"calibration.json", "runs"},
        {"dvfs.json", "runs"},
        {"example1.json", "runs"},
        {"example2.json", "runs"},
        {"example3.json", "runs"},
        {"example4.json", "runs"},
        {"example5.json", "runs"},
        {"example7.json", "runs"},
        {"example6.json", "iorun"},             // the model has no I/O device behind iorun
        {"example8.json", "sched_setaffinity"}, // a phase changes the affinity: not modelled
        {"video-long.json", "malformed JSON"},  // rt-app: "Error while parsing input JSON"
        {"video-short.json", "malformed JSON"},
        {"global.json", "missing \"tasks\""}, // merge/: fragments for merge.py; rt-app fails on them
        {"resources.json", "\"signal\""},
        {"thread0.json", "legacy grammar"},
        {"thread1.json", "legacy grammar"},
        {"thread2.json", "legacy grammar"},
        {"thread3.json", "legacy grammar"},
        {"taskset.json", "\"signal\""}, // the legacy grammar too, refused at its resources first
    };
    unsigned seen = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (e.path().extension() != ".json") continue;
        const std::string name = e.path().filename().string();
        INFO(e.path().string());
        const auto want = expected.find(name);
        REQUIRE(want != expected.end()); // a file this test does not know: look at it
        ++seen;
        // Bounded runs (example4 loops forever without a duration, as rt-app does until Ctrl+C).
        const auto r = test::run_cli(
            "run --seed 1 -p duration=50ms --out /tmp/warmsched-rtapp-corpus -- rt-app " + e.path().string());
        if (want->second == "runs") {
            CHECK(r.status == 0);
            CHECK(r.out.find("--- warmsched:") != std::string::npos);
        } else {
            CHECK(r.status == 2);
            CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
            CHECK(r.err.rfind("error: rt-app: " + e.path().string(), 0) == 0);
            CHECK(r.err.find(want->second) != std::string::npos);
        }
    }
    CHECK(seen == expected.size());
}
