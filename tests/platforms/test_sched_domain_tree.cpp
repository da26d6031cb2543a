// The runtime sched domains of the shipped platforms as Linux v6.12 (and v5.15) builds them on x86
// (kernel/sched/topology.c): flags and parameters per level, groups and their capacities, the per-CPU
// LLC and NUMA shortcuts, imb_numa_nr, and the NUMA rules (node_reclaim_distance 30, overlapping groups
// with balance masks on an asymmetric NUMA distance table).
#include "platforms/config/config_node.h"
#include "platforms/fabric_graph.h"
#include "platforms/platform_loader.h"
#include "platforms/topology.h"
#include "scheduler/topology/sched_domain_tree.h"
#include "scheduler/topology/sched_domains.h"

#include <catch2/catch.hpp>

using namespace warmsched;
using namespace warmsched::scheduler;

namespace {

constexpr auto v5_15 = kernel_version::cfs_v5_15;
constexpr auto v6_12 = kernel_version::eevdf_v6_12;

// Every level has these (sd_init), unless a NUMA level drops some.
constexpr unsigned base_flags =
    SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING;
constexpr unsigned smt_flags = base_flags | SD_SHARE_CPUCAPACITY | SD_SHARE_LLC;
constexpr unsigned mc_flags = base_flags | SD_SHARE_LLC;
constexpr unsigned near_numa_flags = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE |
                                     SD_SERIALIZE | SD_OVERLAP | SD_NUMA; // distance <= 30
constexpr unsigned far_numa_flags = SD_BALANCE_NEWIDLE | SD_SERIALIZE | SD_OVERLAP | SD_NUMA;

sched_domain_tree tree_of(const platform::platform_params& p, kernel_version k = v6_12) {
    const platform::topology t(p);
    const platform::fabric_graph g(p, t, {});
    return sched_domain_tree(t, platform::numa_distances(p, t, g), k);
}
sched_domain_tree tree_of(const char* name, kernel_version k = v6_12) {
    return tree_of(platform::load_platform(name), k);
}
// A kernel's defaults with one version change switched.
sched_domain_tree tree_with(const char* name, kernel_version k, const char* change, bool on) {
    const platform::platform_params p = platform::load_platform(name);
    const platform::topology t(p);
    const platform::fabric_graph g(p, t, {});
    sched_features f(k);
    REQUIRE(f.set(change, on).empty());
    return sched_domain_tree(t, platform::numa_distances(p, t, g), f);
}

std::vector<std::string> group_lists(const sched_domain& d) {
    std::vector<std::string> v;
    for (const sched_group& g : d.group_list()) v.push_back(cpulist(g.span().cpus()));
    return v;
}

void check_parameters(const sched_domain& d) {
    INFO(d.name << " of CPU " << d.cpu);
    CHECK(d.span_weight == d.span().weight());
    CHECK(d.min_interval == d.span_weight);
    CHECK(d.max_interval == 2 * d.span_weight);
    CHECK(d.balance_interval == d.min_interval);
    CHECK(d.busy_factor == 16);
    CHECK(d.nr_balance_failed == 0);
    CHECK(d.imbalance_pct == (d.has(SD_SHARE_CPUCAPACITY) ? 110u : 117u));
    CHECK(d.cache_nice_tries == (d.has(SD_SHARE_CPUCAPACITY) ? 0u : d.has(SD_NUMA) ? 2u : 1u));
    CHECK(d.contains(d.cpu));
    // The groups cover the span, the first one holds this CPU, and capacity is 1024 per CPU.
    REQUIRE(d.nr_groups >= 2);
    CHECK(d.groups[0].contains(d.cpu));
    std::vector<unsigned> covered;
    for (const sched_group& g : d.group_list()) {
        CHECK(g.capacity() == SCHED_CAPACITY_SCALE * g.weight());
        CHECK(g.span().subset_of(d.span()));
        CHECK(g.contains(g.balance_cpu()));
        covered.insert(covered.end(), g.span().begin(), g.span().end());
    }
    std::sort(covered.begin(), covered.end());
    covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
    CHECK(covered == d.span().cpus());
    if (d.child) CHECK(d.groups[0].span() == d.child->span());
}

void check_all(const sched_domain_tree& tree) {
    for (const sched_domain& d : tree.all_domains()) check_parameters(d);
}

} // namespace

TEST_CASE("sched_domain_tree: flag names follow the modelled kernel") {
    CHECK(sd_flag_names(SD_BALANCE_NEWIDLE | SD_SHARE_LLC | SD_NUMA, v6_12) ==
          "SD_BALANCE_NEWIDLE SD_SHARE_LLC SD_NUMA");
    CHECK(sd_flag_names(SD_BALANCE_NEWIDLE | SD_SHARE_LLC | SD_NUMA, v5_15) ==
          "SD_BALANCE_NEWIDLE SD_SHARE_PKG_RESOURCES SD_NUMA");
    CHECK(sd_flag_names(smt_flags, v6_12) ==
          "SD_BALANCE_NEWIDLE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE "
          "SD_SHARE_CPUCAPACITY SD_SHARE_LLC SD_PREFER_SIBLING");
    CHECK(sd_flag_names(0, v6_12).empty());
    // SD_WAKE_AFFINE is the one sd_init flag that does not need groups.
    CHECK((sd_degenerate_groups_mask() & SD_WAKE_AFFINE) == 0);
    CHECK((sd_degenerate_groups_mask() & SD_PREFER_SIBLING) != 0);
    CHECK(schedstat_idle_order(v5_15)[0] == CPU_IDLE);
    CHECK(schedstat_idle_order(v6_12)[0] == CPU_NOT_IDLE);
}

TEST_CASE("sched_domain_tree: zen3-5950x has SMT, MC (the CCX) and PKG") {
    auto tree = tree_of("zen3-5950x");
    CHECK(tree.describe() == "SMT 2, MC 16, PKG 32");
    check_all(tree);
    const auto d = tree.domains(0);
    REQUIRE(d.size() == 3);
    CHECK(std::string(d[0].name) == "SMT");
    CHECK(d[0].flags == smt_flags);
    CHECK(d[0].imbalance_pct == 110);
    CHECK(d[0].cache_nice_tries == 0);
    CHECK(group_lists(d[0]) == std::vector<std::string>{"0", "16"});
    CHECK(d[0].groups[1].capacity() == 1024);

    CHECK(std::string(d[1].name) == "MC");
    CHECK(d[1].flags == mc_flags);
    CHECK(cpulist(d[1].span().cpus()) == "0-7,16-23");
    CHECK(group_lists(d[1]) ==
          std::vector<std::string>{"0,16", "1,17", "2,18", "3,19", "4,20", "5,21", "6,22", "7,23"});
    for (const sched_group& g : d[1].group_list()) {
        CHECK(g.capacity() == 2048); // two SMT siblings at 1024 each
        CHECK(g.cores == 1);
        CHECK(g.flags == smt_flags); // the child (SMT) domain's flags
    }
    CHECK(d[1].imbalance_pct == 117);
    CHECK(d[1].cache_nice_tries == 1);
    CHECK(d[1].min_interval == 16);
    CHECK(d[1].max_interval == 32);

    CHECK(std::string(d[2].name) == "PKG");
    CHECK(d[2].flags == base_flags);
    CHECK(group_lists(d[2]) == std::vector<std::string>{"0-7,16-23", "8-15,24-31"}); // the two CCDs
    CHECK(d[2].groups[1].capacity() == 16 * 1024);
    CHECK(d[2].groups[1].cores == 8);
    CHECK(d[2].groups[1].balance_cpu() == 8);
    CHECK(d[2].imb_numa_nr == 2); // two LLCs in the first domain above the LLC
    CHECK(d[2].parent == nullptr);
    CHECK(d[2].child == &d[1]);
    CHECK(d[1].parent == &d[2]);
    CHECK(d[0].child == nullptr);

    // The per-CPU shortcuts: a CCX is 16 CPUs with SMT.
    for (unsigned c = 0; c < 32; ++c) {
        CHECK(tree.sd_llc_size(c) == 16);
        CHECK(tree.sd_llc(c) == &tree.domains(c)[1]);
        CHECK(tree.sd_numa(c) == nullptr);
        CHECK(tree.sd_llc_shared(c)->nr_busy_cpus == 16);
    }
    CHECK(tree.sd_llc_id(17) == 0);
    CHECK(tree.sd_llc_id(24) == 8);
    CHECK(tree.cpus_share_cache(0, 23));
    CHECK(!tree.cpus_share_cache(7, 8));
    CHECK(tree.cpus_share_resources(0, 16)); // no clusters: the same LLC
    CHECK(tree.highest_flag_domain(3, SD_SHARE_LLC) == &tree.domains(3)[1]);
    CHECK(tree.lowest_flag_domain(3, SD_SHARE_LLC) == &tree.domains(3)[0]);
    CHECK(tree.sd_llc_shared(0) == tree.sd_llc_shared(23)); // one per LLC
    CHECK(tree.sd_llc_shared(0) != tree.sd_llc_shared(8));

    // Another CPU's groups start with its own (for_each_cpu_wrap from that CPU).
    CHECK(group_lists(tree.domains(9)[1]) ==
          std::vector<std::string>{"9,25", "10,26", "11,27", "12,28", "13,29", "14,30", "15,31", "8,24"});
    CHECK(group_lists(tree.domains(9)[2]) == std::vector<std::string>{"8-15,24-31", "0-7,16-23"});
    // Identical groups share one sched_group_capacity, as the kernel's sgc.
    CHECK(tree.domains(9)[2].groups[1].sgc == tree.domains(0)[2].groups[0].sgc);
}

TEST_CASE("sched_domain_tree: zen3-5950x under v5.15 names the package level DIE") {
    auto tree = tree_of("zen3-5950x", v5_15);
    CHECK(tree.describe() == "SMT 2, MC 16, DIE 32");
    check_all(tree);
    const auto d = tree.domains(0);
    CHECK(d[1].flags == mc_flags);
    CHECK(d[2].imb_numa_nr == 0); // v5.18+
    CHECK(sd_flag_names(d[1].flags, v5_15).find("SD_SHARE_PKG_RESOURCES") != std::string::npos);
}

TEST_CASE("sched_domain_tree: genoa-9654-2s has a NUMA level beyond node_reclaim_distance") {
    auto tree = tree_of("genoa-9654-2s");
    CHECK(tree.describe() == "SMT 2, MC 16, PKG 192, NUMA 384");
    check_all(tree);
    CHECK(tree.all_domains().size() == 384 * 4);
    const auto d = tree.domains(0);
    REQUIRE(d.size() == 4);
    CHECK(d[0].flags == smt_flags);
    CHECK(d[1].flags == mc_flags);
    CHECK(d[2].flags == base_flags); // PKG, a child of a NUMA level, keeps SD_PREFER_SIBLING
    CHECK(std::string(d[3].name) == "NUMA");
    CHECK(d[3].numa_distance == 32);
    CHECK(d[3].flags == far_numa_flags); // 32 > 30: no WAKE_AFFINE, BALANCE_FORK, BALANCE_EXEC
    CHECK(!d[3].has(SD_PREFER_SIBLING));
    // imbalance_pct, cache_nice_tries, intervals per level.
    const unsigned pct[] = {110, 117, 117, 117}, tries[] = {0, 1, 1, 2}, weight[] = {2, 16, 192, 384};
    for (unsigned i = 0; i < 4; ++i) {
        CHECK(d[i].imbalance_pct == pct[i]);
        CHECK(d[i].cache_nice_tries == tries[i]);
        CHECK(d[i].span_weight == weight[i]);
        CHECK(d[i].min_interval == weight[i]);
        CHECK(d[i].max_interval == 2 * weight[i]);
        CHECK(d[i].busy_factor == 16);
    }
    // sd->level counts the kernel's topology levels, CLS and NODE included.
    CHECK(d[0].level == 0);
    CHECK(d[1].level == 2);
    CHECK(d[2].level == 3);
    CHECK(d[3].level == 5);
    CHECK(group_lists(d[3]) == std::vector<std::string>{"0-95,192-287", "96-191,288-383"});
    CHECK(d[3].groups[1].capacity() == 192 * 1024);
    CHECK(d[3].groups[1].balance_cpu() == 96);
    CHECK(d[2].nr_groups == 12); // the CCDs of a socket
    CHECK(d[2].imb_numa_nr == 12);
    CHECK(d[3].imb_numa_nr == 12);
    CHECK(tree.sd_numa(0) == &d[3]);
    CHECK(tree.sd_llc_size(100) == 16);
    CHECK(group_lists(tree.domains(100)[3]) == std::vector<std::string>{"96-191,288-383", "0-95,192-287"});
    // Wakeups stay affine, and fork/exec balance, up to the package; the NUMA level is too far.
    CHECK(tree.highest_flag_domain(0, SD_WAKE_AFFINE) == &d[2]);
    CHECK(tree.highest_flag_domain(0, SD_BALANCE_FORK) == &d[2]);
    // Contiguous storage: CPU 1's domains follow CPU 0's.
    CHECK(tree.domains(1).begin() == tree.domains(0).end());
}

TEST_CASE("sched_domain_tree: genoa-9654-2s-nps4 has NODE and two NUMA levels") {
    auto tree = tree_of("genoa-9654-2s-nps4");
    CHECK(tree.describe() == "SMT 2, MC 16, NODE 48, NUMA 192, NUMA 384");
    check_all(tree);
    const auto d = tree.domains(0);
    REQUIRE(d.size() == 5);
    CHECK(std::string(d[2].name) == "NODE");
    CHECK(d[2].flags == base_flags); // NODE has no SD_NUMA: it balances like a package
    CHECK(d[2].cache_nice_tries == 1);
    CHECK(group_lists(d[2]) == std::vector<std::string>{"0-7,192-199", "8-15,200-207", "16-23,208-215"});
    CHECK(d[3].numa_distance == 12);
    CHECK(d[3].flags == near_numa_flags); // 12 <= 30: keeps WAKE_AFFINE and fork/exec balancing
    CHECK(group_lists(d[3]) ==
          std::vector<std::string>{"0-23,192-215", "24-47,216-239", "48-71,240-263", "72-95,264-287"});
    CHECK(d[4].numa_distance == 32);
    CHECK(d[4].flags == far_numa_flags);
    CHECK(group_lists(d[4]) == std::vector<std::string>{"0-95,192-287", "96-191,288-383"});
    CHECK(d[2].imb_numa_nr == 3); // 3 LLCs per node
    CHECK(d[3].imb_numa_nr == 3);
    CHECK(d[4].imb_numa_nr == 6); // scaled by 384 / 192
    CHECK(tree.sd_numa(0) == &d[3]);
    CHECK(tree.highest_flag_domain(0, SD_WAKE_AFFINE) == &d[3]);
    for (const sched_group& g : d[4].group_list()) CHECK(*g.balance_mask == g.span());
}

TEST_CASE("sched_domain_tree: emr-8580-2s-snc2 has sub-NUMA clusters as NUMA levels") {
    auto tree = tree_of("emr-8580-2s-snc2");
    CHECK(tree.describe() == "SMT 2, MC 60, NUMA 120, NUMA 240");
    check_all(tree);
    const auto d = tree.domains(0);
    REQUIRE(d.size() == 4);
    CHECK(d[1].flags == mc_flags);
    CHECK(d[1].nr_groups == 30);
    CHECK(d[2].flags == near_numa_flags); // distances 12 and 21 are both within 30
    CHECK(d[3].flags == near_numa_flags);
    CHECK(group_lists(d[2]) == std::vector<std::string>{"0-29,120-149", "30-59,150-179"});
    CHECK(tree.sd_llc_size(0) == 60);
    CHECK(d[2].imb_numa_nr == 7); // one LLC per node: 60 / 8
    CHECK(d[3].imb_numa_nr == 14);
}

TEST_CASE("sched_domain_tree: clovertown-e5335-2s has CLS under v6.12 and MC under v5.15") {
    {
        auto tree = tree_of("clovertown-e5335-2s");
        CHECK(tree.describe() == "CLS 2, PKG 8");
        check_all(tree);
        const auto d = tree.domains(1);
        CHECK(d[0].flags == (base_flags | SD_CLUSTER | SD_SHARE_LLC));
        CHECK(d[0].imbalance_pct == 117);
        CHECK(d[0].cache_nice_tries == 1);
        CHECK(group_lists(d[0]) == std::vector<std::string>{"1", "0"});
        CHECK(d[0].groups[0].flags == 0); // the single-CPU SMT level below was dropped
        CHECK(group_lists(d[1]) == std::vector<std::string>{"0-1", "2-3", "4-5", "6-7"});
        CHECK(d[1].groups[0].flags == d[0].flags);
        CHECK(tree.sd_llc(1) == &d[0]);
        CHECK(tree.sd_llc_size(1) == 2);
        CHECK(tree.sd_share_id(1) == 0);
        CHECK(tree.lowest_flag_domain(1, SD_CLUSTER) == &d[0]);
    }
    {
        auto tree = tree_of("clovertown-e5335-2s", v5_15);
        CHECK(tree.describe() == "MC 2, DIE 8");
        check_all(tree);
        const auto d = tree.domains(0);
        CHECK(d[0].flags == mc_flags);
        CHECK(tree.sd_llc_size(0) == 2);
        CHECK(tree.lowest_flag_domain(0, SD_CLUSTER) == nullptr);
    }
}

TEST_CASE("sched_domain_tree: haswell-i7-4790 stops at MC, which spans the machine") {
    auto tree = tree_of("haswell-i7-4790");
    CHECK(tree.describe() == "SMT 2, MC 8");
    check_all(tree);
    const auto d = tree.domains(0);
    REQUIRE(d.size() == 2);
    CHECK(d[1].parent == nullptr);
    CHECK(d[1].imb_numa_nr == 0); // nothing above the LLC
    CHECK(group_lists(d[1]) == std::vector<std::string>{"0,4", "1,5", "2,6", "3,7"});
    CHECK(tree.sd_numa(0) == nullptr);
    CHECK(tree.sd_llc_size(0) == 8);
}

TEST_CASE("sched_domain_tree: the summary agrees with the level derivation on every shipped platform") {
    for (const char* name :
         {"zen3-5950x", "milan-7763-2s", "genoa-9654-2s", "genoa-9654-2s-nps4", "emr-8580-2s",
          "emr-8580-2s-snc2", "haswell-e5-2690v3-2s", "haswell-i7-4790", "clovertown-e5335-2s"}) {
        INFO(name);
        const auto p = platform::load_platform(name);
        const platform::topology t(p);
        const platform::fabric_graph g(p, t, {});
        const auto dist = platform::numa_distances(p, t, g);
        const sched_domain_tree tree(t, dist, v6_12);
        CHECK(tree.describe() == describe_sched_domains(build_sched_domains(t, dist)));
        for (unsigned c = 0; c < t.num_cpus(); ++c) CHECK(tree.describe(c) == tree.describe(0));
    }
}

namespace {
// Four sockets in a line (0 - 1 - 2 - 3), one node each, two cores (no SMT) sharing an LLC per socket:
// NUMA distances 20, 30 and 40, so node 0 and 3 need three NUMA levels and nodes 1 and 2 two.
std::string line_platform_yaml() {
    return R"(name: line4
topology:
  levels:
    - {name: socket, count: 4}
    - {name: core, count: 2}
  threads_per_core: 1
core:
  frequency: 1GHz
  max_outstanding_misses: 4
  atomic_latency: 10cycles
caches:
  - {name: l1d, shared_by: core, size: 1KiB, associativity: 2, latency: 1cycles}
  - {name: l2, shared_by: core, size: 2KiB, associativity: 4, latency: 4cycles}
  - {name: l3, shared_by: socket, size: 4KiB, associativity: 4, latency: 20cycles, peer_snoop_latency: 5cycles}
memory:
  controllers_per: socket
  latency: 50ns
  bandwidth: 6.4GB/s
numa:
  node_per: socket
  distances:
    - [10, 20, 30, 40]
    - [20, 10, 20, 30]
    - [30, 20, 10, 20]
    - [40, 30, 20, 10]
fabric:
  directory_latency: 2ns
  stops:
    - {name: hub, per: socket}
  links:
    - {from: hub, to: llc, latency: 10ns, bandwidth: 64GB/s}
    - {from: hub, to: memory, latency: 5ns, bandwidth: 64GB/s}
    - {from: hub, to: hub, pattern: all, latency: 20ns, bandwidth: 64GB/s}
)";
}
} // namespace

TEST_CASE("sched_domain_tree: an asymmetric NUMA line has chains of unequal depth and overlapping groups") {
    const auto p = platform::read_platform(config::load_yaml_text(line_platform_yaml(), "line4.yaml"));
    auto tree = tree_of(p);
    // CPUs 0-1 are node 0, 2-3 node 1, 4-5 node 2, 6-7 node 3.
    CHECK(tree.describe(0) == "MC 2, NUMA 4, NUMA 6, NUMA 8");
    CHECK(tree.describe(2) == "MC 2, NUMA 6, NUMA 8"); // node 1 reaches every node at distance 30
    CHECK(tree.describe(6) == "MC 2, NUMA 4, NUMA 6, NUMA 8");
    check_all(tree);
    const auto d = tree.domains(0);
    REQUIRE(d.size() == 4);
    CHECK(d[1].numa_distance == 20);
    CHECK(d[1].flags == near_numa_flags);
    CHECK(d[2].numa_distance == 30);
    CHECK(d[2].flags == near_numa_flags); // 30 is not beyond node_reclaim_distance
    CHECK(d[3].numa_distance == 40);
    CHECK(d[3].flags == far_numa_flags);
    CHECK(d[0].groups[0].flags == 0); // the single-CPU SMT base was dropped
    // NUMA-30 of node 0 spans nodes 0-2; node 2's own child domain (nodes 1-3) would leave that span, so the
    // group descends to node 2 itself (find_descended_sibling).
    CHECK(group_lists(d[2]) == std::vector<std::string>{"0-3", "4-5"});
    // NUMA-40: two overlapping groups; only the CPUs that reach each group from below are in its balance
    // mask.
    CHECK(group_lists(d[3]) == std::vector<std::string>{"0-5", "2-7"});
    CHECK(cpulist(d[3].groups[0].balance_mask->cpus()) == "0-1");
    CHECK(cpulist(d[3].groups[1].balance_mask->cpus()) == "6-7");
    CHECK(d[3].groups[1].balance_cpu() == 6);
    CHECK(d[3].groups[1].capacity() == 6 * 1024);
    // CPU 2 (node 1): NUMA-30 spans the machine and is its top.
    const auto d2 = tree.domains(2);
    CHECK(d2[1].flags == near_numa_flags);
    CHECK(group_lists(d2[2]) == std::vector<std::string>{"0-5", "4-7"});
    CHECK(group_lists(d[1]) == std::vector<std::string>{"0-1", "2-3"});
    CHECK(tree.sd_numa(2) == &d2[1]);
}

TEST_CASE("sched_domain_tree: imb_numa_nr is the version change NUMA_IMB_PER_LLC (v5.18), in either kernel, "
          "the level names stay the kernel's") {
    // zen3-5950x: PKG spans the two CCXs, so imb_numa_nr = 2 where the change is on.
    for (auto k : {v5_15, v6_12}) {
        CAPTURE(to_string(k));
        const sched_domain_tree with = tree_with("zen3-5950x", k, "NUMA_IMB_PER_LLC", true);
        const sched_domain_tree without = tree_with("zen3-5950x", k, "NUMA_IMB_PER_LLC", false);
        const auto a = with.domains(0), b = without.domains(0);
        REQUIRE(a.size() == 3);
        REQUIRE(b.size() == 3);
        CHECK(a[2].imb_numa_nr == 2);
        CHECK(b[2].imb_numa_nr == 0);
        CHECK(std::string(a[2].name) == (k == v5_15 ? "DIE" : "PKG"));
        CHECK(with.describe(0) == without.describe(0));
    }
    // The kernels' own defaults: off in v5.15, on in v6.12.
    CHECK(tree_of("zen3-5950x", v5_15).domains(0)[2].imb_numa_nr == 0);
    CHECK(tree_of("zen3-5950x", v6_12).domains(0)[2].imb_numa_nr == 2);
}
