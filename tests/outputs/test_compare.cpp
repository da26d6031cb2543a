// `warmsched run --repeat N` and `warmsched compare`: the statistics (Welch's t-test against hand-computed
// p-values) and, end to end, that the table's Amean and percentage come from the per-seed numbers read
// independently from each run's report.txt and stats.json.
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/compare/compare_table.h"
#include "sim/compare/sample_stats.h"
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using warmsched::sim::percent_cell;
using warmsched::sim::summarize;
using warmsched::sim::welch_p_value;

TEST_CASE("summary statistics and Welch's t-test match hand-computed values") {
    const auto s = summarize({10, 11, 12, 13});
    CHECK(s.amean == Approx(11.5));
    CHECK(s.stddev == Approx(std::sqrt(5.0 / 3.0))); // sample stddev, divisor n-1
    CHECK(s.coeffvar == Approx(100 * std::sqrt(5.0 / 3.0) / 11.5));
    CHECK(s.hmean == Approx(4 / (1 / 10.0 + 1 / 11.0 + 1 / 12.0 + 1 / 13.0)));
    CHECK(s.min == 10);
    CHECK(s.max == 13);
    // t = 3.674, df = 4: p = 0.02131 (integrated by hand from the t density): significant.
    const double p1 = welch_p_value({1, 2, 3}, {4, 5, 6});
    CHECK(p1 == Approx(0.021312).epsilon(1e-4));
    CHECK(percent_cell(2, 5, p1) == "*  150.00%*");
    // t = 1.225, df = 4: p = 0.2879: not significant.
    const double p2 = welch_p_value({1, 2, 3}, {2, 3, 4});
    CHECK(p2 == Approx(0.287864).epsilon(1e-4));
    CHECK(percent_cell(2, 3, p2) == "(   50.00%)");
    // Unequal variances and sizes: Welch's df = 3.2347 (not the pooled 5), t = 1.890, p = 0.14847.
    CHECK(welch_p_value({10, 11, 12, 13}, {12, 14, 16}) == Approx(0.148471).epsilon(1e-4));
    // Not computable: one sample, or no spread at all.
    CHECK(std::isnan(welch_p_value({1}, {2, 3})));
    CHECK(std::isnan(welch_p_value({1, 1}, {2, 2})));
    CHECK(percent_cell(2, 2, welch_p_value({1, 1}, {2, 2})) == "(    0.00%)");
    // mmtests' cells: a gain, positive when better (a lower time, a higher throughput).
    CHECK(warmsched::sim::gain_cell(2, 3, false, false) == "( -50.00%)");
    CHECK(warmsched::sim::gain_cell(2, 3, true, true) == "*  50.00%*");
    CHECK(warmsched::sim::gain_cell(1.3977, 1.0447, false, true) == "*  25.26%*"); // formats.md's example
    CHECK(warmsched::sim::gain_cell(0, 3, false, false) == "(    n/a)");
    CHECK(warmsched::sim::metric_token("hackbench Time (s)") == "hackbench-Time-s");
    CHECK(warmsched::sim::metric_token("other-L3 share (%)") == "other-L3-share-pct");
    CHECK(warmsched::sim::metric_token("hackbench Time (s) #2") == "hackbench-Time-s#2");
    CHECK(warmsched::sim::metric_token("lb gained PKG/DIE") == "lb-gained-PKG/DIE");
    CHECK(warmsched::sim::higher_is_better("tbench Throughput MB/s"));
    CHECK_FALSE(warmsched::sim::higher_is_better("migrations"));
}

using warmsched::test::file_text;

namespace {
// Per-seed values read straight from the files: hackbench's "Time:" and stats.json's kernel.migrations.
std::vector<double> seed_values(const fs::path& dir, bool time) {
    std::vector<double> v;
    for (int seed = 1; seed <= 3; ++seed) {
        const fs::path run = dir / ("seed-" + std::to_string(seed));
        std::smatch m;
        const std::string text = file_text(run / (time ? "report.txt" : "stats.json"));
        const std::regex re(time ? R"((?:^|\n)Time: ([0-9.]+)\n)"
                                 : R"re("kernel\.migrations": \{"value": (\d+))re");
        REQUIRE(std::regex_search(text, m, re));
        v.push_back(std::stod(m[1].str()));
    }
    return v;
}

double mean(const std::vector<double>& v) {
    return (v[0] + v[1] + v[2]) / 3;
}
} // namespace

TEST_CASE("compare of two repeated runs prints their per-seed means and the change, in mmtests' layout and "
          "--wide") {
    const fs::path root = fs::temp_directory_path() / "warmsched-compare";
    fs::remove_all(root);
    for (const char* kernel : {"cfs", "eevdf"}) {
        const auto r = warmsched::test::run_cli("run --platform zen3-5950x --kernel " + std::string(kernel) +
                                                " --repeat 3 --out " + (root / kernel).string() +
                                                " -- hackbench -p -g 2 -l 10");
        INFO(r.err);
        REQUIRE(r.status == 0);
        // Each seed's usual output, after its marker line.
        const std::regex marker(R"((?:^|\n)=== seed (\d) ===\n)");
        std::vector<std::string> seeds;
        for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), marker); it != std::sregex_iterator();
             ++it)
            seeds.push_back((*it)[1].str());
        CHECK(seeds == std::vector<std::string>{"1", "2", "3"});
        CHECK(std::regex_search(r.out, std::regex(R"(\nTime: [0-9.]+\n)")));
        for (int s = 1; s <= 3; ++s) {
            const fs::path run = root / kernel / ("seed-" + std::to_string(s));
            CHECK(file_text(run / "config.yaml").find("seed: " + std::to_string(s)) != std::string::npos);
        }
    }
    // The default table: mmtests' compare-kernels layout, a row a statistic and metric, every token where
    // mmtests' readers look for it.
    const auto mm =
        warmsched::test::run_cli("compare " + (root / "cfs").string() + " " + (root / "eevdf").string());
    INFO(mm.out << mm.err);
    REQUIRE(mm.status == 0);
    {
        std::istringstream lines(mm.out);
        std::string line;
        std::getline(lines, line);
        CHECK(std::regex_match(line, std::regex(R"( +cfs +eevdf)")));
        const std::regex row(
            R"((Min|Amean|Hmean|Stddev|CoeffVar|Max) +(\S+)( +-?[0-9]+\.[0-9]{4} (\( *-?[0-9.]+%\)|\(    n/a\)|\* *-?[0-9.]+%\*)){2})");
        unsigned rows = 0;
        while (std::getline(lines, line) && line.rfind("runs:", 0) != 0) {
            if (line.empty()) continue;
            INFO(line);
            CHECK(std::regex_match(line, row));
            ++rows;
        }
        CHECK(rows >= 5 * 10);
        // Amean of the migrations: the means at 4 decimals, the base's (   0.00%), the change as a gain
        // (fewer is better: (base - new) / base), * when Welch's test says p < 0.05.
        std::smatch m;
        REQUIRE(std::regex_search(
            mm.out, m,
            std::regex(
                R"(\nAmean     migrations +([0-9]+\.[0-9]{4}) \(   0\.00%\) +([0-9]+\.[0-9]{4}) ([*(]) *(-?[0-9.]+)%([*)])\n)")));
        const auto a = seed_values(root / "cfs", false), b = seed_values(root / "eevdf", false);
        char want[32];
        std::snprintf(want, sizeof want, "%.4f", mean(a));
        CHECK(m[1].str() == want);
        std::snprintf(want, sizeof want, "%.4f", mean(b));
        CHECK(m[2].str() == want);
        CHECK(std::stod(m[4].str()) == Approx(100 * (mean(a) - mean(b)) / mean(a)).margin(0.006));
        const double p = welch_p_value(a, b);
        CHECK((m[3].str() == "*") == (!std::isnan(p) && p < 0.05));
        CHECK(mm.out.find("\nAmean     hackbench-Time-s ") != std::string::npos);
    }
    // --wide: warmsched's own view.
    const auto c = warmsched::test::run_cli("compare --wide " + (root / "cfs").string() + " " +
                                            (root / "eevdf").string());
    INFO(c.out << c.err);
    REQUIRE(c.status == 0);
    CHECK(std::regex_search(c.out, std::regex(R"(^ +cfs +eevdf\n)")));
    for (const bool time : {true, false}) {
        const std::string metric = time ? R"(hackbench Time \(s\))" : "migrations";
        const std::regex row(
            "\\nAmean +" + metric +
            R"( +([-0-9.e+]+) \( *([-0-9.e+]+)\) +([-0-9.e+]+) \( *([-0-9.e+]+)\) ([*(]) *([-0-9.]+%|n/a)([*)])\n)");
        std::smatch m;
        REQUIRE(std::regex_search(c.out, m, row));
        const auto a = seed_values(root / "cfs", time), b = seed_values(root / "eevdf", time);
        CHECK(std::stod(m[1].str()) == Approx(mean(a)).epsilon(1e-5));
        CHECK(std::stod(m[2].str()) == Approx(summarize(a).stddev).epsilon(1e-3));
        CHECK(std::stod(m[3].str()) == Approx(mean(b)).epsilon(1e-5));
        CHECK(std::stod(m[4].str()) == Approx(summarize(b).stddev).epsilon(1e-3));
        if (mean(a) == 0) // hackbench prints 3 decimals: a run of a few ms reads "Time: 0.000"
            CHECK(m[6].str() == "n/a");
        else
            CHECK(std::stod(m[6].str()) == Approx(100 * (mean(b) - mean(a)) / mean(a)).margin(0.006));
        const double p = welch_p_value(a, b);
        CHECK((m[5].str() == "*") == (!std::isnan(p) && p < 0.05));
        CHECK(m[5].str() == (m[7].str() == "*" ? "*" : "("));
    }
    for (const char* stat : {"Min", "Hmean", "Stddev", "CoeffVar", "Max"})
        CHECK(c.out.find(std::string("\n") + stat + std::string(10 - std::string(stat).size(), ' ') +
                         "hackbench Time (s)") != std::string::npos);
    // A directory that is not a results directory: one clear error line.
    const auto bad = warmsched::test::run_cli("compare " + root.string());
    CHECK(bad.status == 2);
    CHECK(bad.err.find("error: compare: ") == 0);
    // A stats.json that is not one (truncated, a value that is not a number): one line naming the file.
    const fs::path seed1 = root / "cfs" / "seed-1" / "stats.json";
    const std::string whole = file_text(seed1);
    // Without its manifest (a directory of a warmsched from before it), so that the reader itself meets
    // the broken file; with it, compare refuses the run before reading (test_results_safety.cpp).
    fs::remove(root / "cfs" / "seed-1" / "manifest.txt");
    for (const std::string& broken :
         {whole.substr(0, whole.size() / 2),
          std::regex_replace(whole, std::regex(R"("kernel\.migrations": \{"value": \d+)"),
                             "\"kernel.migrations\": {\"value\": \"many\"")}) {
        std::ofstream(seed1) << broken;
        const auto r =
            warmsched::test::run_cli("compare " + (root / "cfs").string() + " " + (root / "eevdf").string());
        INFO(r.err);
        CHECK(r.status == 2);
        CHECK(r.err.rfind("error: " + seed1.string() + ": not a warmsched stats.json (", 0) == 0);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}

namespace {
// Every file under `dir`, by relative path, with its contents; the recorded command line (config.yaml's
// header, the JSON files' "command_line"), which names -j and --out, is blanked.
std::map<std::string, std::string> tree_of(const fs::path& dir) {
    std::map<std::string, std::string> files;
    static const std::regex line(R"((# Command line: |"command_line": ?")[^\n"]*)");
    for (const auto& f : fs::recursive_directory_iterator(dir))
        if (f.is_regular_file())
            files[fs::relative(f.path(), dir).string()] = std::regex_replace(file_text(f.path()), line, "$1");
    return files;
}
// stdout without the lines that name the results directory.
std::string without_paths(const std::string& out) {
    return std::regex_replace(out, std::regex(R"((^|\n)results: [^\n]*)"), "$1results:");
}
} // namespace

TEST_CASE("run --repeat runs its seeds in parallel with -j, with the output and results of one at a time") {
    const fs::path root = fs::temp_directory_path() / "warmsched-repeat-jobs";
    fs::remove_all(root);
    std::map<std::string, warmsched::test::cli_result> runs;
    for (const char* jobs : {"1", "4"}) {
        runs[jobs] =
            warmsched::test::run_cli("run --platform zen3-5950x --repeat 4 -j " + std::string(jobs) +
                                     " --out " + (root / jobs).string() + " -- hackbench -p -g 2 -l 20");
        INFO(runs[jobs].err);
        REQUIRE(runs[jobs].status == 0);
    }
    // The same text in seed order (the seed markers, then each run's own output), and byte-identical
    // results directories but for the command line they record: four seeds that differ from each other,
    // and agree between -j 1 and -j 4.
    CHECK(without_paths(runs["1"].out) == without_paths(runs["4"].out));
    const auto one = tree_of(root / "1"), four = tree_of(root / "4");
    REQUIRE(one.size() == four.size());
    for (const auto& [path, text] : one) {
        INFO(path);
        REQUIRE(four.count(path) == 1);
        CHECK(four.at(path) == text);
    }
    CHECK(one.at("seed-1/report.txt") != one.at("seed-2/report.txt"));
    // A job count of 0 is refused (the exit status of CLI11's refusals is issue 19's).
    const auto bad = warmsched::test::run_cli("run --repeat 2 -j 0 -- hackbench -p -g 1 -l 1");
    CHECK(bad.status != 0);
    CHECK(bad.err.find("--jobs") != std::string::npos);
    CHECK(bad.out.find("=== seed") == std::string::npos);
}
