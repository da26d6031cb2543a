// The guest machine the twin gives QEMU for a platform (twin/guest_machine.h): -smp levels, CPU number
// translation, NUMA nodes and distances, and the scaling that shrinks big platforms; and the dilated
// platform (platforms/time_dilation.h).
#include "platforms/platform_loader.h"
#include "platforms/topology.h"
#include "twin/guest_machine.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace warmsched;

namespace {
bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
} // namespace

TEST_CASE("zen3-5950x: one die per CCD, SMT siblings adjacent in the guest and 16 apart in the model") {
    const auto g = twin::make_guest_machine(platform::load_platform("zen3-5950x"));
    CHECK(g.sockets == 1);
    CHECK(g.dies == 2);
    CHECK(g.cores == 8);
    CHECK(g.threads == 2);
    REQUIRE(g.num_cpus() == 32);
    // Linux on a 5950X numbers first threads 0-15, second threads 16-31; QEMU numbers by APIC ID.
    CHECK(g.model_cpu[0] == 0);
    CHECK(g.model_cpu[1] == 16);
    CHECK(g.model_cpu[2] == 1);
    CHECK(g.model_cpu[16] == 8); // the second CCD's first core
    for (unsigned c = 0; c < 32; ++c) CHECK(g.guest_cpu[g.model_cpu[c]] == c);
    const auto a = twin::qemu_topology_args(g, 2048);
    CHECK(a[0] == "-smp");
    CHECK(a[1] == "32,sockets=1,dies=2,cores=8,threads=2");
    CHECK(!has(a, "-numa")); // one node
}

TEST_CASE("haswell-e5-2690v3-2s: two nodes with the platform's distance") {
    const auto g = twin::make_guest_machine(platform::load_platform("haswell-e5-2690v3-2s"));
    REQUIRE(g.node_cpus.size() == 2);
    CHECK(twin::cpu_list(g.node_cpus[0]) == "0-23");
    CHECK(twin::cpu_list(g.node_cpus[1]) == "24-47");
    const auto a = twin::qemu_topology_args(g, 2048);
    CHECK(has(a, "node,nodeid=1,memdev=mem1,cpus=24-47"));
    CHECK(has(a, "dist,src=0,dst=1,val=21"));
    CHECK(has(a, "memory-backend-ram,id=mem0,size=1024M"));
}

TEST_CASE("scaling: cores per LLC first, then the inner levels, the platform loads with the overrides") {
    const auto p = platform::load_platform("genoa-9654-2s");
    const auto s = twin::scale_overrides(p, 8);
    CHECK(s.overrides == std::vector<std::string>{"topology.levels.1.count=1", "topology.levels.2.count=1",
                                                  "topology.levels.3.count=2"});
    const auto small = platform::load_platform("genoa-9654-2s", s.overrides);
    CHECK(platform::topology(small).num_cpus() == 8);
    CHECK(platform::topology(small).num_nodes() == 2);
    CHECK(twin::scale_overrides(platform::load_platform("haswell-i7-4790"), 8).overrides.empty());
    const auto hs = twin::scale_overrides(platform::load_platform("haswell-e5-2690v3-2s"), 8);
    CHECK(hs.overrides == std::vector<std::string>{"topology.levels.1.count=2"});
}

TEST_CASE("scaling NPS4 keeps four nodes and cuts the distance table to them") {
    const auto p = platform::load_platform("genoa-9654-2s-nps4");
    const auto s = twin::scale_overrides(p, 16);
    REQUIRE(!s.overrides.empty());
    CHECK(s.overrides.back() == "numa.distances=[[10,12,32,32],[12,10,32,32],[32,32,10,12],[32,32,12,10]]");
    const auto small = platform::load_platform("genoa-9654-2s-nps4", s.overrides);
    const platform::topology t(small);
    CHECK(t.num_cpus() == 16);
    CHECK(t.num_nodes() == 4);
    const auto g = twin::make_guest_machine(small);
    CHECK(g.dies == 2); // two quadrants of one CCD each per socket
    CHECK(has(twin::qemu_topology_args(g, 2048), "dist,src=1,dst=2,val=32"));
}

TEST_CASE("what QEMU cannot show is said") {
    const auto emr = twin::make_guest_machine(platform::load_platform("emr-8580-2s"));
    CHECK(emr.dies == 1); // the LLC spans the socket: QEMU's L3 is per die
    CHECK(std::any_of(emr.differences.begin(), emr.differences.end(),
                      [](const std::string& d) { return d.find("level 'die'") != std::string::npos; }));
    const auto clover = twin::make_guest_machine(platform::load_platform("clovertown-e5335-2s"));
    CHECK(std::any_of(clover.differences.begin(), clover.differences.end(),
                      [](const std::string& d) { return d.find("CLS") != std::string::npos; }));
}

TEST_CASE("time_dilation K: the machine K times slower, every time by K and every rate by 1/K") {
    const auto p = platform::load_platform("zen3-5950x");
    const auto d = platform::load_platform("zen3-5950x", {"time_dilation=100"});
    CHECK(d.core.frequency_hz == Approx(p.core.frequency_hz / 100));
    CHECK(d.caches[2].latency_ps == Approx(p.caches[2].latency_ps * 100));
    CHECK(d.memory.latency_ps == Approx(p.memory.latency_ps * 100));
    CHECK(d.memory.bandwidth == Approx(p.memory.bandwidth / 100));
    CHECK(d.fabric.links[0].latency_ps == Approx(p.fabric.links[0].latency_ps * 100));
    CHECK(d.kernel_costs.context_switch_ps == Approx(p.kernel_costs.context_switch_ps * 100));
    CHECK(d.kernel_costs.fork_ps == Approx(p.kernel_costs.fork_ps * 100));
    CHECK(d.caches[0].size == p.caches[0].size);
    CHECK_THROWS(platform::load_platform("zen3-5950x", {"time_dilation=0.5"}));
}
