// Probe "c2c" (validation ladder step 1): one-way line transfer latencies against the published medians
// of the core-to-core-latency tool (platforms.md), within 15%. No latency is configured as "core to core":
// these come out of cache, link and directory latencies along the path.
#include "probes/probe_rig.h"
#include "workloads/probes/line_bounce.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

using namespace warmsched;

namespace {
std::map<std::string, double> medians(test::probe_rig& r, unsigned sample) {
    workloads::line_bounce_options o;
    o.pairs = workloads::cpu_pairs(r.m.topo(), sample, 1);
    o.round_trips = 20;
    workloads::line_bounce p(r.m, o);
    r.run(p);
    std::map<std::string, std::vector<double>> by;
    for (const auto& x : p.results()) by[x.relation].push_back(x.one_way_ns);
    std::map<std::string, double> med;
    for (auto& [rel, v] : by) {
        std::sort(v.begin(), v.end());
        med[rel] = v[v.size() / 2];
    }
    return med;
}
} // namespace

TEST_CASE("zen3-5950x: SMT 7.8 ns, same CCD 18 ns, other CCD 85 ns") {
    test::probe_rig r("zen3-5950x");
    auto med = medians(r, 0); // all 496 pairs
    CHECK(med.at("smt") == Approx(7.8).epsilon(0.15));
    CHECK(med.at("same_llc") == Approx(18).epsilon(0.15));
    CHECK(med.at("same_socket/2hops") == Approx(85).epsilon(0.15));
}

TEST_CASE("genoa-9654-2s: same CCX 27, other CCD 85-106 with the quadrant structure, cross socket 192 ns") {
    test::probe_rig r("genoa-9654-2s");
    auto med = medians(r, 600);
    CHECK(med.at("same_llc") == Approx(27).epsilon(0.15));
    const double quadrant = med.at("same_quadrant"), adjacent = med.at("same_socket/3hops"),
                 far = med.at("same_socket/4hops");
    for (double v : {quadrant, adjacent, far}) {
        CHECK(v >= 85 * 0.85);
        CHECK(v <= 106 * 1.15);
    }
    CHECK(quadrant < adjacent); // same quadrant < adjacent quadrant < far quadrant
    CHECK(adjacent < far);
    CHECK(med.at("cross_socket") == Approx(192).epsilon(0.15));
}
