// Probe "latency" (validation ladder step 1): the pointer-chase plateaus must match the configured
// level latencies within 10% at footprints well inside each level, and beyond the LLC the local DRAM
// latency published for the platform (platforms.md).
#include "probes/probe_rig.h"
#include "workloads/probes/pointer_chase.h"

#include <catch2/catch.hpp>

using namespace warmsched;

namespace {
std::vector<double> chase(test::probe_rig& r, std::vector<std::uint64_t> footprints) {
    workloads::pointer_chase_options o;
    o.footprints = std::move(footprints);
    o.max_loads = 1 << 18;
    workloads::pointer_chase p(r.m, o);
    r.run(p);
    std::vector<double> ns;
    for (const auto& pt : p.results()) ns.push_back(pt.ns_per_load);
    return ns;
}
} // namespace

TEST_CASE("zen3-5950x: L1 4, L2 12, L3 46 cycles and DRAM ~70-80 ns") {
    test::probe_rig r("zen3-5950x");
    const auto ns = chase(r, {16 << 10, 256 << 10, 8 << 20, 256 << 20});
    CHECK(ns[0] == Approx(r.cycles_ns(4)).epsilon(0.10));
    CHECK(ns[1] == Approx(r.cycles_ns(12)).epsilon(0.10));
    CHECK(ns[2] == Approx(r.cycles_ns(46)).epsilon(0.10));
    CHECK(ns[3] >= 70 * 0.9);
    CHECK(ns[3] <= 80 * 1.1);
}

TEST_CASE("genoa-9654-2s: L2 ~14 cycles, L3 ~50 cycles and NPS1 DRAM ~115-130 ns") {
    test::probe_rig r("genoa-9654-2s");
    const auto ns = chase(r, {512 << 10, 16 << 20, 256 << 20});
    CHECK(ns[0] == Approx(r.cycles_ns(14)).epsilon(0.10));
    CHECK(ns[1] == Approx(r.cycles_ns(50)).epsilon(0.10));
    CHECK(ns[2] >= 115 * 0.9);
    CHECK(ns[2] <= 130 * 1.1);
}

TEST_CASE("set sampling 1-in-16 keeps genoa's plateaus (only 1/16 of the sets are simulated)") {
    models::machine_options o;
    o.set_sampling = 16;
    test::probe_rig r("genoa-9654-2s", o);
    const auto ns = chase(r, {512 << 10, 16 << 20, 256 << 20});
    CHECK(ns[0] == Approx(r.cycles_ns(14)).epsilon(0.10));
    CHECK(ns[1] == Approx(r.cycles_ns(50)).epsilon(0.10));
    CHECK(ns[2] >= 115 * 0.9);
    CHECK(ns[2] <= 130 * 1.1);
    CHECK(r.m.llc_at(0).tags().num_sets() == 32768 / 16);
}

TEST_CASE("genoa NPS4 DRAM is 5-10 ns below NPS1, as published") {
    test::probe_rig r("genoa-9654-2s-nps4");
    const auto ns = chase(r, {256 << 20});
    const double nps1 = 120.3; // measured on genoa-9654-2s above (docs/validation.md)
    CHECK(ns[0] < nps1 - 3);
    CHECK(ns[0] > nps1 - 12);
}

TEST_CASE("haswell-e5-2690v3-2s (inclusive L3): L3 ~17-21 ns and DRAM ~90-96 ns") {
    test::probe_rig r("haswell-e5-2690v3-2s");
    const auto ns = chase(r, {16 << 20, 256 << 20});
    CHECK(ns[0] >= 17 * 0.9);
    CHECK(ns[0] <= 21 * 1.1);
    CHECK(ns[1] >= 90 * 0.9);
    CHECK(ns[1] <= 96 * 1.1);
}
