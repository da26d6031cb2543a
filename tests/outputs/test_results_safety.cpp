// Results are never lost, never mixed, never partial-but-complete (issues 20 and 41): a run checks --out
// before it simulates, writes into DIR.partial-<pid> and renames it when complete, refuses a non-empty DIR
// unless --force; --repeat --resume runs only the missing seeds of the same configuration; compare and
// plot refuse incomplete runs; a stopped --repeat leaves only complete seeds and no child running.
// --force replaces only a results directory warmsched wrote, never `/`, the current directory, its
// ancestors or a directory holding the run's inputs; a full disk or no inodes leave no directory that
// looks complete; of two runs into one --out, neither destroys the other's results (test_disk_full.cpp has
// the full-disk cases).
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <catch2/catch.hpp>

#include <csignal>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
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
    CHECK(entries(dir) == std::vector<std::string>{"manifest.txt", "repeat.yaml", "seed-1", "seed-2", "seed-3"});
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
    CHECK(entries(dir) == std::vector<std::string>{"manifest.txt", "repeat.yaml", "seed-1", "seed-2"});
}

namespace {
// Runs `warmsched ARGS` with `prefix` before it (a `cd DIR &&`, a setpriv), stdout and stderr apart.
warmsched::test::cli_result run_as(const std::string& prefix, const std::string& args) {
    const fs::path err = scratch / "run_as.err";
    auto r = warmsched::test::run_command(prefix + " " + WARMSCHED_BINARY + " " + args + " 2>" + err.string());
    r.err = warmsched::test::file_text(err);
    return r;
}

// The files below `dir`, with their contents, to check that nothing was touched.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
    std::map<std::string, std::string> m;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) m[e.path().lexically_relative(dir).string()] = warmsched::test::file_text(e.path());
    return m;
}
} // namespace

TEST_CASE("run --force never replaces the current directory, its ancestors or /, and nothing is deleted") {
    const fs::path work = fresh("cwd") / "work";
    fs::create_directories(work / "sub");
    std::ofstream(work / "e.yaml") << "description: mine\nplatform: zen3-5950x\nworkloads:\n  - hackbench -g 1 -l 1\n";
    std::ofstream(work / "notes.txt") << "the user's own file\n";
    REQUIRE(run_cli("run --out " + (work / "sub" / "r").string() + " -- hackbench -g 1 -l 1").status == 0);
    const auto before = snapshot(work.parent_path());
    for (const std::string out : {".", "..", "./", "sub/..", "../work", "../.."}) {
        INFO(out);
        const auto r = run_as("cd " + work.string() + " &&", "run e.yaml --out " + out + " --force");
        INFO(r.err);
        CHECK(r.status == 2);
        CHECK(r.err == "error: --out " + std::string(out == "./" ? "." : out) +
                           ": is the current directory or one of its ancestors (the results would be written "
                           "inside the directory they replace); give a directory of its own\n");
        CHECK(r.out.empty()); // refused before the simulation
    }
    CHECK(snapshot(work.parent_path()) == before);
    CHECK(!partial_left(work));

    // As an unprivileged user, so that a regression could not delete the machine's files.
    const std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
    if (::geteuid() != 0 || warmsched::test::run_command(nobody + " test -x " + WARMSCHED_BINARY).status != 0) {
        WARN("not checked: --out / --force (needs root to run it as nobody, and a binary nobody may run)");
        return;
    }
    const auto root = run_as(nobody, "run --out / --force -- hackbench -g 1 -l 1");
    INFO(root.err);
    CHECK(root.status == 2);
    CHECK(root.err == "error: --out /: is the root directory\n");
}

TEST_CASE("run --force replaces only a directory warmsched wrote, and never one holding the run's inputs") {
    const fs::path mine = fresh("not-results");
    fs::create_directories(mine);
    std::ofstream(mine / "thesis.tex") << "\\documentclass{article}\n";
    const auto r = run_cli("run --force --out " + mine.string() + " -- hackbench -g 1 -l 1");
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err == "error: --out " + mine.string() +
                       ": is not a results directory warmsched wrote (it has no manifest.txt), and --force "
                       "replaces only those; remove it yourself, or give another directory\n");
    CHECK(warmsched::test::file_text(mine / "thesis.tex") == "\\documentclass{article}\n");

    // A results directory the user keeps an input in: the experiment, the platform, an rt-app file.
    const fs::path dir = fresh("holds-inputs");
    REQUIRE(run_cli("run --out " + dir.string() + " -- hackbench -g 1 -l 1").status == 0);
    REQUIRE(fs::exists(dir / "manifest.txt"));
    std::ofstream(dir / "e.yaml") << "description: again\nplatform: zen3-5950x\nworkloads:\n  - hackbench -g 1 -l 2\n";
    fs::copy_file(fs::path(WARMSCHED_SOURCE_DIR) / "configs/platforms/zen3-5950x.yaml", dir / "p.yaml");
    std::ofstream(dir / "t.json") << R"({"tasks": {"t": {"loop": 2, "run": 1000, "sleep": 1000}}})";
    const auto before = snapshot(dir);
    for (const auto& [args, input] : std::vector<std::pair<std::string, std::string>>{
             {(dir / "e.yaml").string(), "e.yaml"},
             {"--platform " + (dir / "p.yaml").string() + " -- hackbench -g 1 -l 1", "p.yaml"},
             {"-- rt-app " + (dir / "t.json").string(), "t.json"}}) {
        const auto again = run_cli("run --force --out " + dir.string() + " " + args);
        INFO(again.err);
        CHECK(again.status == 2);
        CHECK(again.err == "error: --out " + dir.string() + ": holds " + (dir / input).string() +
                               ", an input of this run; --force would delete it\n");
    }
    CHECK(snapshot(dir) == before);
    CHECK(!partial_left(dir));
}

TEST_CASE("run --force renames the old results aside and deletes them only once the new ones are in place") {
    const fs::path dir = fresh("aside");
    REQUIRE(run_cli("run --out " + dir.string() + " -- hackbench -g 1 -l 1").status == 0);
    const auto forced = run_cli("run --force --out " + dir.string() + " -- hackbench -g 1 -l 3");
    CHECK(forced.status == 0);
    CHECK(warmsched::test::file_text(dir / "report.txt").find("pass 3 messages") != std::string::npos);
    for (const auto& e : fs::directory_iterator(scratch)) // no DIR.replaced-<pid> left behind
        CHECK(e.path().filename().string().rfind("aside.", 0) != 0);
    // The manifest lists every file with its size; compare checks it.
    const std::string manifest = warmsched::test::file_text(dir / "manifest.txt");
    CHECK(manifest.rfind("# warmsched results: complete.", 0) == 0);
    CHECK(manifest.find("\treport.txt\n") != std::string::npos);
    CHECK(manifest.find("\tschedstat/v15-start.txt\n") != std::string::npos);
    CHECK(manifest.find(std::to_string(fs::file_size(dir / "stats.json")) + "\tstats.json\n") != std::string::npos);
}

TEST_CASE("compare refuses a run whose files are not those its manifest lists") {
    const fs::path dir = fresh("damaged");
    REQUIRE(run_cli("run --out " + dir.string() + " -- hackbench -g 1 -l 1").status == 0);
    REQUIRE(run_cli("compare " + dir.string()).status == 0);
    const auto size = fs::file_size(dir / "stats.json");
    fs::resize_file(dir / "stats.json", 16384 < size ? 16384 : size / 2);
    const auto r = run_cli("compare " + dir.string());
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(dir.string() + ": damaged or incomplete: stats.json is ") != std::string::npos);
    CHECK(r.err.find("bytes, manifest.txt says " + std::to_string(size)) != std::string::npos);
    fs::remove(dir / "report.json");
    CHECK(run_cli("compare " + dir.string()).err.find("report.json is missing") != std::string::npos);
}

TEST_CASE("run --resume runs again a kept seed whose files were cut short") {
    const fs::path dir = fresh("resume-cut");
    const std::string run = "run --repeat 2 -j 1 --out " + dir.string(), hackbench = " -- hackbench -g 1 -l 20";
    REQUIRE(run_cli(run + hackbench).status == 0);
    const std::string whole = warmsched::test::file_text(dir / "seed-1" / "stats.json");
    const std::string stats = warmsched::test::file_text(dir / "seed-1" / "stats.txt");
    fs::resize_file(dir / "seed-1" / "stats.json", whole.size() / 2); // what a full disk once left
    const auto resumed = run_cli(run + " --resume" + hackbench);
    INFO(resumed.err);
    CHECK(resumed.status == 0);
    CHECK(resumed.out.find("=== seed 1 === incomplete in " + (dir / "seed-1").string() + " (stats.json is " +
                           std::to_string(whole.size() / 2) + " bytes, manifest.txt says " +
                           std::to_string(whole.size()) + "): run again") != std::string::npos);
    CHECK(resumed.out.find("=== seed 2 === complete in") != std::string::npos);
    CHECK(warmsched::test::file_text(dir / "seed-1" / "stats.txt") == stats); // the same seed, the same counts
    CHECK(run_cli("compare " + dir.string()).status == 0);
}

TEST_CASE("two runs into one --out: the second to finish keeps its results beside and says so") {
    for (const std::string force : {"", " --force"}) {
        INFO("force: " << force);
        const fs::path dir = fresh("race");
        // The slow run passes its check first; the quick one starts and finishes while it runs.
        const pid_t slow = start_background("run" + force + " --out " + dir.string() + " -- hackbench -g 2 -l 800");
        REQUIRE(eventually([&] { return partial_left(dir); }));
        const auto quick = run_cli("run" + force + " --out " + dir.string() + " -- hackbench -g 1 -l 1");
        INFO(quick.err);
        REQUIRE(quick.status == 0);
        REQUIRE(alive(slow)); // else the workload is too short on this host to race
        REQUIRE(eventually([&] { return !alive(slow); }));
        const std::string err = warmsched::test::file_text(scratch / "background.err");
        INFO(err);
        const std::string kept = dir.string() + ".partial-" + std::to_string(slow);
        CHECK(err.find("error: --out " + dir.string() +
                       ": another run wrote it while this one ran, and it is left as that run wrote it; this run's "
                       "complete results are kept in " + kept + "\n") != std::string::npos);
        // The quick run's results are intact; the slow one's are complete where the line says.
        CHECK(warmsched::test::file_text(dir / "report.txt").find("pass 1 messages") != std::string::npos);
        CHECK(run_cli("compare " + dir.string()).status == 0);
        CHECK(fs::exists(fs::path(kept) / "manifest.txt"));
        CHECK(warmsched::test::file_text(fs::path(kept) / "report.txt").find("pass 800 messages") != std::string::npos);
        fs::remove_all(kept);
    }
}

TEST_CASE("a write error on standard output is an error, not a success") {
    for (const std::string& args : std::vector<std::string>{
             "platforms", "topology zen3-5950x",
             "import " + std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/hwloc/AMD-19h-Zen4-2xEpyc-9654.xml"}) {
        INFO(args);
        const auto r = run_cli(args + " > /dev/full");
        CHECK(r.status == 1);
        CHECK(r.err == "error: standard output: No space left on device\n");
    }
}

TEST_CASE("plot into a directory that cannot be written is one line and exit 2, not an uncaught exception") {
    const fs::path dir = fresh("plot-ro");
    REQUIRE(run_cli("run --out " + dir.string() + " -- hackbench -g 1 -l 1").status == 0);
    const auto proc = run_cli("plot --sweep a:1:" + dir.string() + " --out /proc/warmsched-plots");
    INFO(proc.err);
    CHECK(proc.status == 2);
    CHECK(proc.err == "error: plot: /proc/warmsched-plots: No such file or directory (the plots cannot be written "
                      "there)\n");
    // The results directory is root's, and the user nobody may read it but not write in it.
    const std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
    if (::geteuid() != 0 || warmsched::test::run_command(nobody + " test -x " + WARMSCHED_BINARY).status != 0) {
        WARN("not checked: plot into a directory without write permission (needs root to run it as nobody)");
        return;
    }
    const auto r = run_as(nobody, "plot " + dir.string());
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err == "error: plot: " + (dir / "plots").string() + ": Permission denied (the plots cannot be written "
                                                              "there)\n");
    CHECK(!fs::exists(dir / "plots"));
}
