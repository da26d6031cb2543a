// The NO_CROSS_LLC_BALANCE diagnostic flag (docs/kernel.md): with it, load balancing never moves a task
// between LLCs, so hogs started on one LLC stay there; without it they spread over both. On the
// simulated kernel (kernel_rig, mini platform: CPUs 0, 1, 4, 5 share LLC 0; 2, 3, 6, 7 LLC 1).
#include "support/kernel_rig.h"

#include <catch2/catch.hpp>

using namespace warmsched;
constexpr scheduler::nsec ms = 1'000'000;
using test::run_to;

namespace {

// Eight unpinned hogs started on CPU 0; the tasks on LLC 1's CPUs after a second.
unsigned tasks_on_llc1(bool no_cross_llc) {
    test::kernel_rig r(
        test::rig_config(scheduler::kernel_version::eevdf_v6_12, {{"NO_CROSS_LLC_BALANCE", no_cross_llc}}));
    for (int i = 0; i < 8; ++i)
        r.start("hog" + std::to_string(i), {workloads::op::compute(1'000'000'000, nullptr)}, -1, 0, false);
    run_to(r, 1000 * ms);
    unsigned n = 0;
    for (unsigned c : {2u, 3u, 6u, 7u}) n += r.k.sched().rq(c).nr_running;
    return n;
}

} // namespace

TEST_CASE("NO_CROSS_LLC_BALANCE: hogs started on one LLC stay on it") {
    CHECK(tasks_on_llc1(true) == 0);
}

TEST_CASE("NO_CROSS_LLC_BALANCE off: hogs started on one LLC spread to the other") {
    CHECK(tasks_on_llc1(false) == 4);
}
