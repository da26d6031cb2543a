// Scheduler domains Linux builds for each shipped platform (platforms.md, derived from
// arch/x86/kernel/smpboot.c and kernel/sched/topology.c).
#include "platforms/fabric_graph.h"
#include "platforms/platform_loader.h"
#include "platforms/topology.h"
#include "scheduler/topology/sched_domains.h"

#include <catch2/catch.hpp>

using namespace warmsched;

namespace {
std::string domains(const char* name, scheduler::sched_domain_options o = {}) {
    const auto p = platform::load_platform(name);
    const platform::topology t(p);
    const platform::fabric_graph g(p, t, {});
    return scheduler::describe_sched_domains(
        scheduler::build_sched_domains(t, platform::numa_distances(p, t, g), o));
}
} // namespace

TEST_CASE("sched domains of every shipped platform match platforms.md") {
    CHECK(domains("zen3-5950x") == "SMT 2, MC 16, PKG 32");
    CHECK(domains("milan-7763-2s") == "SMT 2, MC 16, PKG 128, NUMA 256");
    CHECK(domains("milan-7713-2s") == "SMT 2, MC 16, PKG 128, NUMA 256");
    // NPS2 and NPS4: a NODE level per node, PKG skipped, one NUMA level per further distance (11/12 within
    // the socket, 32 across), as topology.c's sched_init_numa builds them.
    CHECK(domains("milan-7713-2s-nps2") == "SMT 2, MC 16, NODE 64, NUMA 128, NUMA 256");
    CHECK(domains("milan-7713-2s-nps4") == "SMT 2, MC 16, NODE 32, NUMA 128, NUMA 256");
    CHECK(domains("genoa-9654-1s") == "SMT 2, MC 16, PKG 192");
    CHECK(domains("genoa-9654-2s") == "SMT 2, MC 16, PKG 192, NUMA 384");
    CHECK(domains("genoa-9654-2s-nps4") == "SMT 2, MC 16, NODE 48, NUMA 192, NUMA 384");
    CHECK(domains("emr-8580-2s") == "SMT 2, MC 120, NUMA 240");
    CHECK(domains("emr-8580-2s-snc2") == "SMT 2, MC 60, NUMA 120, NUMA 240");
    CHECK(domains("haswell-e5-2690v3-2s") == "SMT 2, MC 24, NUMA 48");
    CHECK(domains("haswell-i7-4790") == "SMT 2, MC 8");
    // The L2 pairs are a CLS level on kernels >= 5.16 and MC before; the physical package gets no level.
    CHECK(domains("clovertown-e5335-2s") == "CLS 2, PKG 8");
    CHECK(domains("clovertown-e5335-2s", {false, "DIE"}) == "MC 2, DIE 8");
}

TEST_CASE("domain spans follow the CPU numbering") {
    const auto p = platform::load_platform("genoa-9654-2s");
    const platform::topology t(p);
    const platform::fabric_graph g(p, t, {});
    const auto levels = scheduler::build_sched_domains(t, platform::numa_distances(p, t, g));
    REQUIRE(levels.size() == 4);
    CHECK(scheduler::cpulist(levels[0].span[0]) == "0,192");
    CHECK(scheduler::cpulist(levels[1].span[0]) == "0-7,192-199");
    CHECK(scheduler::cpulist(levels[2].span[200]) == "0-95,192-287");
}
