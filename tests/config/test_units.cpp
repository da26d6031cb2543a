// Values with units in configuration files: what users write must parse to the right number, and a
// missing or wrong unit must be refused with a message saying what was expected.
#include "platforms/config/units.h"

#include <catch2/catch.hpp>

using namespace warmsched::config;

TEST_CASE("sizes use binary prefixes for KiB/MiB/GiB and decimal ones for kB/MB/GB") {
    std::string why;
    CHECK(*parse_size("32MiB", why) == 32ull << 20);
    CHECK(*parse_size("512KiB", why) == 512ull << 10);
    CHECK(*parse_size("64B", why) == 64);
    CHECK(*parse_size("1GiB", why) == 1ull << 30);
    CHECK(*parse_size("1.5KiB", why) == 1536);
    CHECK(*parse_size("2MB", why) == 2000000);
    CHECK(*parse_size(" 4 KiB ", why) == 4096);
}

TEST_CASE("a size without a unit, with an unknown unit or fractional bytes is refused") {
    std::string why;
    CHECK_FALSE(parse_size("32", why));
    CHECK(why.find("needs a unit") != std::string::npos);
    CHECK_FALSE(parse_size("32Mb", why));
    CHECK(why.find("unknown size unit 'Mb'") != std::string::npos);
    CHECK_FALSE(parse_size("0.3B", why));
    CHECK_FALSE(parse_size("MiB", why));
}

TEST_CASE("times, cycles, frequencies and bandwidths") {
    std::string why;
    CHECK(*parse_time_ps("85ns", why) == Approx(85000));
    CHECK(*parse_time_ps("1.5us", why) == Approx(1.5e6));
    CHECK(*parse_time_ps("4ms", why) == Approx(4e9));
    CHECK(*parse_frequency("3.4GHz", why) == Approx(3.4e9));
    CHECK(*parse_frequency("1600MHz", why) == Approx(1.6e9));
    CHECK(*parse_bandwidth("51.2GB/s", why) == Approx(51.2e9));
    CHECK(*parse_bandwidth("1GiB/s", why) == Approx(1073741824.0));
    auto l = parse_latency("46cycles", why);
    REQUIRE(l);
    CHECK(l->in_cycles);
    CHECK(l->to_ps(4.6e9) == Approx(10000)); // 46 cycles at 4.6 GHz = 10 ns
    auto t = parse_latency("85ns", why);
    REQUIRE(t);
    CHECK_FALSE(t->in_cycles);
    CHECK(t->to_ps(1e9) == Approx(85000));
    CHECK_FALSE(parse_frequency("3.4", why));
    CHECK_FALSE(parse_bandwidth("51.2GB", why));
    CHECK_FALSE(parse_time_ps("5 fortnights", why));
}

TEST_CASE("formatting round-trips through the parsers") {
    std::string why;
    for (std::uint64_t b : {64ull, 4096ull, 32ull << 20, 1ull << 30, 1536ull})
        CHECK(*parse_size(format_size(b), why) == b);
    CHECK(format_size(32ull << 20) == "32MiB");
    CHECK(*parse_time_ps(format_time_ps(85000), why) == Approx(85000));
    CHECK(*parse_frequency(format_frequency(3.4e9), why) == Approx(3.4e9));
    CHECK(*parse_bandwidth(format_bandwidth(51.2e9), why) == Approx(51.2e9));
}

TEST_CASE("numbers beyond any machine's are one-line errors, not an exception out of the run") {
    std::string why;
    CHECK_FALSE(parse_size("1e400KiB", why)); // beyond a double: std::stod threw out_of_range
    CHECK(why == "a size beyond any machine's: '1e400KiB'");
    CHECK_FALSE(parse_size("1e30B", why)); // a double, but not a 64-bit count of bytes
    CHECK(why == "a size beyond any machine's: '1e30B'");
    CHECK_FALSE(parse_frequency("1e308THz", why));
    CHECK_FALSE(parse_time_ps("1e30s", why)); // it ran as if no duration were set
    CHECK(why == "a time beyond what a run can simulate (at most 1e7 s, about 116 days): '1e30s'");
    CHECK(*parse_time_ps("1000000s", why) == Approx(1e18));
}
