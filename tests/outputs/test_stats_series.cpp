// stats-series.csv (`stats_period:`): a row per period whose totals add up to the run's, for every stat of
// stats.json, with the run itself the same as without the series (its files equal), with and without a
// warm-up and a duration. Bad periods are one line and exit status 2, with nothing written.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/file_text.h"
#include "support/throttled_pair_experiment.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;
using warmsched::test::file_text;
using warmsched::test::run_cli;
using warmsched::test::stats_json_of;
using warmsched::test::throttled_pair_experiment;

namespace {

fs::path temp(const std::string& name) {
    return warmsched::test::temp_path("series", name);
}

// stats-series.csv as columns by name (its stat names have no commas or quotes).
struct table {
    std::vector<std::string> names;
    std::map<std::string, std::vector<std::string>> columns;
    std::size_t rows = 0;
};
table read_series(const fs::path& dir) {
    std::istringstream in(file_text(dir / "stats-series.csv"));
    table t;
    std::string line;
    auto fields = [](const std::string& l) {
        std::vector<std::string> f;
        std::stringstream ss(l);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        if (!l.empty() && l.back() == ',') f.emplace_back();
        return f;
    };
    REQUIRE(std::getline(in, line));
    t.names = fields(line);
    while (std::getline(in, line)) {
        const auto f = fields(line);
        REQUIRE(f.size() == t.names.size());
        for (std::size_t i = 0; i < f.size(); ++i) t.columns[t.names[i]].push_back(f[i]);
        ++t.rows;
    }
    return t;
}

bool is_level(const std::string& name) {
    auto ends = [&](const std::string& s) {
        return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    return ends(".setSampling") || ends(".trackerBytes") || name == "warmupSeconds";
}
bool is_time_split(const std::string& name) { // cgroup user/system time: see test_measurement_window.cpp
    return name.find(".user_usec") != std::string::npos || name.find(".system_usec") != std::string::npos;
}

// Every integer total of `whole` (a stats.json) is the sum of its column; every level the last row's value.
void sums_are_totals(const table& t, const nlohmann::json& whole) {
    unsigned moved = 0;
    for (auto it = whole.begin(); it != whole.end(); ++it) {
        const std::string& name = it.key();
        INFO(name);
        REQUIRE(t.columns.count(name) == 1);
        const auto& col = t.columns.at(name);
        const auto& v = it.value()["value"];
        if (is_level(name)) {
            CHECK(col.back() == v.dump());
        } else if (is_time_split(name)) {
            continue;
        } else if (v.is_number_unsigned()) {
            std::uint64_t sum = 0, nonzero = 0;
            for (const auto& c : col) {
                sum += std::stoull(c);
                nonzero += c != "0";
            }
            CHECK(sum == v.get<std::uint64_t>());
            moved += nonzero > 1;
        } else if (v.is_number()) {
            double sum = 0;
            for (const auto& c : col) sum += std::stod(c);
            CHECK(std::abs(sum - v.get<double>()) <= 1e-9 * std::max(1.0, std::abs(v.get<double>())));
        }
    }
    CHECK(moved > 100); // switches, accesses, throttling... counted in more than one period
}

} // namespace

TEST_CASE("stats_period: a row per period, whose totals add up to the run's, and the run is the same") {
    const fs::path exp = temp("exp.yaml"), series = temp("series"), window = temp("window"),
                   whole = temp("whole");
    std::ofstream(exp) << throttled_pair_experiment;
    // Stops at 5, 9 (the warm-up), 10, 15 and 20 ms; the last row ends with the run at 24 ms.
    const auto rs = run_cli("run " + exp.string() + " --out " + series.string() +
                            " -p duration=24ms -p warmup=9ms -p stats_period=5ms");
    const auto rw =
        run_cli("run " + exp.string() + " --out " + window.string() + " -p duration=24ms -p warmup=9ms");
    const auto rf = run_cli("run " + exp.string() + " --out " + whole.string() + " -p duration=24ms");
    INFO(rs.err << rw.err << rf.err);
    REQUIRE(rs.status == 0);
    REQUIRE(rw.status == 0);
    REQUIRE(rf.status == 0);
    CHECK(rs.out.find("stats-series.csv") != std::string::npos);

    // The series changes nothing else: the same files as the run without it.
    for (const std::string f :
         {"report.txt", "stats.txt", "schedstat/v15-start.txt", "schedstat/v15-end.txt",
          "schedstat/v17-end.txt", "cgroup/a/cpu.stat", "cgroup/a/cpu.stat.start", "cgroup/b/cpu.stat"}) {
        INFO(f);
        CHECK(file_text(series / f) == file_text(window / f));
    }
    CHECK(stats_json_of(series) == stats_json_of(window));
    CHECK(!fs::exists(window / "stats-series.csv"));

    const table t = read_series(series);
    REQUIRE(t.rows == 5);
    CHECK(t.names[0] == "start_s");
    CHECK(t.names[1] == "end_s");
    CHECK(t.columns.at("start_s") == std::vector<std::string>{"0.0", "0.005", "0.01", "0.015", "0.02"});
    CHECK(t.columns.at("end_s") == std::vector<std::string>{"0.005", "0.01", "0.015", "0.02", "0.024"});
    // The periods cover the whole run, the warm-up included: their totals are the whole run's.
    sums_are_totals(t, stats_json_of(whole));
    // /a's 10 ms bandwidth periods: a 5 ms row sees at most one of them end, and some are throttled.
    unsigned throttled = 0;
    for (const std::string g : {"/a", "/b"})
        for (const auto& c : t.columns.at("kernel.cgroup." + g + ".nr_periods")) CHECK(std::stoull(c) <= 1);
    for (const auto& c : t.columns.at("kernel.cgroup./a.nr_throttled")) throttled += std::stoul(c);
    CHECK(throttled >= 1);
    for (std::size_t r = 0; r < t.rows; ++r) { // cpu.stat's user and system time split each period's usage
        INFO("row " << r);
        for (const std::string g : {"/a", "/b"}) {
            const auto col = [&](const std::string& k) {
                return std::stoull(t.columns.at("kernel.cgroup." + g + "." + k)[r]);
            };
            CHECK(col("user_usec") + col("system_usec") <= col("usage_usec") + 1);
            CHECK(col("user_usec") + col("system_usec") + 2 >= col("usage_usec"));
        }
    }
    for (const auto& d : {exp, series, window, whole}) fs::remove_all(d);
}

TEST_CASE("stats_period: a run that ends with its workloads ends where it would, its last row with it") {
    const fs::path series = temp("to-the-end"), plain = temp("plain");
    const std::string cmd = " -- hackbench -p -g 2 -l 100";
    const auto rs =
        run_cli("run --platform zen3-5950x --out " + series.string() + " -p stats_period=1ms" + cmd);
    const auto rp = run_cli("run --platform zen3-5950x --out " + plain.string() + cmd);
    INFO(rs.err << rp.err);
    REQUIRE(rs.status == 0);
    REQUIRE(rp.status == 0);
    CHECK(file_text(series / "report.txt") == file_text(plain / "report.txt"));
    const auto p = stats_json_of(plain);
    const double sim_s = p["simSeconds"]["value"].get<double>();
    REQUIRE(sim_s > 0.003); // several periods
    REQUIRE(sim_s < 0.05);
    const table t = read_series(series);
    CHECK(t.rows == static_cast<std::size_t>(std::ceil(sim_s / 0.001)));
    CHECK(std::stod(t.columns.at("end_s").back()) == sim_s);
    CHECK(std::stod(t.columns.at("start_s").back()) == (t.rows - 1) * 0.001);
    CHECK(stats_json_of(series) == p);
    fs::remove_all(series);
    fs::remove_all(plain);
}

TEST_CASE("stats_period: one line and exit status 2 for a period that cannot be, with nothing written") {
    const fs::path out = temp("bad");
    const std::string run = "run --platform zen3-5950x --out " + out.string();
    auto r = run_cli(run + " -p duration=10ms -p stats_period=10ms -- hackbench -l 10");
    CHECK(r.status == 2);
    CHECK(r.err == "error: -p stats_period=10ms: stats_period: a period (10ms) must be shorter than the run "
                   "(duration: 10ms)\n");
    r = run_cli(run + " -p duration=2s -p stats_period=100us -- hackbench -l 10");
    CHECK(r.status == 2);
    CHECK(r.err == "error: -p stats_period=100us: stats_period: at most 10000 periods in a run (20000 in "
                   "duration: 2000ms)\n");
    r = run_cli(run + " -p stats_period=100ps -- hackbench -l 10");
    CHECK(r.status == 2);
    CHECK(r.err == "error: -p stats_period=100ps: stats_period: '100ps' is not a whole number of nanoseconds (the "
                   "model's clock counts ns, as the kernel's does)\n");
    r = run_cli(run + " -p stats_period=often -- hackbench -l 10");
    CHECK(r.status == 2);
    CHECK(r.err.find("stats_period") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    r = run_cli("run " + std::string(WARMSCHED_SOURCE_DIR) + "/configs/experiments/probes.yaml --out " +
                out.string() + " -p stats_period=1ms");
    CHECK(r.status == 2);
    CHECK(r.err.find("stats_period: the probes write no stats series: a stats period is for workload runs") !=
          std::string::npos);
    CHECK(!fs::exists(out));
}
