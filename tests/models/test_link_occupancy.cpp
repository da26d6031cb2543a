// Link bandwidth: transfers within the link's capacity pass without delay; beyond it they queue, so a
// saturated link delivers exactly its bandwidth.
#include "models/fabric/link_occupancy.h"

#include <catch2/catch.hpp>

using warmsched::models::link_occupancy;

TEST_CASE("an idle link adds no delay") {
    link_occupancy l(64e9, 100000); // 64 GB/s = 64 B/ns, 100 ns buckets
    CHECK(l.reserve(1000, 64) == 0);
    CHECK(l.reserve(500000, 64) == 0);
}

TEST_CASE("back-to-back transfers queue behind each other") {
    link_occupancy l(64e9, 100000);
    // 200 lines all wanting to start at t=0: the link moves one 64 B line per ns.
    std::uint64_t last = 0;
    for (int i = 0; i < 200; ++i) last = l.reserve(0, 64);
    CHECK(last == Approx(199000).margin(1000)); // the 200th waits ~199 ns
    CHECK(l.total_bytes() == Approx(200 * 64));
}

TEST_CASE("sustained demand above the bandwidth is served at the bandwidth") {
    link_occupancy l(10e9, 100000); // 10 GB/s
    // Offer 64 B every 2 ns (32 GB/s) for 100 us; measure when the last transfer starts.
    std::uint64_t t = 0, end = 0;
    const int n = 50000;
    for (int i = 0; i < n; ++i, t += 2000) end = t + l.reserve(t, 64);
    const double achieved = n * 64.0 / (static_cast<double>(end) / 1e12);
    CHECK(achieved == Approx(10e9).epsilon(0.02));
}

TEST_CASE("arrivals slightly out of time order still see their window's load") {
    link_occupancy l(64e9, 100000);
    for (int i = 0; i < 100; ++i) l.reserve(200000, 64); // fill 100 ns worth at t = 200 ns
    // A transfer from a CPU that runs behind (t = 150 ns) finds its own bucket free.
    CHECK(l.reserve(150000, 64) == 0);
}

TEST_CASE("a steady background flow leaves the rest of the bandwidth to simulated transfers") {
    // Fast-forwarded compute holds its traffic as a flow (flow_meter): 6 of a 10 GB/s link's GB/s.
    link_occupancy l(10e9, 100000);
    l.add_background(6e9 / 1e12);
    std::uint64_t t = 0, end = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i, t += 2000) end = t + l.reserve(t, 64); // offered 32 GB/s
    const double achieved = n * 64.0 / (static_cast<double>(end) / 1e12);
    CHECK(achieved == Approx(4e9).epsilon(0.02));
    // Removing the flow gives the link back.
    l.add_background(-6e9 / 1e12);
    CHECK(l.background() == 0);
    link_occupancy fresh(10e9, 100000);
    CHECK(l.reserve(1'000'000'000'000, 64) == fresh.reserve(1'000'000'000'000, 64));
}

TEST_CASE("flows beyond the bandwidth still leave a twentieth to simulated transfers") {
    link_occupancy l(10e9, 100000);
    l.add_background(50e9 / 1e12);
    std::uint64_t t = 0, end = 0;
    const int n = 2000;
    for (int i = 0; i < n; ++i, t += 2000) end = t + l.reserve(t, 64);
    const double achieved = n * 64.0 / (static_cast<double>(end) / 1e12);
    CHECK(achieved == Approx(0.5e9).epsilon(0.03));
}
