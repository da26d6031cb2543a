// Results are never lost, never mixed, never partial-but-complete (issue 20): a run checks --out before
// it simulates, writes into DIR.partial-<pid> and renames it when complete, refuses a non-empty DIR
// unless --force; --repeat --resume runs only the missing seeds of the same configuration; compare and
// plot refuse incomplete runs; a stopped --repeat leaves only complete seeds and no child running.
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

namespace fs = std::filesystem;
// Every run here meets its --out as it is: these tests are about what it does with an existing one.
const auto run_cli = warmsched::test::run_cli_as_is;

namespace {
const fs::path scratch = fs::temp_directory_path() / "warmsched-results-safety";

fs::path fresh(const std::string& name) {
    const fs::path p = scratch / name;
    fs::remove_all(p);
    fs::create_directories(scratch);
    return p;
}

std::vector<std::string> entries(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Processes whose command line mentions `text` (the unique results directory of a test).
int processes_mentioning(const std::string& text) {
    int n = 0;
    for (const auto& p : fs::directory_iterator("/proc")) {
        const std::string name = p.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream f(p.path() / "cmdline", std::ios::binary);
        std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        if (cmd.find(text) != std::string::npos && cmd.find("warmsched") != std::string::npos) ++n;
    }
    return n;
}

// Starts `warmsched ARGS` in the background; returns its pid.
pid_t start_background(const std::string& args) {
    const std::string cmd = std::string(WARMSCHED_BINARY) + " " + args + " >/dev/null 2>" +
                            (scratch / "background.err").string() + " & echo $!";
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p);
    long pid = 0;
    REQUIRE(std::fscanf(p, "%ld", &pid) == 1);
    ::pclose(p);
    return static_cast<pid_t>(pid);
}

// Waits (up to a minute, polling) until `ready` holds; false if it never does.
template <class F> bool eventually(F ready) {
    for (int i = 0; i < 600; ++i) {
        if (ready()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

// Running (not gone, not a zombie nobody reaped: the test is not its parent).
bool alive(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, comm, state;
    return f >> pid_field >> comm >> state && state != "Z";
}

// A DIR.partial-<pid> of `dir` beside it.
bool partial_left(const fs::path& dir) {
    const std::string prefix = dir.filename().string() + ".partial-";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir.parent_path(), ec))
        if (e.path().filename().string().rfind(prefix, 0) == 0) return true;
    return false;
}

bool has_partial(const fs::path& dir) {
    if (!fs::is_directory(dir)) return false;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".partial-") != std::string::npos) return true;
    return false;
}
} // namespace

TEST_CASE("an --out that cannot be written is refused before the run, and nothing is left behind") {
    std::ofstream(fresh("a-file")) << "x";
    for (const std::string& out : {std::string("/proc/warmsched-x"), (scratch / "a-file" / "sub").string()}) {
        const auto r = run_cli("run --out " + out + " -- hackbench -g 1 -l 1");
        INFO(r.err);
        CHECK(r.status == 2);
        CHECK(r.err.rfind("error: --out " + out + ": cannot be written", 0) == 0);
        CHECK(r.out.empty()); // refused before the simulation, which would have printed the report
        CHECK(!partial_left(out));
    }
}

TEST_CASE("a non-empty --out is refused, and --force replaces it whole") {
    const fs::path dir = fresh("reuse");
    REQUIRE(run_cli("run --out " + dir.string() + " --trace -- hackbench -g 1 -l 1").status == 0);
    REQUIRE(fs::exists(dir / "trace.txt"));
    const auto again = run_cli("run --out " + dir.string() + " -- hackbench -g 1 -l 2");
    CHECK(again.status == 2);
    CHECK(again.err.find("is not empty") != std::string::npos);
    CHECK(warmsched::test::file_text(dir / "report.txt").find("pass 1 messages") != std::string::npos);
    const auto forced = run_cli("run --force --out " + dir.string() + " -- hackbench -g 1 -l 2");
    CHECK(forced.status == 0);
    CHECK(!fs::exists(dir / "trace.txt")); // the first run's trace does not stay beside the new files
    CHECK(warmsched::test::file_text(dir / "report.txt").find("pass 2 messages") != std::string::npos);
    CHECK(!partial_left(dir));
}

TEST_CASE("compare and plot refuse a run that did not finish writing (DIR.partial-<pid>)") {
    const fs::path done = fresh("complete");
    REQUIRE(run_cli("run --out " + done.string() + " -- hackbench -g 1 -l 1").status == 0);
    const fs::path partial = scratch / "killed.partial-12345";
    fs::remove_all(partial);
    fs::copy(done, partial, fs::copy_options::recursive); // what a SIGKILL during writing leaves
    const auto c = run_cli("compare " + done.string() + " " + partial.string());
    CHECK(c.status == 2);
    CHECK(c.err.find("an incomplete run") != std::string::npos);
    const auto p = run_cli("plot " + partial.string());
    CHECK(p.status == 2);
    CHECK(p.err.find("an incomplete run") != std::string::npos);
}

TEST_CASE("repeat with --resume reruns only the missing seeds of the same configuration, and compare refuses gaps") {
    const fs::path dir = fresh("resume");
    const std::string run = "run --repeat 3 -j 1 --out " + dir.string(), hackbench = " -- hackbench -g 1 -l 20";
    REQUIRE(run_cli(run + hackbench).status == 0);
    CHECK(entries(dir) == std::vector<std::string>{"repeat.yaml", "seed-1", "seed-2", "seed-3"});
    const std::string seed3 = warmsched::test::file_text(dir / "seed-3" / "report.txt");
    fs::remove_all(dir / "seed-2");
    const auto gap = run_cli("compare " + dir.string());
    CHECK(gap.status == 2);
    CHECK(gap.err.find("1 of its 3 seeds are missing or incomplete (2)") != std::string::npos);
    CHECK(run_cli(run + hackbench).status == 2); // not empty, no --resume
    const auto other = run_cli("run --repeat 3 --resume --kernel cfs --out " + dir.string() + " -- hackbench -g 1 -l 20");
    CHECK(other.status == 2);
    CHECK(other.err.find("was run with another configuration") != std::string::npos);
    const fs::file_time_type seed3_time = fs::last_write_time(dir / "seed-3" / "report.txt");
    const auto resumed = run_cli(run + " --resume" + hackbench);
    CHECK(resumed.status == 0);
    CHECK(resumed.out.find("=== seed 1 === complete in " + (dir / "seed-1").string() + ", kept (--resume)") !=
          std::string::npos);
    CHECK(resumed.out.find("=== seed 2 ===\n") != std::string::npos);
    CHECK(fs::last_write_time(dir / "seed-3" / "report.txt") == seed3_time); // kept, not rerun
    CHECK(warmsched::test::file_text(dir / "seed-3" / "report.txt") == seed3);
    CHECK(run_cli("compare " + dir.string()).status == 0);
}

TEST_CASE("SIGINT to the parent of --repeat stops its children and leaves only complete seeds") {
    const fs::path dir = fresh("sigint");
    const pid_t parent = start_background("run --repeat 4 -j 2 --out " + dir.string() + " -- hackbench -g 20 -l 100000");
    REQUIRE(eventually([&] { return has_partial(dir); })); // the children are writing
    REQUIRE(::kill(parent, SIGINT) == 0);
    REQUIRE(eventually([&] { return !alive(parent); }));
    CHECK(processes_mentioning(dir.string()) == 0);
    CHECK(!has_partial(dir));
    CHECK(warmsched::test::file_text(scratch / "background.err").find("run the same command with --resume") !=
          std::string::npos);
    CHECK(run_cli("compare " + dir.string()).status == 2); // 0 of 4 seeds there
}

TEST_CASE("SIGKILL to the parent of --repeat takes its children with it") {
    const fs::path dir = fresh("sigkill");
    const pid_t parent = start_background("run --repeat 2 -j 2 --out " + dir.string() + " -- hackbench -g 20 -l 100000");
    REQUIRE(eventually([&] { return has_partial(dir); }));
    REQUIRE(::kill(parent, SIGKILL) == 0);
    CHECK(eventually([&] { return processes_mentioning(dir.string()) == 0; })); // no orphan goes on writing
    // What the children left is named partial; --resume clears it and runs the seeds.
    CHECK(has_partial(dir));
    const auto r = run_cli("run --repeat 2 -j 2 --resume --out " + dir.string() + " -- hackbench -g 20 -l 5");
    CHECK(r.status == 0);
    CHECK(!has_partial(dir));
    CHECK(entries(dir) == std::vector<std::string>{"repeat.yaml", "seed-1", "seed-2"});
}
