// stats.txt follows gem5's text layout (blocks between the Begin/End markers, one stat a line: the name
// padded to 40, the value, `# description (Unit)`), and stats.json carries exactly the same stats.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/file_text.h"

#include <algorithm>
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
        const std::string member = "\"" + m[1].str() + "\": {\"value\": " + m[2].str() +
                                   ", \"description\": \"" + m[3].str() + "\", \"unit\": \"" + m[4].str() +
                                   "\"}";
        CHECK(occurrences(json, member) == 1);
    }
    CHECK(begins == 1);
    CHECK(ends == 1);
    CHECK(stats > 100);
    CHECK(occurrences(json, "\"value\":") == stats);
    CHECK(occurrences(json, "{") == occurrences(json, "}"));
    CHECK(json.rfind("{\n  \"simulation\": [", 0) == 0);
}
