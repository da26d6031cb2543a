// stats.txt follows gem5's text layout (blocks between the Begin/End markers, one stat a line: the name
// padded to 40, the value, `# description (Unit)`), and stats.json carries exactly the same stats, both
// from the one registry: integers exact in both, real values at full precision in stats.json. Every
// model's group is there (system.coreN.l1d/l2, system.llcN, system.homeN, system.memN), consistent with
// the harts' counts.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/file_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

using warmsched::test::file_text;

namespace {
std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}
} // namespace

TEST_CASE("stats.txt has gem5's layout and stats.json the same stats") {
    const fs::path out = fs::temp_directory_path() / "warmsched-stats-json";
    fs::remove_all(out);
    const auto r = warmsched::test::run_cli("run --platform zen3-5950x --out " + out.string() +
                                            " -- hackbench -p -g 1 -l 10");
    REQUIRE(r.status == 0);
    // stderr is a file here, not a terminal: no progress line, only the closing speed line.
    CHECK(r.err.find('\r') == std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    const std::string txt = file_text(out / "stats.txt"), json = file_text(out / "stats.json");
    const auto doc = nlohmann::json::parse(json);
    REQUIRE(doc.at("simulation").size() == 1);
    const auto& block = doc.at("simulation")[0];
    const std::regex stat_re(R"(^(\S+) +(\S+) +# (.*) \((\w+)\)$)");
    std::istringstream in(txt);
    unsigned stats = 0, begins = 0, ends = 0;
    for (std::string l; std::getline(in, l);) {
        if (l == "---------- Begin Simulation Statistics ----------") {
            ++begins;
            continue;
        }
        if (l == "---------- End Simulation Statistics   ----------") {
            ++ends;
            continue;
        }
        if (l.empty() || begins == ends) continue; // outside a block
        INFO(l);
        std::smatch m;
        REQUIRE(std::regex_match(l, m, stat_re));
        CHECK(l.find_first_not_of(' ', m[1].length()) > 40); // the name padded to 40 columns
        ++stats;
        // The same stat in stats.json, once, with the same description and unit; an integer's value is
        // the same digits, a real value prints as stats.txt's 6 significant digits.
        CHECK(occurrences(json, "\"" + m[1].str() + "\": {\"value\": ") == 1);
        const auto& s = block.at(m[1].str());
        CHECK(s.at("description") == m[3].str());
        CHECK(s.at("unit") == m[4].str());
        if (s.at("value").is_number_unsigned()) {
            CHECK(std::to_string(s.at("value").get<std::uint64_t>()) == m[2].str());
        } else {
            char b[32];
            std::snprintf(b, sizeof b, "%.6g", s.at("value").get<double>());
            CHECK(b == m[2].str());
        }
    }
    CHECK(begins == 1);
    CHECK(ends == 1);
    CHECK(stats > 100);
    CHECK(occurrences(json, "\"value\":") == stats);
    CHECK(occurrences(json, "{") == occurrences(json, "}"));
    CHECK(json.rfind("{\n  \"run\": {\"command_line\":", 0) == 0); // the provenance, then the stats
    CHECK(json.find("},\n  \"simulation\": [\n") != std::string::npos);
}

TEST_CASE("stats are exact integers, and every cache level's counters are there and add up") {
    const fs::path out = fs::temp_directory_path() / "warmsched-stats-exact";
    fs::remove_all(out);
    const auto r = warmsched::test::run_cli("run --platform zen3-5950x --seed 1 --out " + out.string() +
                                            " -- hackbench -p -g 10 -l 100");
    REQUIRE(r.status == 0);
    const auto block = nlohmann::json::parse(file_text(out / "stats.json")).at("simulation")[0];
    const std::string txt = file_text(out / "stats.txt");
    auto value = [&](const std::string& name) { return block.at(name).at("value").get<std::uint64_t>(); };
    // A counter of more than 6 digits: the same integer in both files (%g at 6 digits, as stats.txt was
    // once written and stats.json parsed back from it, turns 2561215 into 2.56122e+06).
    const std::uint64_t accesses = value("system.llc0.accesses");
    CHECK(accesses > 1'000'000);
    CHECK(block.at("system.llc0.accesses").at("value").is_number_unsigned());
    const auto line = txt.find("\nsystem.llc0.accesses ");
    REQUIRE(line != std::string::npos);
    CHECK(txt.substr(line, txt.find('\n', line + 1) - line).find(" " + std::to_string(accesses) + "   # ") !=
          std::string::npos);
    std::uint64_t hart_total = 0, l1d_lookups = 0, l1d_misses = 0, l2_lookups = 0, llc_lookups = 0;
    for (unsigned c = 0; c < 32; ++c)
        hart_total += value("system.cpu" + std::to_string(c) + ".accesses::total");
    CHECK(hart_total > 1'000'000);
    for (unsigned c = 0; c < 16; ++c) {
        const std::string p = "system.core" + std::to_string(c) + ".";
        l1d_lookups += value(p + "l1d.accesses");
        CHECK(value(p + "l1d.accesses") == value(p + "l1d.hits") + value(p + "l1d.misses"));
        l1d_misses += value(p + "l1d.misses");
        l2_lookups += value(p + "l2.accesses");
        CHECK(txt.find(p + "l2.writebacks") != std::string::npos);
    }
    for (unsigned l = 0; l < 2; ++l) {
        const std::string p = "system.llc" + std::to_string(l) + ".";
        llc_lookups += value(p + "accesses");
        CHECK(block.contains(p + "peerSupplies"));
        CHECK(block.contains(p + "victimFills"));
    }
    CHECK_FALSE(block.contains("system.llc2.accesses")); // zen3-5950x has two CCXs
    // The levels agree with each other: every hart access is an L1D lookup, every L1D miss an L2 lookup.
    CHECK(l1d_lookups == hart_total);
    CHECK(l2_lookups == l1d_misses);
    CHECK(llc_lookups > 0);
    CHECK(value("system.home0.requests") > 0);
    CHECK(value("system.mem0.reads") > 0);

    // The run summary and the migration report are views of the same registry: their figures are
    // these stats (report.txt is what stdout showed).
    const std::string report = file_text(out / "report.txt");
    auto in_report = [&](const std::string& pattern) {
        std::smatch m;
        REQUIRE(std::regex_search(report, m, std::regex(pattern)));
        return m;
    };
    auto n = [](const std::ssub_match& s) { return std::stoull(s.str()); };
    const auto cs = in_report(R"(context switches +(\d+)  \(voluntary (\d+), involuntary (\d+)\))");
    CHECK(n(cs[1]) == value("kernel.contextSwitches"));
    CHECK(n(cs[2]) == value("kernel.voluntarySwitches"));
    CHECK(n(cs[3]) == value("kernel.involuntarySwitches"));
    const auto wk = in_report(
        R"(wakeups +(\d+)  \(to another CPU [0-9.]+%, sync ([0-9.]+)%; IPIs (\d+), idle exits (\d+)\))");
    CHECK(n(wk[1]) == value("kernel.wakeups"));
    CHECK(n(wk[3]) == value("kernel.ipis"));
    CHECK(n(wk[4]) == value("kernel.idleExits"));
    char sync[32];
    std::snprintf(sync, sizeof sync, "%.1f",
                  100.0 * static_cast<double>(value("kernel.wakeupsSync")) /
                      static_cast<double>(value("kernel.wakeups")));
    CHECK(wk[2].str() == sync);
    const auto cpu = in_report(R"(CPU time +user ([0-9.]+) s, system ([0-9.]+) s, idle ([0-9.]+) s)");
    auto real = [&](const std::string& name) {
        char b[32];
        std::snprintf(b, sizeof b, "%.4f", block.at(name).at("value").get<double>());
        return std::string(b);
    };
    CHECK(cpu[1].str() == real("kernel.userSeconds"));
    CHECK(cpu[2].str() == real("kernel.systemSeconds"));
    CHECK(cpu[3].str() == real("kernel.idleSeconds"));
    const auto acc = in_report(R"(memory accesses +(\d+))");
    CHECK(n(acc[1]) == hart_total);
    const auto all = in_report(R"(\nall +([0-9,]+) +([0-9,]+))");
    auto ungroup = [](std::string s) {
        s.erase(std::remove(s.begin(), s.end(), ','), s.end());
        return std::stoull(s);
    };
    CHECK(ungroup(all[1].str()) == value("kernel.migrationCost.migrations"));
    CHECK(ungroup(all[2].str()) == value("kernel.migrationCost.refill.misses"));
}
