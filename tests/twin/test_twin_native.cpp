// `warmsched twin --native` on this machine's own kernel (tracefs; root): every row of the table is there,
// the native counters agree with the tool's own output and with getrusage, the refusals are one line and
// exit 2, and tracefs is left as it was found. Runs alone (RUN_SERIAL): a neighbour on the second CPU
// distorts a native run. It asserts the relations that hold on a loaded host too, not the accuracy bar
// (docs/validation.md section 12 has the figures).
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <sys/mount.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

using namespace warmsched;
namespace fs = std::filesystem;

namespace {

const std::string tracing = "/sys/kernel/tracing";

// What a native run must leave as it found: whether tracefs is mounted, and if so its switches.
std::string tracefs_state() {
    if (!fs::exists(tracing + "/tracing_on")) return "not mounted";
    return "mounted, tracing_on " + test::file_text(tracing + "/tracing_on") + "buffer_size_kb " +
           test::file_text(tracing + "/buffer_size_kb") + "set_event [" + test::file_text(tracing + "/set_event") +
           "]";
}

// The model of this machine without the calibration (fast): `warmsched import`.
std::string host_platform() {
    const fs::path p = test::temp_path("native", "host.yaml");
    const auto r = test::run_cli("import -o " + p.string());
    REQUIRE(r.status == 0);
    return p.string();
}

struct native_result {
    test::cli_result cli;
    std::map<std::string, nlohmann::json> rows;
    std::vector<std::string> notes;
};

native_result native(const std::string& name, const std::string& command, unsigned repeat = 2) {
    const fs::path dir = test::temp_path("native", name);
    fs::remove_all(dir);
    native_result n;
    n.cli = test::run_cli("twin --native --platform " + host_platform() + " --repeat " + std::to_string(repeat) +
                          " --out " + dir.string() + " -- " + command);
    INFO(n.cli.out << n.cli.err);
    REQUIRE(n.cli.status == 0);
    const auto j = nlohmann::json::parse(test::file_text(dir / "comparison.json"));
    for (const auto& r : j["rows"]) n.rows[r["name"].get<std::string>()] = r;
    for (const auto& x : j["notes"]) n.notes.push_back(x.get<std::string>());
    for (unsigned k = 1; k <= repeat; ++k) {
        CHECK(fs::file_size(dir / "native" / ("r" + std::to_string(k)) / "trace.txt") > 0);
        CHECK(fs::exists(dir / "native" / ("r" + std::to_string(k)) / "rusage"));
    }
    CHECK(fs::exists(dir / "model" / "trace.txt"));
    CHECK(fs::exists(dir / "manifest.txt"));
    fs::remove_all(dir);
    return n;
}

// "native run K: T tasks, N switches in the trace, getrusage of the command M; ..." -> (N, M) per run.
std::vector<std::pair<double, double>> switch_notes(const std::vector<std::string>& notes) {
    std::vector<std::pair<double, double>> v;
    const std::regex re(R"(native run \d+: \d+ tasks, (\d+) switches in the trace, getrusage of the command (\d+))");
    for (const auto& n : notes) {
        std::smatch m;
        if (std::regex_search(n, m, re)) v.emplace_back(std::stod(m[1]), std::stod(m[2]));
    }
    return v;
}

const std::vector<std::string> every_run_has = {
    "workload tasks", "context switches", "  voluntary", "  involuntary", "  involuntary share %",
    "    on wakeup (by a task woken there)", "migrations", "wakeups", "  onto another CPU than the waker's",
    "  preempting the task running there", "user CPU time s", "system CPU time s", "workload CPU time s"};

} // namespace

TEST_CASE("twin --native: perf bench sched pipe pinned to one CPU, every row, counters that agree") {
    const std::string before = tracefs_state();
    const auto n = native("pipe", "taskset -c 1 perf bench sched pipe -l 2000");
    CHECK(tracefs_state() == before);
    for (const auto& name : every_run_has) {
        INFO(name);
        REQUIRE(n.rows.count(name));
        CHECK(n.rows.at(name)["repeats"].get<unsigned>() == 2);
        CHECK(n.rows.at(name)["real_min"].get<double>() <= n.rows.at(name)["real"].get<double>());
        CHECK(n.rows.at(name)["real"].get<double>() <= n.rows.at(name)["real_max"].get<double>());
    }
    REQUIRE(n.rows.count("perf bench sched pipe usecs/op"));
    CHECK(n.rows.at("perf bench sched pipe usecs/op")["real"].get<double>() > 0);
    CHECK(n.rows.at("perf bench sched pipe usecs/op")["model"].get<double>() > 0);
    // Two processes handing a byte back and forth 2000 times on one CPU: each hand-off is a wakeup and
    // a switch (a loaded host adds preemptions by others, never fewer switches).
    CHECK(n.rows.at("workload tasks")["real"].get<double>() == 2);
    CHECK(n.rows.at("wakeups")["real_min"].get<double>() >= 2000 * 0.95);
    CHECK(n.rows.at("context switches")["real_min"].get<double>() >= 2 * 2000 * 0.95);
    CHECK(n.rows.at("migrations")["real_max"].get<double>() <= 2); // pinned: at most the first placement
    // The trace's switches are the kernel's own count of them (getrusage of the command and its reaped child).
    const auto sw = switch_notes(n.notes);
    REQUIRE(sw.size() == 2);
    for (const auto& [trace, rusage] : sw) CHECK(trace == Approx(rusage).epsilon(0.02).margin(10));
}

TEST_CASE("twin --native: hackbench -p -g 1 -l 50, the tool's Time and the model's") {
    const auto n = native("hackbench", "hackbench -p -g 1 -l 50");
    for (const auto& name : every_run_has) {
        INFO(name);
        CHECK(n.rows.count(name));
    }
    REQUIRE(n.rows.count("hackbench Time s"));
    CHECK(n.rows.at("hackbench Time s")["real"].get<double>() > 0);
    // 20 senders and 20 receivers (and hackbench itself) on both sides.
    CHECK(n.rows.at("workload tasks")["real"].get<double>() >= 40);
    CHECK(n.rows.at("workload tasks")["model"].get<double>() >= 40);
    for (const auto& [trace, rusage] : switch_notes(n.notes)) CHECK(trace == Approx(rusage).epsilon(0.02).margin(10));
}

TEST_CASE("twin --native runs a command in its run's directory: rt-app's logs never land in the user's") {
    // The user's directory holds the taskset (named relative to it) and an rt-app log of their own.
    const fs::path cwd = test::temp_path("native", "user-dir");
    fs::remove_all(cwd);
    fs::create_directories(cwd);
    fs::copy_file(std::string(WARMSCHED_SOURCE_DIR) + "/configs/workloads/periodic.json", cwd / "periodic.json");
    test::run_command("echo mine > " + (cwd / "rt-app-periodic-0.log").string());
    const auto r = test::run_command("cd " + cwd.string() + " && " + WARMSCHED_BINARY + " twin --native --platform " +
                                     host_platform() + " --repeat 1 --out out -- rt-app periodic.json 2>&1");
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(test::file_text(cwd / "rt-app-periodic-0.log") == "mine\n");
    std::set<std::string> left;
    for (const auto& f : fs::directory_iterator(cwd)) left.insert(f.path().filename().string());
    CHECK(left == std::set<std::string>{"out", "periodic.json", "rt-app-periodic-0.log"});
    // Each native run's log is with its run (traced and untraced), the model's with the model's.
    CHECK(fs::file_size(cwd / "out" / "native" / "r1" / "rt-app-periodic-0.log") > 0);
    CHECK(fs::file_size(cwd / "out" / "native" / "r1" / "untraced" / "rt-app-periodic-0.log") > 0);
    CHECK(fs::exists(cwd / "out" / "model" / "rt-app-periodic-0.log"));
    fs::remove_all(cwd);
}

TEST_CASE("twin --native refusals: one line and exit 2, nothing run") {
    const std::string before = tracefs_state();
    auto refused = [](const std::string& args, const std::string& says) {
        const auto r = test::run_cli("twin --native " + args);
        INFO(r.out << r.err);
        CHECK(r.status == 2);
        CHECK(r.err.find(says) != std::string::npos);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    };
    refused("--platform " + host_platform() + " -- schbench -m 1 -t 1 -r 1", "schbench is not installed on this machine");
    refused(std::string(WARMSCHED_SOURCE_DIR) + "/configs/experiments/twin-make.yaml",
            "make builds a generated tree in the model and the QEMU twin; a native twin does not build on the host");
    refused(std::string(WARMSCHED_SOURCE_DIR) + "/configs/experiments/probes.yaml",
            "the experiment has no workloads: a native twin runs commands, not the probes");
    refused("--kernel cfs -- hackbench", "--kernel: is the QEMU twin's");
    refused("--platform " + host_platform() + " -- no-such-tool 1", "no-such-tool");
    CHECK(tracefs_state() == before);
    // Not root: refused before anything runs (a calibration would take a minute first).
    const std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    if (test::run_command(nobody + "test -x " + WARMSCHED_BINARY).status != 0) {
        WARN("not checked: twin --native as a user (the binary is not one nobody may run)");
        return;
    }
    const auto r = test::run_command(nobody + WARMSCHED_BINARY + " twin --native -- hackbench -l 10 2>&1");
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(r.out == "error: <command line>: --native: a native run traces the host's scheduler with tracefs, which "
                   "needs root (run warmsched as root)\n");
}

TEST_CASE("twin --native refuses a tracefs another trace is using, and leaves that trace alone") {
    const bool mounted = fs::exists(tracing + "/tracing_on");
    if (!mounted) REQUIRE(::mount("nodev", tracing.c_str(), "tracefs", 0, nullptr) == 0);
    const std::string enable = tracing + "/events/sched/sched_process_exec/enable";
    const std::string was = test::file_text(enable);
    test::run_command("echo 1 > " + enable);
    const auto r = test::run_cli("twin --native --platform " + host_platform() + " -- hackbench -l 10");
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("tracefs is in use: events are enabled (sched:sched_process_exec") != std::string::npos);
    CHECK(test::file_text(enable) == "1\n"); // the other trace's setting stays
    test::run_command("echo " + was.substr(0, 1) + " > " + enable);
    // The events this test's own trace recorded (tracing_on is 1 on a fresh mount): cleared, so the
    // buffer is as the test found it.
    test::run_command("echo > " + tracing + "/trace");
    if (!mounted) ::umount(tracing.c_str());
}
