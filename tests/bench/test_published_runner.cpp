// bench/published/validate.sh, the runner of docs/validation.md section 10: every published figure of
// published-benchmarks.md has its row, a time is compared per loop from two loop counts so the start-up
// cancels (simulated seconds of two loop counts), the ratio is model over published, runs two rows share are simulated once, and a malformed
// rows file is refused with exit status 2 and the row named.
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {
using warmsched::test::file_text;
// The script's stdout and stderr (in .out) and exit status.
warmsched::test::cli_result run_validate(const std::string& args) {
    return warmsched::test::run_bench_script("bench/published/validate.sh", args);
}

fs::path scratch(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("warmsched-published-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// stats.txt's simSeconds of a run.
double sim_seconds(const fs::path& dir) {
    std::smatch m;
    const std::string t = file_text(dir / "stats.txt");
    REQUIRE(std::regex_search(t, m, std::regex(R"(\nsimSeconds +([0-9.e+-]+) )")));
    return std::stod(m[1]);
}

// The printed "Time: X" of a hackbench run's stdout.
double hackbench_time(const fs::path& txt) {
    std::smatch m;
    const std::string t = file_text(txt);
    REQUIRE(std::regex_search(t, m, std::regex(R"(\nTime: ([0-9.]+)\n)")));
    return std::stod(m[1]);
}
} // namespace

TEST_CASE("published runner: every figure of the eight published tables has a well-formed row") {
    // published-benchmarks.md: A 11 NPS1 + NPS2 128 + NPS4 64/128, and NPS1/NPS4 128 again after a warmup; B 5 + NPS2/NPS4 + processes 1/16 + sockets
    // 1/16 + 10 schbench; C baseline and C2 off; D 16 groups and one group on a CCX; E 2 x 5; F 6; G 3+2+2+5;
    // H 4 pipes + 2 sockets + 4 schbench percentiles.
    const std::map<std::string, int> figures{{"A", 16}, {"B", 21}, {"C", 2}, {"D", 2},
                                             {"E", 10}, {"F", 6},  {"G", 12}, {"H", 10}};
    std::map<std::string, int> rows;
    std::istringstream in(file_text(fs::path(WARMSCHED_SOURCE_DIR) / "bench/published/rows.txt"));
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#' || line.rfind("shape ", 0) == 0) continue;
        ++rows[line.substr(0, line.find(' '))];
    }
    CHECK(rows == figures);
    // The runner checks every row (units, loop counts, arguments) before it runs any; none is selected here.
    const auto r = run_validate("--out " + scratch("none").string() + " --only '^none$'");
    CHECK(r.status == 0);
    CHECK(r.out.find("table row") == 0);
}

TEST_CASE("published runner: a time is compared per loop, and a figure two rows share is simulated once") {
    const fs::path d = scratch("rows");
    std::ofstream(d / "rows.txt")
        << "# fixture\n"
           "Z hb   2.0  s    100000 400 --platform zen3-5950x --kernel cfs -- hackbench -p -g 2 -l @L\n"
           "Z hbs  2.0  s    100000 400:100 --platform zen3-5950x --kernel cfs -- hackbench -p -g 2 -l @L\n"
           "Z tb   500  MB/s -      -   --platform haswell-i7-4790 -- tbench -t 0.01 1\n"
           "Z tb2  1000 MB/s -      -   --platform haswell-i7-4790 -- tbench -t 0.01 1\n"
           "Z sb50 4    p50-us   -      -   --platform haswell-i7-4790 -- schbench -m 1 -t 2 -r 0.05\n"
           "Z sb999 8   p99.9-us -      -   --platform haswell-i7-4790 -- schbench -m 1 -t 2 -r 0.05\n"
           "shape Z/tb2 Z/tb twice the published rate\n";
    const auto r = run_validate("--rows " + (d / "rows.txt").string() + " --out " + (d / "out").string() + " -j 2");
    INFO(r.out);
    REQUIRE(r.status == 0);

    // hackbench: the simulated seconds of the 400-loop run less those of the 200-loop run, over 200 loops,
    // scaled to the posting's 100000 loops.
    const double s400 = sim_seconds(d / "out/Z-hb-l400"), s200 = sim_seconds(d / "out/Z-hb-l200");
    REQUIRE(s400 > s200);
    const double per_loop = (s400 - s200) / 200, t400 = hackbench_time(d / "out/Z-hb-l400.txt");
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(Z +hb +2\.0 +([0-9.e+]+) +([0-9.]+) +([0-9.]+) +(yes|no))")));
    CHECK(std::stod(m[1]) == Approx(per_loop * 100000).epsilon(1e-3));
    CHECK(std::stod(m[2]) == Approx(std::stod(m[1]) / 2.0).epsilon(0.01));
    CHECK(std::stod(m[3]) == Approx((t400 / 400) / per_loop).margin(0.01)); // "settled"
    CHECK((m[4] == "yes") == (std::stod(m[2]) >= 0.5 && std::stod(m[2]) <= 2));
    // L:S loops: the difference of the 400-loop run (hb's, shared) and a 100-loop run, over 300 loops.
    const double s100 = sim_seconds(d / "out/Z-hbs-l100");
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(Z +hbs +2\.0 +([0-9.e+]+) +([0-9.]+) +([0-9.]+) +(yes|no))")));
    CHECK(std::stod(m[1]) == Approx((s400 - s100) / 300 * 100000).epsilon(1e-3));
    CHECK(std::stod(m[3]) == Approx((t400 / 400) / ((s400 - s100) / 300)).margin(0.01));
    CHECK_FALSE(fs::exists(d / "out/Z-hbs-l400.txt"));

    // tbench: the Throughput line; tb2 has tb's arguments, so it reads tb's run.
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(Z +tb +500 +([0-9.]+) +([0-9.]+) +- )")));
    const double rate = std::stod(m[1]);
    CHECK(file_text(d / "out/Z-tb.txt").find("Throughput " + std::string(m[1]) + " MB/sec") != std::string::npos);
    CHECK(std::stod(m[2]) == Approx(rate / 500).epsilon(0.01));
    CHECK(std::regex_search(r.out, std::regex("Z +tb2 +1000 +" + std::string(m[1]) + " ")));
    CHECK_FALSE(fs::exists(d / "out/Z-tb2.txt"));

    // schbench: the wakeup latencies' 50.0th and 99.9th lines of the one run both rows share.
    const std::string sb = file_text(d / "out/Z-sb50.txt");
    const std::pair<const char*, const char*> percentiles[] = {{"sb50", R"(50\.0th)"}, {"sb999", R"(99\.9th)"}};
    for (const auto& [row, line] : percentiles) {
        INFO(row);
        REQUIRE(std::regex_search(sb, m, std::regex(std::string("Wakeup Latencies[^]*?") + line + ": ([0-9]+)")));
        CHECK(std::regex_search(r.out, std::regex(std::string("Z +") + row + " +[48] +" + m[1].str() + " ")));
    }
    CHECK_FALSE(fs::exists(d / "out/Z-sb999.txt"));

    // The shape line: published 1000/500 = 2, the model's 1 (the same run): not the same direction, and
    // a factor of 2 apart, which is still "within 2x".
    CHECK(std::regex_search(r.out, std::regex(R"(twice the published rate \(Z/tb2 / Z/tb\) +2\.000 +1\.000  no, yes)")));
}

TEST_CASE("published runner: a malformed row is refused with status 2, naming the row") {
    const fs::path d = scratch("bad");
    std::ofstream(d / "unit.txt") << "Z hb 2.0 ms 100 10 --platform zen3-5950x -- hackbench -l @L\n";
    auto r = run_validate("--rows " + (d / "unit.txt").string() + " --out " + d.string());
    CHECK(r.status == 2);
    CHECK(r.out.find("row Z/hb: unknown unit 'ms'") != std::string::npos);

    std::ofstream(d / "loops.txt") << "Z hb 2.0 s - - --platform zen3-5950x -- hackbench -l @L\n";
    r = run_validate("--rows " + (d / "loops.txt").string() + " --out " + d.string());
    CHECK(r.status == 2);
    CHECK(r.out.find("row Z/hb: a time row needs posting and model loop counts") != std::string::npos);
    std::ofstream(d / "short.txt") << "Z hb 2.0 s 100 400:400 --platform zen3-5950x -- hackbench -l @L\n";
    r = run_validate("--rows " + (d / "short.txt").string() + " --out " + d.string());
    CHECK(r.status == 2);
    CHECK(r.out.find("row Z/hb: a time row needs posting and model loop counts, L or L:S with S < L (got '100' "
                      "'400:400')") != std::string::npos);

    r = run_validate("--bogus");
    CHECK(r.status == 2);
    CHECK(r.out.find("unknown option '--bogus'") != std::string::npos);
    r = run_validate("-j 0");
    CHECK(r.status == 2);
    CHECK(r.out.find("-j 0: expected a number of runs at once >= 1") != std::string::npos);
    r = run_validate("--only");
    CHECK(r.status == 2);
    CHECK(r.out.find("--only needs a value") != std::string::npos);
}
