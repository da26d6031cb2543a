// Policies of one's own as users build and run them (docs/writing-a-policy.md): compiled out of tree with
// the documented one-line command, loaded with --policy, the in-tree examples by name, and the
// cost-of-migration report telling the three examples apart on zen3-5950x hackbench. And the broken
// policies of tests/data/policies, one per cause, each run with and without a duration: a policy error at
// run time ejects the policy (its tasks finish under the fair class, the results are written and say so,
// exit status 1); a callback that never returns nor calls a kfunc ends the process with one line (status
// 1, no results); a policy whose loading exits, aborts or gives a bad name is refused with one line
// (status 2, nothing written).
#include <catch2/catch.hpp>

#include "support/cli_runner.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using warmsched::test::run_cli;
using warmsched::test::temp_path;

namespace {

// The command of docs/writing-a-policy.md, with the source tree's include directory.
fs::path build_policy(const fs::path& source) {
    const fs::path dir = fs::temp_directory_path() / "warmsched-policies";
    fs::create_directories(dir);
    const fs::path so = dir / (source.stem().string() + ".so");
    const std::string cmd = "g++ -std=c++17 -O2 -shared -fPIC -I " + std::string(WARMSCHED_SOURCE_DIR) +
                            "/include " + source.string() + " -o " + so.string();
    REQUIRE(std::system(cmd.c_str()) == 0);
    return so;
}

// A broken policy of tests/data/policies, built by the tests' CMake.
std::string test_policy(const std::string& name) {
    return std::string(WARMSCHED_TEST_POLICIES) + "/" + name + ".so";
}

unsigned lines(const std::string& s) {
    return static_cast<unsigned>(std::count(s.begin(), s.end(), '\n'));
}

// The count of the report's "policy dispatch  other LLC" row (0 if the row is absent).
unsigned long other_llc_dispatches(const std::string& report) {
    std::smatch m;
    if (!std::regex_search(report, m, std::regex("policy dispatch +other LLC +([0-9,]+)"))) return 0;
    std::string n = m[1];
    n.erase(std::remove(n.begin(), n.end(), ','), n.end());
    return std::stoul(n);
}

} // namespace

TEST_CASE("a policy built out of tree with the documented command loads with --policy and runs") {
    const fs::path so = build_policy(fs::path(WARMSCHED_SOURCE_DIR) / "scheduler/ext/examples/simple_fifo.cpp");
    const auto r = run_cli("run --policy " + so.string() +
                           " --policy-all --seed 1 --out /tmp/warmsched-policy-oot -- hackbench -p -g 2 -l 20");
    CHECK(r.status == 0);
    CHECK(r.out.find("Time: ") != std::string::npos);
    CHECK(r.out.find("policy dispatch") != std::string::npos); // its moves are in the migration report
    std::ifstream cfg("/tmp/warmsched-policy-oot/config.yaml");
    std::stringstream ss;
    ss << cfg.rdbuf();
    CHECK(ss.str().find("policy: " + so.string()) != std::string::npos);
    CHECK(ss.str().find("policy_all: true") != std::string::npos);
}

namespace {

using json = nlohmann::json;

json read_json(const fs::path& file) {
    std::ifstream in(file);
    REQUIRE(in);
    return json::parse(in);
}

// The runs of a broken policy: without a duration, and with one (which, before ejection existed, made
// every policy error SystemC's E546 on stdout).
const char* const durations[] = {"", " -p duration=200ms"};

// `warmsched run` of a hackbench under `policy` (of tests/data/policies), bounded by timeout(1) so that a
// hang fails the test instead of stalling the suite.
warmsched::test::cli_result run_policy(const std::string& policy, const std::string& options,
                                       const fs::path& out) {
    std::error_code ec;
    fs::remove_all(out, ec);
    const fs::path err = temp_path("policy-err", policy);
    const std::string cmd = "timeout 60 " + std::string(WARMSCHED_BINARY) + " run --policy " + test_policy(policy) +
                            " --policy-all" + options + " --out " + out.string() +
                            " -- hackbench -p -g 1 -l 10 2>" + err.string();
    auto r = warmsched::test::run_command(cmd);
    std::ifstream e(err);
    std::stringstream ss;
    ss << e.rdbuf();
    r.err = ss.str();
    fs::remove(err, ec);
    CHECK(r.status != 124); // not a hang
    return r;
}

// A policy error at run time: the policy is ejected, hackbench finishes under the fair class, the summary,
// report.json and the stats say why, the results are written, exit status 1 with one line on stderr.
void check_ejected(const std::string& policy, const std::string& options, const std::string& reason,
                   unsigned kind, const std::string& message) {
    for (const char* duration : durations) {
        INFO("policy " << policy << ", options '" << options << duration << "'");
        const fs::path out = temp_path("policy", policy + (*duration ? "-duration" : ""));
        const auto r = run_policy(policy, options + duration, out);
        CHECK(r.status == 1);
        // stderr: the ejection line (after the wall-clock speed line every run prints), nothing else.
        const std::string line = "warmsched: policy " + policy + " ejected (" + reason + ") at ";
        CHECK(lines(r.err) == 2);
        CHECK(r.err.find("warmsched: ") == 0);
        const std::size_t at = r.err.find(line);
        REQUIRE(at != std::string::npos);
        const std::string ejection = r.err.substr(at, r.err.find('\n', at) - at);
        CHECK(ejection.find(message) != std::string::npos);
        CHECK(ejection.find("its tasks ran on under the fair class to the end of the run (exit status 1)") !=
              std::string::npos);
        CHECK(r.out.find("E546") == std::string::npos);
        CHECK(r.out.find("Error: (E") == std::string::npos);
        CHECK(r.err.find("Error: (E") == std::string::npos);
        // stdout: hackbench finished, the summary says the policy was ejected, and where the results are.
        CHECK(r.out.find("Time: ") != std::string::npos);
        CHECK(r.out.find("policy             " + policy + " ejected (" + reason + ", ") != std::string::npos);
        CHECK(r.out.find(message) != std::string::npos);
        CHECK(r.out.find("results: " + out.string()) != std::string::npos);
        // The results: complete, and they say it.
        REQUIRE(fs::exists(out / "report.json"));
        const json rj = read_json(out / "report.json");
        CHECK(rj["policy"]["name"] == policy);
        CHECK(rj["policy"]["ejected"] == true);
        CHECK(rj["policy"]["exit"]["kind"] == kind);
        CHECK(rj["policy"]["exit"]["reason"] == reason);
        CHECK(rj["policy"]["exit"]["msg"].get<std::string>().find(message) != std::string::npos);
        CHECK(rj["policy"]["exit"]["tasksMoved"].get<unsigned>() >= 1);
        const json stats = read_json(out / "stats.json")["simulation"][0];
        CHECK(stats["kernel.ext.ejected"]["value"] == 1);
        CHECK(stats["kernel.ext.exitKind"]["value"] == kind);
        CHECK(fs::exists(out / "stats.txt"));
        CHECK(fs::exists(out / "config.yaml"));
        std::error_code ec;
        fs::remove_all(out, ec);
    }
}

// A policy refused at load: one line naming the .so, status 2, nothing written.
void check_refused(const std::string& policy, const std::string& message) {
    for (const char* duration : durations) {
        INFO("policy " << policy << ", options '" << duration << "'");
        const fs::path out = temp_path("policy", policy + (*duration ? "-duration" : ""));
        const auto r = run_policy(policy, duration, out);
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.rfind("error: ", 0) == 0);
        CHECK(r.err.find("kernel.policy") != std::string::npos);
        CHECK(r.err.find(test_policy(policy) + ": ") != std::string::npos);
        CHECK(r.err.find(message) != std::string::npos);
        CHECK(r.out.empty());
        CHECK_FALSE(fs::exists(out));
    }
}

} // namespace

TEST_CASE("watchdog: a policy that never dispatches is ejected after policy_timeout (runnable task stall), "
          "hackbench finishes under the fair class, status 1, results written") {
    check_ejected("never_dispatch", " -p kernel.policy_timeout=50ms", "runnable task stall", 1026,
                  "failed to run for 0.05");
}

TEST_CASE("a policy whose select_cpu answers a CPU the machine lacks is ejected (runtime error), status 1") {
    check_ejected("bad_cpu", "", "runtime error", 1024, "ops.select_cpu returned invalid CPU 39 for hackbench[");
}

TEST_CASE("a policy that dispatches to a DSQ it never created is ejected, status 1") {
    check_ejected("no_dsq", "", "runtime error", 1024, "to DSQ 42, which does not exist");
}

TEST_CASE("a policy that dispatches a task twice is ejected, status 1") {
    check_ejected("double_dispatch", "", "runtime error", 1024,
                  "which is on a DSQ already (a task is dispatched once per enqueue)");
}

TEST_CASE("a policy whose callback throws is ejected, status 1") {
    check_ejected("throws", "", "runtime error", 1024, "ops.enqueue threw: no room in the run list");
}

TEST_CASE("a policy that calls scx_bpf_error (k().error) is ejected, status 1") {
    check_ejected("calls_error", "", "scx_bpf_error", 1025, "out of per-task slots for hackbench");
}

TEST_CASE("pick_idle_cpu with a CPU outside the machine is the policy's error: ejected, status 1") {
    check_ejected("bad_idle_cpu", "", "runtime error", 1024,
                  "pick_idle_cpu: invalid CPU 40 (the machine has CPUs 0-31) in the list of CPUs");
}

TEST_CASE("a dispatch() that loops calling a kfunc is stopped after its budget (soft lockup) and ejected: no "
          "hang, status 1, results written") {
    check_ejected("dispatch_loop", "", "runnable task stall", 1026,
                  "soft lockup: ops.dispatch ran for more than 1 s of CPU time without returning");
}

TEST_CASE("a dispatch() that spins without calling the kernel ends the process after twice its budget: one "
          "line, status 1, no results") {
    for (const char* duration : durations) {
        INFO("options '" << duration << "'");
        const fs::path out = temp_path("policy", std::string("dispatch_spin") + (*duration ? "-duration" : ""));
        const auto r = run_policy("dispatch_spin", duration, out);
        CHECK(r.status == 1);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.rfind("error: policy dispatch_spin: ops.dispatch on CPU ", 0) == 0);
        CHECK(r.err.find(" ran for 2 s of CPU time without returning or calling a kfunc, so it cannot be ejected: "
                         "warmsched stops here (no results written)") != std::string::npos);
        CHECK(r.out.empty());
        CHECK_FALSE(fs::exists(out));
        // The partial directory of a process that did not finish (results_dir.h), as after a kill.
        for (const auto& e : fs::directory_iterator(out.parent_path()))
            if (e.path().filename().string().rfind(out.filename().string() + ".partial-", 0) == 0)
                fs::remove_all(e.path());
    }
}

TEST_CASE("a policy whose name() returns a null pointer is refused at load (no SIGSEGV), status 2") {
    check_refused("null_name", "name() returned a null pointer: a policy's name is 1 to 127 letters, digits, '_' "
                               "or '.' (sched_ext's ops.name, SCX_OPS_NAME_LEN)");
}

TEST_CASE("a policy whose name has a control character, or is over 127 characters, is refused at load") {
    check_refused("unprintable_name", "name() returned \"fifo\\x1b[2J\": a policy's name is 1 to 127");
    check_refused("long_name", "name() returned a name of more than 127 characters (\"xxxxxxxxxx");
}

TEST_CASE("a policy whose static constructor calls exit(0) is refused with one line, status 2") {
    check_refused("ctor_exit", "loading it ended the process with exit status 0 (its static constructors, "
                               "warmsched_policy_create, name(), its destructor or its static destructors called "
                               "exit) (its last output: \"ctor_exit: no configuration file, bye\")");
}

TEST_CASE("a policy whose static constructor calls abort() is refused with one line (no SIGABRT), status 2") {
    check_refused("ctor_abort", "loading it crashed with signal 6 (SIGABRT) in its static constructors, "
                                "warmsched_policy_create, name(), its destructor or its static destructors (its "
                                "last output: \"ctor_abort: table size is not a power of two\")");
}

TEST_CASE("policy option errors: a missing file, a file that is not a policy, --policy-all alone, the twin") {
    auto r = run_cli("run --policy /nonexistent/p.so -- hackbench -g 1 -l 1");
    CHECK(r.status == 2);
    CHECK(r.err.find("kernel.policy") != std::string::npos);
    CHECK(r.err.find("/nonexistent/p.so: no such file") != std::string::npos);
    r = run_cli("run --policy no_such_example -- hackbench -g 1 -l 1");
    CHECK(r.status == 2);
    CHECK(r.err.find("the in-tree examples are simple_fifo, llc_rr, llc_sticky") != std::string::npos);
    r = run_cli("run --policy /bin/true -- hackbench -g 1 -l 1");
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    r = run_cli("run --policy-all -- hackbench -g 1 -l 1");
    CHECK(r.status == 2);
    CHECK(r.err.find("kernel.policy_all") != std::string::npos);
    // The twin's real kernels cannot load one: refused before anything boots.
    r = run_cli("twin -p kernel.policy=simple_fifo -- hackbench -g 1 -l 1");
    CHECK(r.status == 2);
    CHECK(r.err.find("no sched_ext") != std::string::npos);
}

TEST_CASE("the example policies on zen3-5950x hackbench: the cost-of-migration report tells them apart") {
    // simple_fifo's shared queue hands a task to whichever CPU frees up, in either CCD; llc_rr and
    // llc_sticky keep tasks in an LLC, so their moves stay inside it.
    unsigned long cross[3] = {};
    const char* names[3] = {"simple_fifo", "llc_rr", "llc_sticky"};
    for (int i = 0; i < 3; ++i) {
        const auto r = run_cli(std::string("run --policy ") + names[i] +
                               " --policy-all --seed 1 --out /tmp/warmsched-policy-" + names[i] +
                               " -- hackbench -p -g 4 -l 100");
        REQUIRE(r.status == 0);
        CHECK(r.out.find("policy dispatch   same LLC") != std::string::npos);
        cross[i] = other_llc_dispatches(r.out);
    }
    INFO("other-LLC policy dispatches: simple_fifo " << cross[0] << ", llc_rr " << cross[1] << ", llc_sticky "
                                                     << cross[2]);
    CHECK(cross[0] >= 100);
    CHECK(cross[1] * 10 <= cross[0]);
    CHECK(cross[2] * 10 <= cross[0]);
}
