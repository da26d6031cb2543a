// Probe "bandwidth" (validation ladder step 1): one core is limited by its CCD link, all cores by the
// memory channels, within 10% of the configured figures.
#include "probes/probe_rig.h"
#include "workloads/probes/stream_bandwidth.h"

#include <catch2/catch.hpp>

using namespace warmsched;

namespace {
std::vector<double> stream(test::probe_rig& r, std::vector<workloads::stream_set> sets, std::uint64_t bytes) {
    workloads::stream_bandwidth_options o;
    o.sets = std::move(sets);
    o.bytes_per_cpu = bytes;
    workloads::stream_bandwidth p(r.m, o);
    r.run(p);
    std::vector<double> v;
    for (const auto& x : p.results()) v.push_back(x.gb_per_s);
    return v;
}
} // namespace

TEST_CASE("zen3-5950x: one core at the CCD link's 51.2 GB/s, all cores at 2 x DDR4-3200 = 51.2 GB/s") {
    test::probe_rig r("zen3-5950x");
    const auto sets = workloads::default_stream_sets(r.m.topo());
    const auto gb = stream(r, {sets.front(), sets.back()}, 4 << 20);
    CHECK(gb[0] == Approx(51.2).epsilon(0.10));
    CHECK(gb[1] == Approx(51.2).epsilon(0.10));
}

TEST_CASE("set sampling scales bandwidths with the sampled traffic: the same GB/s come out") {
    models::machine_options o;
    o.set_sampling = 8;
    test::probe_rig r("zen3-5950x", o);
    const auto sets = workloads::default_stream_sets(r.m.topo());
    const auto gb = stream(r, {sets.front(), sets.back()}, 4 << 20);
    CHECK(gb[0] == Approx(51.2).epsilon(0.10));
    CHECK(gb[1] == Approx(51.2).epsilon(0.10));
}

TEST_CASE("genoa-9654-2s: one core at its CCD link (~64 GB/s), a socket at 12 x DDR5-4800 = 460.8 GB/s") {
    test::probe_rig r("genoa-9654-2s");
    const auto sets = workloads::default_stream_sets(r.m.topo());
    const auto socket = std::find_if(sets.begin(), sets.end(),
                                     [](const auto& s) { return s.label.rfind("socket0", 0) == 0; });
    REQUIRE(socket != sets.end());
    const auto gb = stream(r, {sets.front(), *socket}, 1 << 20);
    CHECK(gb[0] == Approx(64).epsilon(0.10));
    CHECK(gb[1] == Approx(460.8).epsilon(0.10));
}
