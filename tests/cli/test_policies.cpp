// Policies of one's own as users build and run them (docs/writing-a-policy.md): compiled out of tree with
// the documented one-line command, loaded with --policy, the in-tree examples by name, the watchdog and
// the invalid-CPU check ending a bad policy with a one-line error and status 2, and the cost-of-migration
// report telling the three examples apart on zen3-5950x hackbench.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using warmsched::test::run_cli;

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

TEST_CASE("watchdog: a policy that never dispatches is stopped with one line naming it, status 2, and no "
          "results") {
    const fs::path so = build_policy(fs::path(WARMSCHED_SOURCE_DIR) / "tests/data/policies/never_dispatch.cpp");
    fs::remove_all("/tmp/warmsched-policy-stall");
    const auto r = run_cli("run --policy " + so.string() +
                           " --policy-all -p kernel.policy_timeout=50ms --out /tmp/warmsched-policy-stall -- "
                           "hackbench -p -g 1 -l 10");
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.rfind("error: policy never_dispatch: runnable task stall (hackbench[", 0) == 0);
    CHECK(r.out.empty()); // nothing passed off as a result
    CHECK(r.err.find("failed to run for 0.05") != std::string::npos);
    CHECK(r.err.find("no results written") != std::string::npos);
    CHECK_FALSE(fs::exists("/tmp/warmsched-policy-stall"));
}

TEST_CASE("a policy whose select_cpu answers a CPU the machine lacks is stopped, status 2") {
    const fs::path so = build_policy(fs::path(WARMSCHED_SOURCE_DIR) / "tests/data/policies/bad_cpu.cpp");
    const auto r = run_cli("run --policy " + so.string() +
                           " --policy-all --out /tmp/warmsched-policy-badcpu -- hackbench -p -g 1 -l 10");
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.rfind("error: policy bad_cpu: ops.select_cpu returned invalid CPU 39 for hackbench[", 0) == 0);
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
