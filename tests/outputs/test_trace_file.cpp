// trace.txt read the way Perfetto's systrace importer and trappy read ftrace text: every event line
// matches the line layout of formats.md (and Perfetto's own tokenizer pattern), sched_switch and
// sched_waking carry their integer fields, each CPU's switches chain (next of one is prev of the
// following), the switch count equals the run's context-switch counter, and the same seed gives the
// same bytes.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/file_text.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

using warmsched::test::file_text;

namespace {
double stat_value(const fs::path& stats, const std::string& name) {
    std::istringstream in(file_text(stats));
    for (std::string l; std::getline(in, l);) {
        std::istringstream ls(l);
        std::string n;
        double v;
        if (ls >> n >> v && n == name) return v;
    }
    FAIL("no " << name << " in stats.txt");
    return 0;
}

// One event line, split as formats.md describes it:
// <comm right-aligned in 16>-<pid> (<tgid>) [<cpu 3 digits>] <flags> <secs>.<frac>: <event>: <payload>
struct event_line {
    std::string comm, event, payload;
    int pid = 0;
    unsigned cpu = 0;
    long long ts_ns = 0;
};

const std::regex line_re(
    R"(^ *(.{1,16})-(\d+) +\( *(\d+|-+)\) \[(\d{3})\] ([a-zA-Z.]{3}[0-9a-f.]{1,2}) +(\d+)\.(\d{6}|\d{9}): ([a-z_]+): (.*)$)");
// Perfetto's SystraceLineTokenizer pattern (src/trace_processor/importers/systrace), searched in the line.
const std::regex perfetto_re(
    R"(-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):\s+(\S+):)");
const std::regex switch_re(R"(^prev_comm=(\S+) prev_pid=(\d+) prev_prio=(-?\d+) prev_state=(R\+?|S|D|X) ==> )"
                           R"(next_comm=(\S+) next_pid=(\d+) next_prio=(-?\d+)$)");
const std::regex wake_re(R"(^comm=(\S+) pid=(\d+) prio=(-?\d+) target_cpu=(\d{3})$)");
const std::regex migrate_re(R"(^comm=\S+ pid=(\d+) prio=-?\d+ orig_cpu=\d+ dest_cpu=\d+$)");
const std::regex fork_re(R"(^comm=\S+ pid=\d+ child_comm=\S+ child_pid=\d+$)");
const std::regex exit_re(R"(^comm=\S+ pid=\d+ prio=-?\d+$)");
const std::regex counter_re(R"(^C\|\d+\|[^|]+\|\d+$)");

std::vector<event_line> parse_trace(const std::string& text, unsigned ncpus) {
    std::istringstream in(text);
    std::string l;
    REQUIRE(std::getline(in, l));
    CHECK(l == "# tracer: nop");
    std::vector<event_line> v;
    while (std::getline(in, l)) {
        if (l.empty() || l[0] == '#') continue;
        INFO(l);
        std::smatch m;
        REQUIRE(std::regex_match(l, m, line_re));
        REQUIRE(std::regex_search(l, perfetto_re));
        event_line e;
        e.comm = m[1];
        e.pid = std::stoi(m[2]);
        e.cpu = static_cast<unsigned>(std::stoul(m[4]));
        const std::string frac = m[7];
        e.ts_ns = std::stoll(m[6]) * 1000000000ll + std::stoll(frac) * (frac.size() == 6 ? 1000 : 1);
        e.event = m[8];
        e.payload = m[9];
        CHECK(e.cpu < ncpus);
        CHECK(e.comm.find_first_of(" =") == std::string::npos);
        if (e.pid == 0) CHECK(e.comm == "<idle>");
        if (!v.empty()) CHECK(e.ts_ns >= v.back().ts_ns); // global timestamp order
        v.push_back(e);
    }
    return v;
}
} // namespace

TEST_CASE("trace.txt of a hackbench run parses as ftrace text and matches the run's counters") {
    const fs::path a = fs::temp_directory_path() / "warmsched-trace-a";
    const fs::path b = fs::temp_directory_path() / "warmsched-trace-b";
    fs::remove_all(a);
    fs::remove_all(b);
    const std::string cmd = " --platform zen3-5950x --trace -- hackbench -p -g 2 -l 20";
    REQUIRE(warmsched::test::run_cli("run --out " + a.string() + cmd).status == 0);
    const std::string text = file_text(a / "trace.txt");
    const auto events = parse_trace(text, 32);

    std::map<std::string, unsigned> count;
    std::map<unsigned, int> running; // per CPU: next_pid of its last switch
    // A wakeup that lands on another CPU than the task's previous one shows its sched_migrate_task at
    // the wakeup's time, between sched_waking and sched_wakeup.
    std::map<int, std::pair<long long, unsigned>> waking; // pid -> (time, previous CPU)
    std::set<std::pair<int, long long>> migrated;         // (pid, time)
    unsigned placed_elsewhere = 0;
    for (const auto& e : events) {
        INFO(e.event << ": " << e.payload);
        ++count[e.event];
        std::smatch m;
        if (e.event == "sched_switch") {
            REQUIRE(std::regex_match(e.payload, m, switch_re));
            CHECK(std::stoi(m[2]) == e.pid); // the line's task is prev
            const auto it = running.find(e.cpu);
            if (it != running.end()) CHECK(it->second == std::stoi(m[2]));
            running[e.cpu] = std::stoi(m[6]);
            if (std::stoi(m[6]) == 0) CHECK(m[5].str().rfind("swapper/", 0) == 0);
        } else if (e.event == "sched_waking" || e.event == "sched_wakeup" || e.event == "sched_wakeup_new") {
            REQUIRE(std::regex_match(e.payload, m, wake_re));
            CHECK(std::stoul(m[4]) < 32);
            const int pid = std::stoi(m[2]);
            const auto cpu = static_cast<unsigned>(std::stoul(m[4]));
            if (e.event == "sched_waking") waking[pid] = {e.ts_ns, cpu};
            if (e.event == "sched_wakeup" && waking.count(pid) && waking[pid].second != cpu) {
                ++placed_elsewhere;
                CHECK(migrated.count({pid, waking[pid].first}) == 1);
            }
        } else if (e.event == "sched_migrate_task") {
            REQUIRE(std::regex_match(e.payload, m, migrate_re));
            migrated.insert({std::stoi(m[1]), e.ts_ns});
        } else if (e.event == "sched_process_fork") {
            CHECK(std::regex_match(e.payload, fork_re));
        } else if (e.event == "sched_process_exit") {
            CHECK(std::regex_match(e.payload, exit_re));
        } else if (e.event == "tracing_mark_write") {
            CHECK(std::regex_match(e.payload, counter_re));
        } else {
            FAIL("unexpected event " << e.event);
        }
    }
    CHECK(count["sched_switch"] == stat_value(a / "stats.txt", "kernel.contextSwitches"));
    CHECK(count["sched_waking"] == stat_value(a / "stats.txt", "kernel.wakeups"));
    CHECK(count["sched_waking"] == count["sched_wakeup"]);
    CHECK(count["sched_process_fork"] == 80); // hackbench's 2 x 40 children
    CHECK(count["sched_wakeup_new"] == 80);
    CHECK(count["sched_process_exit"] == 81);
    CHECK(count["tracing_mark_write"] > 0);
    CHECK(placed_elsewhere > 0);

    // Determinism: the same seed gives the same bytes.
    REQUIRE(warmsched::test::run_cli("run --out " + b.string() + cmd).status == 0);
    CHECK(file_text(b / "trace.txt") == text);
}

TEST_CASE("trace window keeps only the events inside it and bad windows are one-line errors") {
    const fs::path d = fs::temp_directory_path() / "warmsched-trace-window";
    fs::remove_all(d);
    const auto r = warmsched::test::run_cli("run --out " + d.string() +
                                            " --platform zen3-5950x --trace-window 0.0005:0.001 -- hackbench "
                                            "-p -g 1 -l 20");
    REQUIRE(r.status == 0);
    const auto events = parse_trace(file_text(d / "trace.txt"), 32);
    REQUIRE(!events.empty());
    for (const auto& e : events) {
        CHECK(e.ts_ns >= 500000);
        CHECK(e.ts_ns < 1000000);
    }
    for (const char* bad : {"1", "x:2", "0.002:0.001", "-1:2"}) {
        const auto e =
            warmsched::test::run_cli("run --trace-window " + std::string(bad) + " -- hackbench -g 1");
        CHECK(e.status == 2);
        CHECK(e.err.find("--trace-window") != std::string::npos);
    }
}
