// Probe "migrate" (validation ladder step 1): the refill after moving a warm working set grows with
// distance (SMT sibling ~0 < same LLC < other LLC < other socket) and with the working set, and lies
// within 2x of the order-of-magnitude expectation of 07-costs.md section 4:
//   refill = min(ws, level size) / bw, bw = 50-100 GB/s from the LLC, 10-20 GB/s from another LLC or socket.
#include "models/common/run_simulation.h"
#include "probes/probe_rig.h"
#include "workloads/probes/migrate_refill.h"

#include <catch2/catch.hpp>

using namespace warmsched;

namespace {
std::vector<workloads::migrate_refill_result> migrate(test::probe_rig& r, std::uint64_t ws) {
    workloads::migrate_refill_options o;
    o.working_set = ws;
    o.moves = workloads::default_moves(r.m.topo());
    workloads::migrate_refill p(r.m, o);
    r.run(p);
    return p.results();
}
// Within 2x of [lo, hi] microseconds.
bool within_2x(double us, double lo, double hi) {
    return us >= lo / 2 && us <= hi * 2;
}
} // namespace

TEST_CASE("zen3-5950x: refill grows with distance and matches the expectation for a 256 KiB working set") {
    test::probe_rig r("zen3-5950x");
    const auto res = migrate(r, 256 << 10);
    REQUIRE(res.size() == 3);
    CHECK(res[0].relation == "smt");
    CHECK(res[1].relation == "same_llc");
    CHECK(res[0].extra_us == Approx(0).margin(0.05)); // the sibling shares L1 and L2
    CHECK(res[0].extra_us < res[1].extra_us);
    CHECK(res[1].extra_us < res[2].extra_us);
    const double ws_gb = 256.0 * 1024 / 1e9 * 1e6; // us at 1 GB/s
    CHECK(within_2x(res[1].extra_us, ws_gb / 100, ws_gb / 50));
    CHECK(within_2x(res[2].extra_us, ws_gb / 20, ws_gb / 10));
}

TEST_CASE("genoa-9654-2s: refill grows with distance up to the other socket") {
    test::probe_rig r("genoa-9654-2s");
    const auto res = migrate(r, 1 << 20);
    REQUIRE(res.size() >= 4);
    for (std::size_t i = 1; i < res.size(); ++i) CHECK(res[i - 1].extra_us < res[i].extra_us);
    CHECK(res.back().relation == "cross_socket");
    const double ws_gb = 1024.0 * 1024 / 1e9 * 1e6;
    CHECK(within_2x(res.back().extra_us, ws_gb / 20, ws_gb / 10));
}

TEST_CASE("refill grows with the working set") {
    test::probe_rig r("zen3-5950x");
    workloads::migrate_refill_options o;
    o.moves = {{0, 8}}; // to the other CCD, with two working-set sizes
    workloads::migrate_refill small(r.m, o);
    o.working_set = 4 << 20;
    workloads::migrate_refill large(r.m, o);
    workloads::spawn_program("probe", [&] {
        small.run();
        large.run();
    });
    models::run_simulation();
    CHECK(large.results()[0].extra_us > 2 * small.results()[0].extra_us);
}
