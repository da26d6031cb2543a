// The experiment file's cgroup v2 hierarchy (sim/cgroups/cgroup_config.h): groups and their cpu settings
// as the kernel's cgroup files take them, the generator of large trees, workloads assigned to groups,
// the resolved config.yaml (which must read back to the same run), and one error line per mistake with
// the file position and the key path.
#include "platforms/config/config_error.h"
#include "sim/cgroups/cgroup_config.h"
#include "sim/experiment.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <unistd.h>

using namespace warmsched;
namespace fs = std::filesystem;

namespace {

const char* header = "platform: zen3-5950x\n";

fs::path write_file(const std::string& name, const std::string& text) {
    const fs::path p =
        fs::temp_directory_path() / ("warmsched-cg-" + std::to_string(::getpid()) + "-" + name);
    std::ofstream(p) << text;
    return p;
}

sim::experiment read(const std::string& body) {
    const fs::path p = write_file("ok.yaml", header + body);
    sim::experiment e = sim::read_experiment(p.string(), {});
    fs::remove(p);
    return e;
}

// The error lines for an experiment whose body is `body` (fails the test if it is accepted).
std::vector<std::string> errors_of(const std::string& body) {
    const fs::path p = write_file("bad.yaml", header + body);
    try {
        sim::read_experiment(p.string(), {});
    } catch (const config::config_error& e) {
        fs::remove(p);
        for (const auto& l : e.lines()) CHECK(l.find('\n') == std::string::npos);
        return e.lines();
    }
    fs::remove(p);
    FAIL("the experiment was accepted:\n" << body);
    return {};
}

// Exactly one error, at line `line` of the file (counting the platform line), about `key`, saying `what`.
void check_error(const std::string& body, int line, const std::string& key, const std::string& what) {
    INFO(body);
    const auto lines = errors_of(body);
    REQUIRE(lines.size() == 1);
    INFO(lines[0]);
    CHECK(lines[0].find("bad.yaml:" + std::to_string(line) + ":") != std::string::npos);
    CHECK(lines[0].find(" " + key + ": ") != std::string::npos);
    CHECK(lines[0].find(what) != std::string::npos);
}

const std::string run_one = "workloads: [hackbench -p -g 1 -l 1]\n";

} // namespace

TEST_CASE("cgroups: groups with cpu.weight cpu.weight.nice cpu.max and cpu.max.burst are read as given") {
    const auto e = read(run_one + R"(cgroups:
  - path: /db
    cpu.max: "200000 100000"
    cpu.max.burst: 50000
  - {path: /db/batch, cpu.weight: 50}
  - {path: /web, cpu.weight.nice: -5, cpu.max: "max 50000"}
  - {path: /web/static, cpu.max: 3000}
)");
    const auto& t = e.cgroups;
    REQUIRE(t.groups.size() == 5);
    const auto db = t.find("/db"), batch = t.find("/db/batch"), web = t.find("/web"),
               st = t.find("/web/static");
    REQUIRE((db && batch && web && st));
    CHECK(t.groups[*db].parent == 0);
    CHECK(t.groups[*db].quota_ns == std::optional<std::uint64_t>(200'000'000));
    CHECK(t.groups[*db].period_ns == 100'000'000);
    CHECK(t.groups[*db].burst_ns == 50'000'000);
    CHECK(t.groups[*db].weight == 100);
    CHECK(t.groups[*batch].parent == *db);
    CHECK(t.groups[*batch].weight == 50);
    CHECK_FALSE(t.groups[*batch].quota_ns);
    // nice -5 is weight 3121 in the nice table: cpu.weight reads back round(3121 * 100 / 1024) = 305
    // (config.yaml keeps cpu.weight.nice, which sets it).
    CHECK(t.groups[*web].weight == 305);
    CHECK_FALSE(t.groups[*web].quota_ns);
    CHECK(t.groups[*web].period_ns == 50'000'000);
    // A quota alone keeps the default period (the kernel's cpu.max "QUOTA").
    CHECK(t.groups[*st].quota_ns == std::optional<std::uint64_t>(3'000'000));
    CHECK(t.groups[*st].period_ns == 100'000'000);
    CHECK(e.workload_groups == std::vector<scheduler::group_id>{0});

    // Resolved: every group with all four files in their canonical form.
    const std::string yaml = e.resolved.to_yaml();
    INFO(yaml);
    CHECK(yaml.find("path: /web/static") != std::string::npos);
    CHECK(yaml.find("cpu.max: 3000 100000") != std::string::npos);
    CHECK(yaml.find("cpu.max: max 50000") != std::string::npos);
    CHECK(yaml.find("cpu.weight.nice: -5") != std::string::npos);
    CHECK(yaml.find("cpu.weight: 50\n") != std::string::npos);
    CHECK(yaml.find("cpu.max.burst: 50000") != std::string::npos);
}

TEST_CASE("cgroups: cpu.weight.nice goes through the nice table as the kernel's cpu.weight shows it") {
    CHECK(sim::cgroup_weight_of_nice(0) == 100);
    CHECK(sim::cgroup_weight_of_nice(-20) == 8668); // 88761 shares
    CHECK(sim::cgroup_weight_of_nice(19) == 1);     // 15 shares
    CHECK(sim::cgroup_weight_of_nice(1) == 80);     // 820 shares
}

TEST_CASE("cgroups: every bad value is one error line with the file position and the key path") {
    const std::string g = run_one + "cgroups:\n"; // groups start on line 4
    check_error(g + "  - {path: /a, cpu.weight: 0}\n", 4, "cgroups[0].cpu.weight", "out of range [1, 10000]");
    check_error(g + "  - {path: /a, cpu.weight: 10001}\n", 4, "cgroups[0].cpu.weight", "out of range");
    check_error(g + "  - {path: /a, cpu.weight.nice: 20}\n", 4, "cgroups[0].cpu.weight.nice",
                "out of range [-20, 19]");
    check_error(g + "  - {path: /a, cpu.weight: 10, cpu.weight.nice: 1}\n", 4, "cgroups[0].cpu.weight.nice",
                "not both");
    check_error(g + "  - {path: /a, cpu.max: \"50000 100000 3\"}\n", 4, "cgroups[0].cpu.max",
                "expected \"QUOTA PERIOD\" or \"max PERIOD\"");
    check_error(g + "  - {path: /a, cpu.max: \"lots\"}\n", 4, "cgroups[0].cpu.max", "got 'lots'");
    check_error(g + "  - {path: /a, cpu.max: \"50000 999\"}\n", 4, "cgroups[0].cpu.max",
                "period 999 us is out of range [1000, 1000000]");
    check_error(g + "  - {path: /a, cpu.max: \"max 2000000\"}\n", 4, "cgroups[0].cpu.max",
                "period 2000000 us");
    check_error(g + "  - {path: /a, cpu.max: \"999 100000\"}\n", 4, "cgroups[0].cpu.max",
                "quota 999 us is below the minimum of 1000 us");
    check_error(g + "  - {path: /a, cpu.max: \"5000 100000\", cpu.max.burst: 5001}\n", 4,
                "cgroups[0].cpu.max.burst", "5001 us exceeds the quota (5000 us of cpu.max)");
    check_error(g + "  - {path: /a, cpu.max.burst: -1}\n", 4, "cgroups[0].cpu.max.burst", "out of range");
    check_error(g + "  - {path: a}\n", 4, "cgroups[0].path", "starts with '/'");
    check_error(g + "  - {path: /a/}\n", 4, "cgroups[0].path", "does not end with '/'");
    check_error(g + "  - {path: /}\n", 4, "cgroups[0].path", "the root group is always there");
    check_error(g + "  - {path: /a b}\n", 4, "cgroups[0].path", "has a ' '");
    check_error(g + "  - {path: /a//b}\n", 4, "cgroups[0].path", "an empty path component");
    check_error(g + "  - {path: /a/..}\n", 4, "cgroups[0].path", "'..' is not a group name");
    check_error(g + "  - {path: /a}\n  - {path: /a}\n", 5, "cgroups[1].path", "group /a is defined twice");
    check_error(g + "  - {path: /a/b}\n", 4, "cgroups[0].path",
                "parent /a of /a/b is not defined before it (list parents first");
    check_error(g + "  - {path: /a/b}\n  - {path: /a}\n", 4, "cgroups[0].path", "parent /a of /a/b");
    check_error(g + "  - {path: /a, cpu.shares: 1024}\n", 4, "cgroups[0].cpu.shares", "unknown key");
    check_error(g + "  - {cpu.weight: 5}\n", 4, "cgroups[0].path", "required key is missing");
    check_error(g + "  - /a\n", 4, "cgroups[0]", "expected a map with path:");
    check_error(run_one + "cgroups: /a\n", 3, "cgroups", "expected a list of groups");
}

TEST_CASE("cgroups: a workload's cgroup must be a group of the experiment") {
    check_error(
        "workloads:\n  - {command: hackbench -p -g 1 -l 1, cgroup: /nope}\ncgroups:\n  - {path: /a}\n", 3,
        "workloads.0.cgroup", "no group /nope in this experiment");
    check_error("workloads:\n  - {command: hackbench -p -g 1 -l 1, cgroup: a}\n", 3, "workloads.0.cgroup",
                "expected a group path such as /tenant0");
    const auto e =
        read("workloads:\n  - hackbench -p -g 1 -l 1\n  - {command: hackbench -p -g 1 -l 1, cgroup: "
             "/a/b}\n  - {command: hackbench -g 1 -l 1, cgroup: /}\ncgroups:\n  - {path: /a}\n  - "
             "{path: /a/b}\n");
    CHECK(e.workload_groups == std::vector<scheduler::group_id>{0, *e.cgroups.find("/a/b"), 0});
    const std::string yaml = e.resolved.to_yaml();
    INFO(yaml);
    CHECK(yaml.find("cgroup: /a/b") != std::string::npos);
}

TEST_CASE("cgroup_generator: bad settings are one error line each with the key path") {
    const std::string g = run_one + "cgroup_generator:\n"; // keys start on line 4
    check_error(g + "  fanout: [2]\n", 4, "cgroup_generator.name", "required key is missing");
    check_error(g + "  name: t\n", 4, "cgroup_generator.fanout", "required key is missing");
    check_error(g + "  name: t\n  fanout: [2, 0]\n", 5, "cgroup_generator.fanout",
                "'0' is not a whole number in [1, 1000]");
    check_error(g + "  name: t\n  fanout: 3\n", 5, "cgroup_generator.fanout", "expected a list of 1 to 16");
    check_error(g + "  name: t\n  fanout: [100, 100, 100]\n", 5, "cgroup_generator.fanout",
                "makes 1010100 groups; at most 65536");
    check_error(g + "  name: t\n  fanout: [2]\n  level_2: {cpu.weight: 5}\n", 6, "cgroup_generator.level_2",
                "the generator has 1 level (fanout)");
    check_error(g + "  name: t\n  fanout: [2]\n  level_1: {cpu.max: \"500 100000\"}\n", 6,
                "cgroup_generator.level_1.cpu.max", "quota 500 us is below");
    check_error(g + "  name: t\n  fanout: [2]\n  level_1: 5\n", 6, "cgroup_generator.level_1",
                "expected a map");
    check_error(g + "  name: t\n  fanout: [2]\n  parent: /x\n", 6, "cgroup_generator.parent", "no group /x");
    check_error(g + "  name: t/u\n  fanout: [2]\n", 4, "cgroup_generator.name", "has a '/'");
    check_error(g + "  name: t\n  fanout: [2]\n  leaf_workload: {command: hackbench -l 1, cgroup: /t0}\n", 6,
                "cgroup_generator.leaf_workload.cgroup", "set by the generator");
    check_error(g + "  name: t\n  fanout: [2]\n  leaf_workload: hackbench --bogus\n", 6,
                "cgroup_generator.leaf_workload", "hackbench");
    check_error(g + "  name: t\n  fanout: [2]\n  levels: 3\n", 6, "cgroup_generator.levels", "unknown key");
    check_error(run_one + "cgroups:\n  - {path: /t0}\ncgroup_generator: {name: t, fanout: [2]}\n", 5,
                "cgroup_generator.name", "group /t0 is defined twice");
}

TEST_CASE("cgroup_generator: 2/2/2/5/5 makes 200 leaves with their paths quotas and workloads") {
    const auto e = read(R"(cgroup_generator:
  name: tenant
  fanout: [2, 2, 2, 5, 5]
  level_1: {cpu.max: "5000000 100000"}
  level_4: {cpu.weight: 200}
  leaf_workload: hackbench -p -g 1 -l 10
)");
    const auto& t = e.cgroups;
    REQUIRE(t.groups.size() == 1 + 2 + 4 + 8 + 40 + 200);
    const std::regex path_re(R"(/tenant([01])(/l2_([01])(/l3_([01])(/l4_([0-4])(/l5_([0-4]))?)?)?)?)");
    std::vector<unsigned> depth_count(6, 0);
    std::set<scheduler::group_id> leaves;
    for (scheduler::group_id g = 1; g < t.groups.size(); ++g) {
        const auto& s = t.groups[g];
        INFO(s.path);
        REQUIRE(std::regex_match(s.path, path_re));
        const auto depth = static_cast<std::size_t>(std::count(s.path.begin(), s.path.end(), '/'));
        ++depth_count[depth];
        CHECK(s.parent < g); // parents come first
        CHECK(t.groups[s.parent].path == (depth == 1 ? "/" : s.path.substr(0, s.path.rfind('/'))));
        if (depth == 1) {
            CHECK(s.quota_ns == std::optional<std::uint64_t>(5'000'000'000ull)); // 50 CPUs
            CHECK(s.period_ns == 100'000'000);
        } else {
            CHECK_FALSE(s.quota_ns);
        }
        CHECK(s.weight == (depth == 4 ? 200u : 100u));
        if (depth == 5) leaves.insert(g);
    }
    CHECK(depth_count == std::vector<unsigned>{0, 2, 4, 8, 40, 200});
    // One hackbench per leaf, each leaf exactly once.
    REQUIRE(e.workloads.size() == 200);
    CHECK(std::set<scheduler::group_id>(e.workload_groups.begin(), e.workload_groups.end()) == leaves);
    for (const auto& w : e.workloads) CHECK(w == "hackbench -p -g 1 -l 10");
    // config.yaml lists every generated group and workload.
    const std::string yaml = e.resolved.to_yaml();
    CHECK(std::count(yaml.begin(), yaml.end(), '\n') > 254 * 5);
    CHECK(yaml.find("path: /tenant1/l2_1/l3_1/l4_4/l5_4") != std::string::npos);
    CHECK(yaml.find("cgroup: /tenant1/l2_1/l3_1/l4_4/l5_4") != std::string::npos);
    CHECK(yaml.find("expanded: true") != std::string::npos);
}

TEST_CASE("cgroup_generator: a run's config.yaml reads back to the same hierarchy and workloads") {
    const auto e = read(R"(workloads: [hackbench -p -g 1 -l 1]
cgroups:
  - {path: /top, cpu.max: "400000 100000"}
cgroup_generator:
  - {name: a, parent: /top, fanout: [2, 3], level_2: {cpu.weight.nice: 3}, leaf_workload: {command: hackbench -g 1 -l 2}}
  - {name: b, fanout: [2]}
)");
    CHECK(e.cgroups.groups.size() == 1 + 1 + 2 + 6 + 2);
    CHECK(e.cgroups.find("/top/a1/l2_2"));
    CHECK(e.cgroups.find("/b1"));
    REQUIRE(e.workloads.size() == 7);
    const fs::path p = write_file("config.yaml", e.resolved.to_yaml());
    const auto again = sim::read_experiment(p.string(), {});
    fs::remove(p);
    REQUIRE(again.cgroups.groups.size() == e.cgroups.groups.size());
    for (std::size_t g = 0; g < e.cgroups.groups.size(); ++g) {
        const auto &a = e.cgroups.groups[g], &b = again.cgroups.groups[g];
        CHECK(a.path == b.path);
        CHECK(a.parent == b.parent);
        CHECK(a.weight == b.weight);
        CHECK(a.quota_ns == b.quota_ns);
        CHECK(a.period_ns == b.period_ns);
        CHECK(a.burst_ns == b.burst_ns);
    }
    CHECK(again.workloads == e.workloads);
    CHECK(again.workload_groups == e.workload_groups);
}
