// bench/throttle_steady.sh, the runner of docs/validation.md section 8.1: one variant run for a few
// simulated milliseconds after a warm-up, and its table row checked against the run's own report (the
// same measured window, migrations and cgroup usage; busy time per package adding up to the machine's),
// and bad options refused with exit status 2.
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {
using warmsched::test::file_text;
// The script's stdout and stderr (in .out) and exit status.
warmsched::test::cli_result run_script(const std::string& args) {
    return warmsched::test::run_bench_script("bench/throttle_steady.sh", args);
}

double stat_value(const std::string& stats, const std::string& key) {
    std::smatch m;
    REQUIRE(std::regex_search(stats, m, std::regex("\n" + key + " +([0-9.e+-]+) ")));
    return std::stod(m[1]);
}

std::vector<std::string> cells(const std::string& row) {
    std::vector<std::string> c;
    std::stringstream s(row);
    std::string cell;
    std::getline(s, cell, '|'); // before the first bar
    while (std::getline(s, cell, '|')) {
        const auto a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
        c.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
    }
    return c;
}
} // namespace

TEST_CASE("throttle_steady.sh runs a variant and its row agrees with the run's own report") {
    const fs::path out = fs::temp_directory_path() / ("warmsched-throttle-steady-" + std::to_string(::getpid()));
    fs::remove_all(out);
    const auto o =
        run_script("--out " + out.string() + " --duration 5ms --warmup 2ms -j 1 --only '^emr-cfsrq$'");
    INFO(o.out);
    REQUIRE(o.status == 0);
    std::smatch m;
    REQUIRE(std::regex_search(o.out, m, std::regex(R"(\n(\| emr-cfsrq \|[^\n]*))")));
    const std::vector<std::string> c = cells(m[1]);
    REQUIRE(c.size() == 14);
    const std::string stats = file_text(out / "emr-cfsrq" / "stats.txt");
    const std::string report = file_text(out / "emr-cfsrq.txt");
    // The run is the section's experiment on EMR (240 CPUs), stopped after 5 ms, measured after 2 ms.
    const double sim = stat_value(stats, "simSeconds");
    CHECK(sim == Approx(0.003));
    CHECK(stat_value(stats, "warmupSeconds") == Approx(0.002));
    CHECK(c[1] == "0.002-0.005");
    CHECK(report.find("measured           from 0.002000 s to 0.005000 s") != std::string::npos);
    CHECK(report.find("emr-8580-2s (240 CPUs)") != std::string::npos);
    // Migrations and the level-1 groups' usage, as the report prints them.
    REQUIRE(std::regex_search(report, m, std::regex(R"(\nmigrations +([0-9]+) )")));
    CHECK(c[6] == m[1].str());
    for (int g = 0; g < 2; ++g) {
        REQUIRE(std::regex_search(report, m, std::regex("\n +/tenant" + std::to_string(g) + R"( +5000000 100000 +([0-9.]+) )")));
        const double usage = std::stod(m[1]);
        CHECK(usage > 0);
        const std::string col = c[3];
        const double printed = std::stod(g == 0 ? col.substr(0, col.find(',')) : col.substr(col.find(',') + 1));
        CHECK(printed == Approx(usage).margin(0.006));
    }
    // Busy time per package: the two add up to the machine's CPU time less its idle time, and the run
    // starts on package 0 (the hackbench mains fork from CPU 0).
    const double p0 = std::stod(c[5].substr(0, c[5].find('/')));
    const double p1 = std::stod(c[5].substr(c[5].find('/') + 1));
    const double busy = 240 * sim - stat_value(stats, "kernel.idleSeconds");
    CHECK(p0 + p1 == Approx(busy).margin(0.11));
    CHECK(p0 > 0);
    // Migrations by distance: SMT / same LLC / other LLC / other node, from the migration report's rows;
    // EMR has one LLC per socket, so nothing moves to another LLC of the same node.
    CHECK(std::regex_match(c[7], std::regex(R"([0-9]+ / [0-9]+ / 0 / [0-9]+)")));
    // wall, CPU s, max RSS from /usr/bin/time -v; simulated seconds per wall second.
    CHECK(std::regex_match(c[12], std::regex(R"([0-9:.]+, [0-9]+, [0-9]+ MB)")));
    CHECK(std::stod(c[13]) > 0);
    // A second call finds the results and does not run again.
    const auto before = fs::last_write_time(out / "emr-cfsrq.txt");
    const auto again =
        run_script("--out " + out.string() + " --duration 5ms --warmup 2ms -j 1 --only '^emr-cfsrq$'");
    CHECK(again.status == 0);
    CHECK(fs::last_write_time(out / "emr-cfsrq.txt") == before);
    fs::remove_all(out);
}

TEST_CASE("throttle_steady.sh refuses bad options with exit status 2") {
    for (const std::string args : {"--bogus", "-j", "-j 0", "--duration 2", "--warmup 1", "extra"}) {
        const auto o = run_script(args);
        INFO(args << ": " << o.out);
        CHECK(o.status == 2);
        CHECK(o.out.find("throttle_steady.sh: ") != std::string::npos);
    }
}
