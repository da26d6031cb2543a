// The stats registry (base/stats): groups nest into dotted names in the order added, a name is added
// once, and the writers print integers exactly and real values at their precision (6 digits in
// stats.txt, full in stats.json, null where JSON has no number).
#include "base/stats/stats_group.h"
#include "base/stats/stats_writers.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

using namespace warmsched;

TEST_CASE("stats groups: dotted names in the order added, a group asked for twice is the same group") {
    stats::group root;
    root.add("simSeconds", 0.5, stats::unit::second, "simulated");
    stats::group& llc = root.child("system").child("llc0");
    llc.add("hits", std::uint64_t{3}, stats::unit::count, "hits");
    root.child("kernel").add("forks", std::uint64_t{2}, stats::unit::count, "forks");
    root.child("system").child("llc0").add("misses", std::uint64_t{1}, stats::unit::count, "misses");
    const auto all = root.flatten();
    REQUIRE(all.size() == 4);
    CHECK(all[0].full_name == "simSeconds");
    CHECK(all[1].full_name == "system.llc0.hits");
    CHECK(all[2].full_name == "system.llc0.misses"); // its group came before kernel
    CHECK(all[3].full_name == "kernel.forks");
    CHECK_THROWS_AS(llc.add("hits", std::uint64_t{4}, stats::unit::count, "again"), std::logic_error);
}

TEST_CASE("stats writers: integers exact in both files, reals at 6 digits in stats.txt and in full in "
          "stats.json") {
    stats::group root;
    root.add("big", std::uint64_t{2'561'215}, stats::unit::count, "a counter");
    root.add("huge", std::numeric_limits<std::uint64_t>::max(), stats::unit::byte, "the largest");
    root.add("third", 1.0 / 3, stats::unit::ratio, "a real \"quoted\"");
    root.add("nan", std::nan(""), stats::unit::second, "not a number");
    std::ostringstream txt, json;
    stats::write_text(txt, root);
    stats::write_json(json, root);
    CHECK(
        txt.str().find("\nbig                                             2561215   # a counter (Count)\n") !=
        std::string::npos);
    CHECK(txt.str().find(" 18446744073709551615   # the largest (Byte)\n") != std::string::npos);
    CHECK(txt.str().find("       0.333333   # a real \"quoted\" (Ratio)\n") != std::string::npos);
    const auto b = nlohmann::json::parse(json.str()).at("simulation").at(0);
    CHECK(b.at("big").at("value").get<std::uint64_t>() == 2'561'215);
    CHECK(b.at("huge").at("value").get<std::uint64_t>() == std::numeric_limits<std::uint64_t>::max());
    CHECK(b.at("third").at("value").get<double>() == 1.0 / 3);
    CHECK(b.at("third").at("description") == "a real \"quoted\"");
    CHECK(b.at("third").at("unit") == "Ratio");
    CHECK(b.at("nan").at("value").is_null());
    CHECK(json.str().find("    \"big\": {\"value\": 2561215, ") != std::string::npos); // one stat a line
}

TEST_CASE("stats lookups: a view reads back what was added, and a missing or mistyped stat is our bug") {
    stats::group root;
    stats::group& kernel = root.child("kernel");
    kernel.add("forks", std::uint64_t{400}, stats::unit::count, "forks");
    kernel.add("userSeconds", 0.25, stats::unit::second, "user time");
    kernel.child("rt").add("pushes", std::uint64_t{7}, stats::unit::count, "pushes");
    kernel.child("cgroup").child("/a");
    kernel.child("cgroup").child("/b");
    const stats::group& k = root.at("kernel");
    CHECK(k.count("forks") == 400);
    CHECK(k.real("userSeconds") == 0.25);
    CHECK(k.at("rt").count("pushes") == 7);
    CHECK(k.find("nothing") == nullptr);
    CHECK(k.find_child("nothing") == nullptr);
    const auto groups = k.at("cgroup").children();
    REQUIRE(groups.size() == 2);
    CHECK(groups[0]->name() == "/a");
    CHECK(groups[1]->name() == "/b");
    CHECK_THROWS_AS(k.count("userSeconds"), std::logic_error); // a real read as an integer
    CHECK_THROWS_AS(k.real("forks"), std::logic_error);
    CHECK_THROWS_AS(k.count("nothing"), std::logic_error);
    CHECK_THROWS_AS(root.at("system"), std::logic_error);
}
