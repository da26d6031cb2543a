// `warmsched sweep` with the local executor: the grid's runs and ids, strict reading of SWEEP.yaml, the
// database against each run's own stats.json, compare and plot of the database, resuming after a
// SIGKILL (every run complete once, nothing partial counted), and refusing another grid in the same
// directory. The database is read with SQLite's API (support/sqlite_query.h), the stats with
// read_stats_json: neither through the sweep's own code.
#include <catch2/catch.hpp>

#include "sim/compare/run_metrics.h"
#include "sim/sweep/slurm_executor.h"
#include "sim/sweep/sweep_spec.h"
#include "support/cli_runner.h"
#include "support/file_text.h"
#include "support/sqlite_query.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using namespace warmsched;
using test::query;
using test::query_number;

namespace {
// A fresh directory for one test, with SWEEP.yaml written into it.
fs::path sweep_file(const std::string& test, const std::string& yaml) {
    const fs::path dir = fs::temp_directory_path() / ("warmsched-test-sweep-" + test);
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "sweep.yaml") << yaml;
    return dir / "sweep.yaml";
}

// Two kernels x two hackbench group counts x two seeds: 8 short runs on an 8-CPU platform.
const char* grid_yaml = R"(command: hackbench -p -g {groups} -l 5
params:
  platform: haswell-i7-4790
axes:
  kernel.version: [cfs, eevdf]
  groups: [1, 2]
seeds: 2
out: out
)";

std::size_t lines_of(const std::string& s) {
    std::size_t n = 0;
    for (const char c : s) n += c == '\n';
    return n;
}

// The sweep's runs/ directory: complete run directories and anything else.
std::set<std::string> entries_of(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    return names;
}

pid_t start_sweep(const std::vector<std::string>& args, const fs::path& log) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::vector<const char*> argv{WARMSCHED_BINARY};
        for (const auto& a : args) argv.push_back(a.c_str());
        argv.push_back(nullptr);
        const int fd = ::creat(log.c_str(), 0644);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execv(WARMSCHED_BINARY, const_cast<char* const*>(argv.data()));
        ::_exit(127);
    }
    return pid;
}

long long complete_runs(const fs::path& db) {
    // The sweep may not have created its tables yet.
    if (!fs::exists(db) || query_number(db.string(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'runs'") == 0)
        return 0;
    return query_number(db.string(), "SELECT COUNT(*) FROM runs WHERE status = 'complete'");
}
} // namespace

TEST_CASE("sweep: the grid is the axes' product times the seeds, with stable ids and overrides") {
    const fs::path file = sweep_file("grid", grid_yaml);
    const sim::sweep::sweep_spec s = sim::sweep::read_sweep_spec(file.string());
    CHECK(s.points() == 4);
    CHECK(s.out == (file.parent_path() / "out").string());
    const auto runs = s.runs();
    REQUIRE(runs.size() == 8);
    std::vector<std::string> ids;
    for (const auto& r : runs) ids.push_back(r.id);
    CHECK(ids == std::vector<std::string>{"p0000-s1", "p0000-s2", "p0001-s1", "p0001-s2", "p0002-s1", "p0002-s2",
                                          "p0003-s1", "p0003-s2"});
    // The first axis varies slowest; a placeholder axis goes into the command, the others are overrides.
    const auto& r = runs[5]; // point 2 = eevdf, groups 1; seed 2
    CHECK(r.index == 5);
    CHECK(r.overrides ==
          std::vector<std::string>{"platform=haswell-i7-4790", "kernel.version=eevdf", "seed=2"});
    CHECK(r.command == std::vector<std::string>{"hackbench", "-p", "-g", "1", "-l", "5"});
    CHECK(runs[3].command[3] == "2");
    CHECK(runs[3].overrides[1] == "kernel.version=cfs");
    // Another value makes another grid text; the same file read again the same.
    CHECK(sim::sweep::read_sweep_spec(file.string()).canonical_text() == s.canonical_text());
    std::ofstream(file) << std::regex_replace(grid_yaml, std::regex("\\[1, 2\\]"), "[1, 3]");
    CHECK(sim::sweep::read_sweep_spec(file.string()).canonical_text() != s.canonical_text());
    // --out replaces out:; a list of seeds is taken as given.
    std::ofstream(file) << "axes:\n  kernel.version: [cfs]\nseeds: [7, 3]\n";
    const auto t = sim::sweep::read_sweep_spec(file.string(), "/tmp/elsewhere");
    CHECK(t.out == "/tmp/elsewhere");
    CHECK(t.runs().size() == 2);
    CHECK(t.runs()[1].id == "p0000-s3");
    // The Slurm array of the runs still to do.
    CHECK(sim::sweep::array_ranges({0, 1, 2, 3, 5, 7, 8, 9}) == "0-3,5,7-9");
    CHECK(sim::sweep::array_ranges({4}) == "4");
}

TEST_CASE("sweep: a bad SWEEP.yaml is one line per error and exit status 2") {
    const std::pair<const char*, const char*> cases[] = {
        {"axes:\n  kernel.version: [cfs]\nseed: 3\n", "seed: unknown key"},
        {"command: hackbench -g {groups}\naxes:\n  kernel.version: [cfs]\n", "placeholder {groups} has no axis"},
        {"axes:\n  kernel.version: []\n", "at least one value"},
        {"axes:\n  seed: [1, 2]\n", "the seeds are `seeds:`"},
        {"seeds: many\n", "expected a seed"},
        {"axes:\n  kernel.version: [cfs, bsd]\n", "kernel.version"},
        // Issue 41: a key both fixed and swept; a bad point names the sweep file and the point.
        {"params:\n  kernel.version: cfs\naxes:\n  kernel.version: [cfs, eevdf]\n",
         "params.kernel.version: is also an axis: a key is fixed (params:) or swept (axes:), not both"},
        {"command: hackbench -g {g} -l 1\naxes:\n  g: [1, x]\n",
         "sweep.yaml: run p0001-s1 (g=x seed=1): hackbench: "},
    };
    for (const auto& [yaml, message] : cases) {
        const fs::path file = sweep_file("bad", std::string(yaml) + "out: out\n");
        const auto r = test::run_cli("sweep " + file.string());
        INFO(yaml << "\n" << r.err);
        CHECK(r.status == 2);
        CHECK(lines_of(r.err) == 1);
        CHECK(r.err.rfind("error: ", 0) == 0);
        CHECK(r.err.find(message) != std::string::npos);
        CHECK_FALSE(fs::exists(file.parent_path() / "out")); // nothing started
    }
}

TEST_CASE("sweep: an empty sweep file is refused, not run as default.yaml") {
    for (const char* yaml : {"", "# nothing but a comment\n"}) {
        const fs::path file = sweep_file("empty", yaml);
        const auto r = test::run_cli("sweep " + file.string());
        INFO(r.err);
        CHECK(r.status == 2);
        CHECK(lines_of(r.err) == 1);
        CHECK(r.err == "error: " + file.string() + ": the sweep file is empty (give axes:, and experiment: or command:; "
                                                   "docs/outputs.md, \"A sweep of runs\")\n");
        CHECK_FALSE(fs::exists(file.parent_path() / "sweeps"));
    }
}

TEST_CASE("sweep: a complete run whose stats rows were deleted is not passed off: compare refuses, sweep runs it again") {
    const fs::path file = sweep_file("deleted-rows", "params:\n  platform: haswell-i7-4790\ncommand: hackbench -p -g 1 -l 5\n"
                                                     "axes:\n  kernel.version: [cfs, eevdf]\nout: out\n");
    REQUIRE(test::run_cli("sweep " + file.string()).status == 0);
    const std::string db = (file.parent_path() / "out" / "results.db").string();
    const long long rows = query_number(db, "SELECT COUNT(*) FROM stats WHERE run_id = 'p0001-s1'");
    REQUIRE(rows > 1);
    CHECK(query_number(db, "SELECT stats_rows FROM runs WHERE id = 'p0001-s1'") == rows);
    {
        sqlite3* h = nullptr;
        REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
        REQUIRE(sqlite3_exec(h, "DELETE FROM stats WHERE rowid = (SELECT MIN(rowid) FROM stats WHERE run_id = 'p0001-s1')",
                             nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(h);
    }
    const auto c = test::run_cli("compare " + (file.parent_path() / "out").string());
    INFO(c.out << c.err);
    CHECK(c.status == 2);
    CHECK(lines_of(c.err) == 1);
    CHECK(c.err.find("run p0001-s1 is marked complete but 1 of its " + std::to_string(rows) +
                     " stats rows are missing") != std::string::npos);
    CHECK(c.out.empty());
    const auto again = test::run_cli("sweep " + file.string());
    INFO(again.out << again.err);
    CHECK(again.status == 0);
    CHECK(again.err.find("run p0001-s1 is marked complete but 1 of its " + std::to_string(rows) +
                         " stats rows are missing: running it again") != std::string::npos);
    CHECK(again.out.find("1 of 2 runs to do") != std::string::npos);
    CHECK(query_number(db, "SELECT COUNT(*) FROM stats WHERE run_id = 'p0001-s1'") == rows);
    CHECK(query_number(db, "SELECT attempts FROM runs WHERE id = 'p0001-s1'") == 2);
    CHECK(test::run_cli("compare " + (file.parent_path() / "out").string()).status == 0);
}

TEST_CASE("sweep: the database holds every run's params, provenance and stats.json, compare and plot read it") {
    const fs::path file = sweep_file("db", grid_yaml);
    const fs::path out = file.parent_path() / "out";
    const auto r = test::run_cli("sweep " + file.string() + " -j 2");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("8 of 8 runs to do, 2 at a time") != std::string::npos);
    CHECK(r.out.find("8 runs (4 points x 2 seeds), 8 complete") != std::string::npos);
    const std::string db = (out / "results.db").string();
    const auto runs = query(db, "SELECT id, status, dir, build_commit, host, wall_s, command_line, attempts FROM runs "
                                "ORDER BY run_index");
    REQUIRE(runs.size() == 8);
    for (const auto& row : runs) {
        INFO(row[0]);
        CHECK(row[1] == "complete");
        CHECK(row[2] == (out / "runs" / row[0]).string());
        CHECK(std::regex_match(row[3], std::regex("([0-9a-f]{40}(-dirty)?|unknown)")));
        CHECK_FALSE(row[4].empty());
        CHECK(std::stod(row[5]) > 0);
        CHECK(row[6].rfind("warmsched run ", 0) == 0);
        CHECK(row[7] == "1");
        // Every stat of the run's stats.json, exactly, and nothing else.
        const sim::run_metrics stats = sim::read_stats_json((fs::path(row[2]) / "stats.json").string());
        const auto in_db = query(db, "SELECT name, value FROM stats WHERE run_id = '" + row[0] + "'");
        REQUIRE(in_db.size() == stats.size());
        std::map<std::string, double> db_stats;
        for (const auto& s : in_db) db_stats[s[0]] = std::stod(s[1]);
        for (const auto& [name, v] : stats) {
            INFO(name);
            REQUIRE(db_stats.count(name));
            CHECK(db_stats[name] == Approx(v).epsilon(1e-12));
        }
        // compare's numbers of the run, as compare reads them from the directory.
        for (const auto& [name, v] : sim::read_run_metrics(row[2])) {
            const auto m = query(db, "SELECT value FROM metrics WHERE run_id = '" + row[0] + "' AND name = '" + name + "'");
            REQUIRE(m.size() == 1);
            CHECK(std::stod(m[0][0]) == Approx(v).epsilon(1e-12));
        }
    }
    CHECK(query(db, "SELECT key, value FROM params WHERE run_id = 'p0003-s2' ORDER BY key") ==
          test::sql_rows{{"groups", "2"}, {"kernel.version", "eevdf"}, {"platform", "haswell-i7-4790"}, {"seed", "2"}});
    // The run's own config.yaml says the same.
    const std::string config = test::file_text(out / "runs" / "p0003-s2" / "config.yaml");
    CHECK(config.find("version: eevdf") != std::string::npos);
    CHECK(config.find("hackbench -p -g 2 -l 5") != std::string::npos);

    // compare of the sweep directory: one column per point, its two seeds as the samples.
    const auto c = test::run_cli("compare " + out.string());
    INFO(c.out << c.err);
    REQUIRE(c.status == 0);
    CHECK(c.out.find("runs: p0000=2 p0001=2 p0002=2 p0003=2") != std::string::npos);
    CHECK(c.out.find("p0001: kernel.version=cfs groups=2") != std::string::npos);
    CHECK(c.out.find("incomplete") == std::string::npos);
    // Its hackbench time of p0001 is the mean of the two runs' report values.
    const double t1 = std::stod(query(db, "SELECT value FROM metrics WHERE run_id='p0001-s1' AND name='hackbench Time (s)'")[0][0]);
    const double t2 = std::stod(query(db, "SELECT value FROM metrics WHERE run_id='p0001-s2' AND name='hackbench Time (s)'")[0][0]);
    std::smatch m;
    REQUIRE(std::regex_search(
        c.out, m, std::regex(R"(\nAmean\s+hackbench-Time-s\s+([0-9.]+) [(*][^)*]*[)*]\s+([0-9.]+))")));
    CHECK(std::stod(m[2].str()) == Approx((t1 + t2) / 2).margin(1e-4));

    // compare --by kernel.version: cfs against eevdf at each group count, one table each.
    const auto by = test::run_cli("compare --by kernel.version " + out.string());
    INFO(by.out << by.err);
    REQUIRE(by.status == 0);
    CHECK(by.out.find("== kernel.version at groups=1\n") != std::string::npos);
    CHECK(by.out.find("== kernel.version at groups=2\n") != std::string::npos);
    CHECK(by.out.find("runs: cfs=2 eevdf=2") != std::string::npos);
    // Each table's eevdf column is that group count's point: at groups=2, p0003's mean.
    const double e1 = std::stod(query(db, "SELECT value FROM metrics WHERE run_id='p0003-s1' AND name='hackbench Time (s)'")[0][0]);
    const double e2 = std::stod(query(db, "SELECT value FROM metrics WHERE run_id='p0003-s2' AND name='hackbench Time (s)'")[0][0]);
    const std::string second = by.out.substr(by.out.find("== kernel.version at groups=2"));
    REQUIRE(std::regex_search(
        second, m, std::regex(R"(\nAmean\s+hackbench-Time-s\s+([0-9.]+) [(*][^)*]*[)*]\s+([0-9.]+))")));
    CHECK(std::stod(m[2].str()) == Approx((e1 + e2) / 2).margin(1e-4));
    const auto bad = test::run_cli("compare --by kernel " + out.string());
    CHECK(bad.status == 2);
    CHECK(bad.err.find("compare --by kernel: not an axis of ") != std::string::npos);
    CHECK(bad.err.find("(its axes: kernel.version, groups)") != std::string::npos);

    // plot --sweep of the database: the metric against a numeric axis, a line per kernel.
    const fs::path plots = file.parent_path() / "plots";
    const auto p = test::run_cli("plot --sweep " + out.string() + " --x groups --out " + plots.string());
    INFO(p.out << p.err);
    REQUIRE(p.status == 0);
    CHECK(p.out.find("2 variants") != std::string::npos);
    const std::string dat = test::file_text(plots / "sweep.dat");
    CHECK(dat.find("# kernel.version=cfs") != std::string::npos);
    CHECK(dat.find("# kernel.version=eevdf") != std::string::npos);

    // Started again, a complete sweep runs nothing.
    const auto again = test::run_cli("sweep " + file.string());
    CHECK(again.status == 0);
    CHECK(again.out.find("0 of 8 runs to do") != std::string::npos);
    CHECK(query_number(db, "SELECT SUM(attempts) FROM runs") == 8);
}

TEST_CASE("sweep: killed with SIGKILL mid-sweep, the same command resumes with every run complete once") {
    // Longer runs (about a second each here), so that the kill comes mid-sweep.
    const fs::path file = sweep_file("kill", std::regex_replace(grid_yaml, std::regex("-l 5"), "-l 60"));
    const fs::path out = file.parent_path() / "out";
    const fs::path db = out / "results.db";
    const pid_t sweep = start_sweep({"sweep", file.string(), "-j", "2"}, file.parent_path() / "first.log");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (complete_runs(db) < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(::kill(sweep, SIGKILL) == 0);
    int st = 0;
    ::waitpid(sweep, &st, 0);
    const long long done_before = complete_runs(db);
    INFO(test::file_text(file.parent_path() / "first.log"));
    REQUIRE(done_before >= 2);
    REQUIRE(done_before < 8); // killed mid-sweep
    // Its children die with it (PR_SET_PDEATHSIG): within a moment no run process of the sweep is left
    // (gone, or a zombie waiting for init).
    std::this_thread::sleep_for(std::chrono::seconds(1));
    for (const auto& row : query(db.string(), "SELECT pid FROM runs WHERE status = 'running'")) {
        INFO("pid " << row[0]);
        std::ifstream stat("/proc/" + row[0] + "/stat");
        std::string text;
        std::getline(stat, text);
        CHECK((text.empty() || text.substr(text.rfind(')') + 2, 1) == "Z"));
    }
    const auto finished_before =
        query(db.string(), "SELECT id, finished FROM runs WHERE status = 'complete' ORDER BY id");
    // compare of the killed sweep counts its complete runs only, and says the sweep is incomplete.
    const auto partial = test::run_cli("compare " + out.string());
    INFO(partial.out << partial.err);
    CHECK(partial.status == 0);
    CHECK(partial.out.find("incomplete sweep: " + db.string() + ": " + std::to_string(done_before) + " of 8 runs complete") !=
          std::string::npos);

    const auto r = test::run_cli("sweep " + file.string() + " -j 2");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find(std::to_string(8 - done_before) + " of 8 runs to do") != std::string::npos);
    CHECK(query_number(db.string(), "SELECT COUNT(*) FROM runs WHERE status = 'complete'") == 8);
    CHECK(query_number(db.string(), "SELECT COUNT(*) FROM runs") == 8);
    CHECK(query_number(db.string(), "SELECT COUNT(DISTINCT id) FROM runs") == 8);
    // The runs complete before the kill were not made again.
    for (const auto& row : finished_before)
        CHECK(query(db.string(), "SELECT finished, attempts FROM runs WHERE id = '" + row[0] + "'") ==
              test::sql_rows{{row[1], "1"}});
    // runs/ holds the eight runs and nothing partial; each one's stats are in the database once.
    std::set<std::string> expected;
    for (const auto& row : query(db.string(), "SELECT id FROM runs")) expected.insert(row[0]);
    CHECK(entries_of(out / "runs") == expected);
    for (const auto& id : expected) {
        const auto stats = sim::read_stats_json((out / "runs" / id / "stats.json").string());
        CHECK(query_number(db.string(), "SELECT COUNT(*) FROM stats WHERE run_id = '" + id + "'") ==
              static_cast<long long>(stats.size()));
    }
    // Same configuration and seed, same results: a run made after the resume equals a fresh `warmsched run`.
    const std::string last = query(db.string(), "SELECT id FROM runs ORDER BY finished DESC LIMIT 1")[0][0];
    const fs::path fresh = file.parent_path() / "fresh";
    const std::string cmd = query(db.string(), "SELECT command_line FROM runs WHERE id = '" + last + "'")[0][0];
    const std::string args = std::regex_replace(cmd.substr(std::string("warmsched ").size()),
                                                std::regex("--out \\S+"), "--out " + fresh.string());
    const auto f = test::run_cli(args);
    INFO(args << "\n" << f.err);
    REQUIRE(f.status == 0);
    CHECK(test::file_text(fresh / "stats.json").substr(test::file_text(fresh / "stats.json").find("\"simulation\"")) ==
          test::file_text(out / "runs" / last / "stats.json")
              .substr(test::file_text(out / "runs" / last / "stats.json").find("\"simulation\"")));
}

TEST_CASE("sweep: another grid in the same directory is refused with one line") {
    const fs::path file = sweep_file("changed", "params:\n  platform: haswell-i7-4790\ncommand: hackbench -p -g 1 -l 5\n"
                                                "axes:\n  kernel.version: [cfs]\nout: out\n");
    REQUIRE(test::run_cli("sweep " + file.string()).status == 0);
    std::ofstream(file) << "params:\n  platform: haswell-i7-4790\ncommand: hackbench -p -g 1 -l 5\n"
                           "axes:\n  kernel.version: [cfs, eevdf]\nout: out\n";
    const auto r = test::run_cli("sweep " + file.string());
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(lines_of(r.err) == 1);
    CHECK(r.err.find("holds another sweep") != std::string::npos);
    CHECK(r.err.find("[cfs] [eevdf]") != std::string::npos);
    const std::string db = (file.parent_path() / "out" / "results.db").string();
    CHECK(query_number(db, "SELECT COUNT(*) FROM runs") == 1); // the refused grid added nothing
    // A run of the changed file (an array task that starts after the edit) is refused too.
    const auto one = test::run_cli("sweep " + file.string() + " --run-index 1");
    INFO(one.err);
    CHECK(one.status == 2);
    CHECK(lines_of(one.err) == 1);
    CHECK(one.err.find("is not the grid") != std::string::npos);
    CHECK(query_number(db, "SELECT COUNT(*) FROM runs") == 1);
}
