// The stats time series (base/stats/stats_series.h): one CSV row per period, a column per stat in the
// order the stats first appeared; a stat missing from a row is 0 if a total and empty if a level; integers
// exact, real values read back as the same double, names quoted where CSV needs it.
#include "base/stats/stats_series.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

using namespace warmsched;

TEST_CASE(
    "stats series: a row per period, columns as the stats first appear, missing totals 0, levels empty") {
    using stats::kind;
    using stats::unit;
    stats::series s;
    {
        stats::group p;
        p.add("simSeconds", 0.1, unit::second, "simulated");
        p.child("kernel").add("trackerBytes", std::uint64_t{4096}, unit::byte, "size", kind::level);
        s.add_row(0, 0.1, p);
    }
    {
        stats::group p;
        p.add("simSeconds", 0.05, unit::second, "simulated");
        p.child("kernel").add("migrations", std::uint64_t{18'446'744'073'709'551'615ull}, unit::count,
                              "moves");
        p.child("kernel").child("cgroup").child("/a,b").add("nr_periods", std::uint64_t{7}, unit::count, "x");
        s.add_row(0.1, 0.15, p);
    }
    CHECK(s.rows() == 2);
    std::ostringstream out;
    s.write_csv(out);
    CHECK(out.str() ==
          "start_s,end_s,simSeconds,kernel.trackerBytes,kernel.migrations,\"kernel.cgroup./a,b.nr_periods\"\n"
          "0.0,0.1,0.1,4096,0,0\n"
          "0.1,0.15,0.05,,18446744073709551615,7\n");
}

TEST_CASE("stats series: real values at full precision, and no value for NaN") {
    stats::series s;
    stats::group p;
    p.add("a", 0.1 + 0.2, stats::unit::second, "sum");
    p.add("b", std::nan(""), stats::unit::ratio, "no value");
    s.add_row(0, 1.0 / 3.0, p);
    std::ostringstream out;
    s.write_csv(out);
    std::istringstream in(out.str());
    std::string header, row;
    std::getline(in, header);
    std::getline(in, row);
    CHECK(header == "start_s,end_s,a,b");
    CHECK(row == "0.0,0.3333333333333333,0.30000000000000004,");
    CHECK(std::stod(row.substr(4, row.find(',', 4) - 4)) == 1.0 / 3.0);
}
