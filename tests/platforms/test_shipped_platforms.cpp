// The shipped platforms: each loads, has the size platforms.md gives, numbers its CPUs as Linux does, and
// has the NUMA distances of the data sheet.
#include "platforms/fabric_graph.h"
#include "platforms/platform_catalog.h"
#include "platforms/platform_loader.h"
#include "platforms/topology.h"
#include "scheduler/topology/sched_domains.h"

#include <catch2/catch.hpp>

using namespace warmsched;

namespace {
struct expected_size {
    const char* name;
    unsigned cpus, llcs, nodes, cores_per_llc;
};
} // namespace

TEST_CASE("the nine platforms of the data sheet and the four of the published tables are shipped and valid") {
    const auto names = platform::shipped_platforms();
    for (const char* n :
         {"zen3-5950x", "milan-7763-2s", "genoa-9654-2s", "genoa-9654-2s-nps4", "emr-8580-2s",
          "emr-8580-2s-snc2", "haswell-e5-2690v3-2s", "haswell-i7-4790", "clovertown-e5335-2s", "milan-7713-2s",
          "milan-7713-2s-nps2", "milan-7713-2s-nps4", "genoa-9654-1s"}) {
        INFO(n);
        CHECK(std::find(names.begin(), names.end(), n) != names.end());
        CHECK_NOTHROW(platform::load_platform(n));
    }
}

TEST_CASE("platform sizes match platforms.md") {
    const expected_size sizes[] = {
        {"zen3-5950x", 32, 2, 1, 8},
        {"milan-7763-2s", 256, 16, 2, 8},
        {"genoa-9654-2s", 384, 24, 2, 8},
        {"genoa-9654-2s-nps4", 384, 24, 8, 8},
        {"emr-8580-2s", 240, 2, 2, 60},
        {"emr-8580-2s-snc2", 240, 4, 4, 30},
        {"haswell-e5-2690v3-2s", 48, 2, 2, 12},
        {"haswell-i7-4790", 8, 1, 1, 4},
        {"clovertown-e5335-2s", 8, 4, 1, 2},
        // published-benchmarks.md: table A's NPS modes ("NPS2: 4 nodes of 32 cores. NPS4: 8 nodes of 16
        // cores") and table E's 1S 96C/192T.
        {"milan-7713-2s", 256, 16, 2, 8},
        {"milan-7713-2s-nps2", 256, 16, 4, 8},
        {"milan-7713-2s-nps4", 256, 16, 8, 8},
        {"genoa-9654-1s", 192, 12, 1, 8},
    };
    for (const auto& e : sizes) {
        INFO(e.name);
        const auto p = platform::load_platform(e.name);
        const platform::topology t(p);
        CHECK(t.num_cpus() == e.cpus);
        CHECK(t.num_llcs() == e.llcs);
        CHECK(t.num_nodes() == e.nodes);
        CHECK(t.cores_of_group(t.cache_group(t.llc_level()), 0).size() == e.cores_per_llc);
    }
}

TEST_CASE("CPUs are numbered as Linux numbers them: first threads of all cores, then the siblings") {
    const platform::topology t(platform::load_platform("haswell-e5-2690v3-2s"));
    // Data sheet: node 0 = CPUs 0-11,24-35.
    std::vector<unsigned> cores;
    for (unsigned c = 0; c < t.num_cores(); ++c)
        if (t.node_of_core(c) == 0) cores.push_back(c);
    CHECK(scheduler::cpulist(t.cpus_of_cores(cores)) == "0-11,24-35");
    CHECK(t.core_of_cpu(24) == t.core_of_cpu(0));
    const platform::topology z(platform::load_platform("zen3-5950x"));
    CHECK(z.core_of_cpu(16) == 0); // CPU 16 is CPU 0's sibling
    CHECK(z.llc_of_core(z.core_of_cpu(8)) == 1);
}

TEST_CASE("NUMA distances are the data sheet's tables") {
    auto dist = [](const char* name) {
        const auto p = platform::load_platform(name);
        const platform::topology t(p);
        const platform::fabric_graph g(p, t, {});
        return platform::numa_distances(p, t, g);
    };
    const auto genoa = dist("genoa-9654-2s");
    CHECK(genoa[0][1] == 32);
    const auto nps4 = dist("genoa-9654-2s-nps4");
    REQUIRE(nps4.size() == 8);
    CHECK(nps4[0][0] == 10);
    CHECK(nps4[0][3] == 12);
    CHECK(nps4[0][4] == 32);
    const auto snc2 = dist("emr-8580-2s-snc2");
    CHECK(snc2[0][1] == 12);
    CHECK(snc2[0][2] == 21);
}

TEST_CASE("a set-sampling ratio must be a power of two dividing every cache level's sets") {
    const auto p = platform::load_platform("haswell-e5-2690v3-2s"); // L1D 64 sets, L3 24576 sets
    CHECK(platform::set_sampling_problem(p, 1).empty());
    CHECK(platform::set_sampling_problem(p, 64).empty());
    CHECK(platform::set_sampling_problem(p, 128) == "cannot sample 1 in 128 sets: l1d has 64 sets");
    CHECK(platform::set_sampling_problem(p, 12) == "the set-sampling ratio must be a power of two");
}

TEST_CASE("unknown platform names list the shipped ones") {
    CHECK_THROWS_WITH(platform::load_platform("zen9-9999"),
                      Catch::Contains("unknown platform 'zen9-9999'") && Catch::Contains("genoa-9654-2s"));
}
