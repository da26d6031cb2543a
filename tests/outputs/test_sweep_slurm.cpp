// `warmsched sweep --executor slurm` on a real Slurm: tests/slurm/local-slurm.sh starts munged,
// slurmctld and slurmd on this host (Debian's slurm-wlm and munge), the sweep of 8 runs goes in as one
// job array, the sweep is SIGKILLed after some runs completed and its job array cancelled (as if the
// allocation had died with it), then the same command resumes: the database ends with every run
// complete exactly once, the runs complete before the kill untouched, no partial directory, and compare
// reads it. A second test lets the array run on after the kill: the next start waits for it and
// submits nothing. Without slurmctld, slurmd, munged (apt-get install slurm-wlm munge) or root, the test exits
// with status 4, which ctest reports as skipped, saying why.
#include <catch2/catch.hpp>

#include "sim/compare/run_metrics.h"
#include "support/cli_runner.h"
#include "support/file_text.h"
#include "support/sqlite_query.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using namespace warmsched;
using test::query;
using test::query_number;

namespace {
const fs::path work = fs::temp_directory_path() / "warmsched-test-sweep-slurm";
const std::string script = std::string(WARMSCHED_SOURCE_DIR) + "/tests/slurm/local-slurm.sh";

[[noreturn]] void skip(const std::string& why) {
    std::cout << "SKIPPED: " << why << "\n";
    std::exit(4); // SKIP_RETURN_CODE
}

bool on_path(const std::string& tool) {
    return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

void require_slurm() {
    for (const char* tool : {"slurmctld", "slurmd", "munged", "sbatch", "squeue", "scancel"})
        if (!on_path(tool)) skip(std::string(tool) + " not found: apt-get install slurm-wlm munge");
    if (::geteuid() != 0) skip("the local cluster runs its daemons as root (SlurmUser=root)");
    fs::remove_all(work);
    fs::create_directories(work);
}

// The sweep in the background: 8 runs of about half a second each on a one-node, 2-CPU cluster.
pid_t start_slurm_sweep(const fs::path& file, const fs::path& log) {
    std::ofstream(file) << "command: hackbench -p -g {groups} -l 60\nparams:\n  platform: haswell-i7-4790\n"
                           "axes:\n  kernel.version: [cfs, eevdf]\n  groups: [1, 2]\nseeds: 2\nout: out\n";
    const pid_t sweep = ::fork();
    REQUIRE(sweep >= 0);
    if (sweep == 0) {
        const int fd = ::creat(log.c_str(), 0644);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execl(WARMSCHED_BINARY, WARMSCHED_BINARY, "sweep", file.c_str(), "--executor", "slurm",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    return sweep;
}

// The cluster, stopped when the test ends (also when a REQUIRE fails).
struct local_slurm {
    local_slurm() {
        const int rc = std::system((script + " start " + (work / "cluster").string() + " >" +
                                    (work / "cluster.log").string() + " 2>&1")
                                       .c_str());
        INFO(test::file_text(work / "cluster.log"));
        REQUIRE(rc == 0);
        ::setenv("SLURM_CONF", (work / "cluster" / "slurm.conf").c_str(), 1);
    }
    ~local_slurm() { std::system((script + " stop " + (work / "cluster").string()).c_str()); }
};

long long complete_runs(const fs::path& db) {
    // The sweep may not have created its tables yet.
    if (!fs::exists(db) || query_number(db.string(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'runs'") == 0)
        return 0;
    return query_number(db.string(), "SELECT COUNT(*) FROM runs WHERE status = 'complete'");
}
} // namespace

TEST_CASE("sweep slurm: 8 runs as a job array on a real Slurm, SIGKILLed and resumed") {
    require_slurm();
    local_slurm cluster;
    const fs::path file = work / "sweep.yaml";
    const fs::path out = work / "out";
    const fs::path db = out / "results.db";
    const pid_t sweep = start_slurm_sweep(file, work / "first.log");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (complete_runs(db) < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(::kill(sweep, SIGKILL) == 0);
    int st = 0;
    ::waitpid(sweep, &st, 0);
    const std::string first = test::file_text(work / "first.log");
    INFO(first);
    CHECK(first.find("submitted job") != std::string::npos);
    CHECK(test::file_text(out / "slurm" / "job.sh").find("#SBATCH --array=0-7") != std::string::npos);
    const std::string job = query(db.string(), "SELECT value FROM sweep WHERE key = 'slurm_job'")[0][0];
    // The array dies too (as an allocation killed with the sweep would): its running tasks are cut short.
    REQUIRE(std::system(("scancel " + job).c_str()) == 0);
    const long long done_before = complete_runs(db);
    REQUIRE(done_before >= 2);
    REQUIRE(done_before < 8);
    const auto finished_before =
        query(db.string(), "SELECT id, finished FROM runs WHERE status = 'complete' ORDER BY id");

    const auto r = test::run_cli_as_is("sweep " + file.string() + " --executor slurm");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("submitted job") != std::string::npos);
    CHECK(r.out.find("8 runs (4 points x 2 seeds), 8 complete") != std::string::npos);
    // While the array runs, its progress as the runs report it: the complete count only grows, and every
    // line accounts for the 8 runs.
    {
        const std::regex line(R"(job \d+: (\d+) pending, (\d+) running, (\d+) complete, (\d+) failed\n)");
        long long last_complete = -1, lines = 0;
        for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line); it != std::sregex_iterator(); ++it) {
            const long long p = std::stoll((*it)[1]), run = std::stoll((*it)[2]), c = std::stoll((*it)[3]),
                            f = std::stoll((*it)[4]);
            CHECK(p + run + c + f == 8);
            CHECK(c >= last_complete);
            CHECK(c >= done_before);
            last_complete = c;
            ++lines;
        }
        CHECK(lines >= 1);
    }
    CHECK(query_number(db.string(), "SELECT COUNT(*) FROM runs WHERE status = 'complete'") == 8);
    CHECK(query_number(db.string(), "SELECT COUNT(DISTINCT id) FROM runs") == 8);
    for (const auto& row : finished_before)
        CHECK(query(db.string(), "SELECT finished FROM runs WHERE id = '" + row[0] + "'") ==
              test::sql_rows{{row[1]}});
    std::set<std::string> ids, dirs;
    for (const auto& row : query(db.string(), "SELECT id FROM runs")) ids.insert(row[0]);
    for (const auto& e : fs::directory_iterator(out / "runs")) dirs.insert(e.path().filename().string());
    CHECK(dirs == ids); // no runs/<id>.partial-<pid>
    for (const auto& id : ids)
        CHECK(query_number(db.string(), "SELECT COUNT(*) FROM stats WHERE run_id = '" + id + "'") ==
              static_cast<long long>(sim::read_stats_json((out / "runs" / id / "stats.json").string()).size()));
    // The second job ran only what was not complete.
    const std::string second = test::file_text(out / "slurm" / "job.sh");
    CHECK(second.find("#SBATCH --array=0-7") == std::string::npos);

    const auto c = test::run_cli_as_is("compare " + out.string());
    INFO(c.out << c.err);
    CHECK(c.status == 0);
    CHECK(c.out.find("runs: p0000=2 p0001=2 p0002=2 p0003=2") != std::string::npos);
}

TEST_CASE("sweep slurm: SIGKILLed while its array runs, the next start waits for the array and runs nothing twice") {
    require_slurm();
    local_slurm cluster;
    const fs::path file = work / "sweep.yaml";
    const fs::path out = work / "out";
    const fs::path db = out / "results.db";
    const pid_t sweep = start_slurm_sweep(file, work / "first.log");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (complete_runs(db) < 1 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(::kill(sweep, SIGKILL) == 0);
    int st = 0;
    ::waitpid(sweep, &st, 0);
    REQUIRE(complete_runs(db) >= 1);
    REQUIRE(complete_runs(db) < 8);

    const auto r = test::run_cli_as_is("sweep " + file.string() + " --executor slurm");
    INFO(test::file_text(work / "first.log") << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("still in the queue; waiting for it") != std::string::npos);
    CHECK(r.out.find("submitted job") == std::string::npos); // the first array made every run
    CHECK(r.out.find("8 runs (4 points x 2 seeds), 8 complete") != std::string::npos);
    CHECK(query_number(db.string(), "SELECT COUNT(*) FROM runs WHERE status = 'complete' AND attempts = 1") == 8);
    CHECK(query(db.string(), "SELECT value FROM sweep WHERE key = 'slurm_job'").empty());
    std::set<std::string> dirs;
    for (const auto& e : fs::directory_iterator(out / "runs")) dirs.insert(e.path().filename().string());
    CHECK(dirs.size() == 8);
    for (const auto& d : dirs) CHECK(d.find(".partial-") == std::string::npos);
}
