// The stats of a measurement window (base/stats/stats_window.h): totals are end minus start, exactly for
// integers; a level keeps its end value; what appeared after the start counts from 0, in end's order;
// a total that went down is our bug.
#include "base/stats/stats_window.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace warmsched;

TEST_CASE("stats window: totals are end minus start, levels their end value, new stats count from 0") {
    using stats::kind;
    using stats::unit;
    stats::group start, end;
    start.add("simSeconds", 0.25, unit::second, "simulated");
    start.child("kernel").add("migrations", std::uint64_t{10}, unit::count, "moves");
    start.child("kernel").add("trackerBytes", std::uint64_t{4096}, unit::byte, "size", kind::level);
    end.add("simSeconds", 2.0, unit::second, "simulated");
    end.child("kernel").add("migrations", std::uint64_t{18'446'744'073'709'551'615ull}, unit::count, "moves");
    end.child("kernel").add("trackerBytes", std::uint64_t{1024}, unit::byte, "size", kind::level);
    end.child("kernel").child("cgroup").child("/a").add("nr_periods", std::uint64_t{7}, unit::count,
                                                        "periods");
    end.add("wokeLater", std::uint64_t{3}, unit::count, "only at the end");
    stats::group w;
    stats::add_window(w, end, start);
    const auto all = w.flatten();
    REQUIRE(all.size() == 5);
    CHECK(all[0].full_name == "simSeconds");
    CHECK(std::get<double>(all[0].stat->value) == 1.75);
    CHECK(all[1].full_name == "kernel.migrations");
    CHECK(std::get<std::uint64_t>(all[1].stat->value) == 18'446'744'073'709'551'605ull); // exact
    CHECK(all[2].full_name == "kernel.trackerBytes");
    CHECK(std::get<std::uint64_t>(all[2].stat->value) == 1024);
    CHECK(all[2].stat->k == kind::level);
    CHECK(all[3].full_name == "kernel.cgroup./a.nr_periods");
    CHECK(std::get<std::uint64_t>(all[3].stat->value) == 7);
    CHECK(all[4].full_name == "wokeLater");
    CHECK(all[4].stat->description == "only at the end");
}

TEST_CASE("stats window: a total that went down, or a stat that changed type, is our bug") {
    stats::group start, end, w;
    start.add("switches", std::uint64_t{5}, stats::unit::count, "");
    end.add("switches", std::uint64_t{4}, stats::unit::count, "");
    CHECK_THROWS_WITH(stats::add_window(w, end, start),
                      "stats window: the total 'switches' went down from 5 to 4");
    stats::group start2, end2, w2;
    start2.child("k").add("t", 1.0, stats::unit::second, "");
    end2.child("k").add("t", std::uint64_t{1}, stats::unit::second, "");
    CHECK_THROWS_AS(stats::add_window(w2, end2, start2), std::logic_error);
}
