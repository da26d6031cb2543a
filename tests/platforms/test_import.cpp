// `warmsched import`: real machines' hwloc XML (hwloc's own test corpus), a saved sysfs tree and this
// machine's lstopo, sysfs and lscpu output become platform files that load through the normal reader, say
// what the input says (CPUs, SMT, cores per LLC, NUMA nodes, cache sizes and ways -- the numbers below are
// read off the XML files by hand), mark and list every estimate, and give the sched domains Linux builds
// for that topology (SMT -> CLS -> MC -> PKG -> NODE/NUMA, degenerate levels dropped:
// /work/shared/reference/platforms.md and kernel/sched/topology.c). Bad input is one error line, status 2.
#include "platforms/config/config_error.h"
#include "platforms/config/config_node.h"
#include "platforms/fabric_graph.h"
#include "platforms/import/platform_import.h"
#include "platforms/platform_loader.h"
#include "platforms/topology.h"
#include "scheduler/topology/sched_domains.h"
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace warmsched;
namespace fs = std::filesystem;

namespace {

const std::string data = std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/";

std::string imported(const std::string& input, platform::import::import_from from = platform::import::import_from::automatic) {
    platform::import::import_request r;
    r.input = input;
    r.from = from;
    return platform::import::import_platform_yaml(r);
}

platform::platform_params loaded(const std::string& yaml) {
    return platform::read_platform(config::load_yaml_text(yaml, "<test>"));
}

struct domains {
    std::string summary;                          // "SMT 2, MC 6, NODE 12, NUMA 96"
    std::vector<std::string> cpu0;                // CPU 0's span per level, as cpulists
    std::vector<scheduler::sched_domain_level> levels;
};

domains domains_of(const platform::platform_params& p, scheduler::sched_domain_options o = {}) {
    const platform::topology t(p);
    const platform::fabric_graph g(p, t, {});
    domains d;
    d.levels = scheduler::build_sched_domains(t, platform::numa_distances(p, t, g), o);
    d.summary = scheduler::describe_sched_domains(d.levels);
    for (const auto& l : d.levels) d.cpu0.push_back(scheduler::cpulist(l.span[0]));
    return d;
}

unsigned cpus_of(const platform::platform_params& p) {
    unsigned n = p.threads_per_core;
    for (const auto& l : p.levels) n *= l.count;
    return n;
}
unsigned cores_per_llc(const platform::platform_params& p) {
    const platform::topology t(p);
    return t.num_cores() / t.num_llcs();
}

// The dotted keys (caches[2].latency) of the lines commented `# est: ...`, and the `estimated:` list.
struct estimates {
    std::vector<std::string> marked, listed;
};
estimates estimates_of(const std::string& yaml) {
    estimates e;
    struct segment {
        int indent;
        std::string text; // "caches", "[2]", "latency"
    };
    std::vector<segment> stack;
    std::map<std::string, int> items; // list path -> items seen
    auto joined = [&] {
        std::string s;
        for (const auto& g : stack) s += (g.text[0] == '[' || s.empty() ? "" : ".") + g.text;
        return s;
    };
    std::istringstream in(yaml);
    for (std::string line; std::getline(in, line);) {
        const auto first = line.find_first_not_of(' ');
        if (first == std::string::npos || line[first] == '#') continue;
        int indent = static_cast<int>(first);
        std::string content = line.substr(first), comment;
        if (const auto hash = content.find(" # "); hash != std::string::npos) {
            comment = content.substr(content.find_first_not_of(' ', hash + 2));
            content = content.substr(0, hash);
        }
        while (!stack.empty() && stack.back().indent >= indent) stack.pop_back();
        if (content.rfind("- ", 0) == 0) {
            const std::string list = joined();
            if (list == "estimated") {
                std::string key = content.substr(2);
                key = key.substr(0, key.find_last_not_of(' ') + 1);
                e.listed.push_back(key);
                continue;
            }
            stack.push_back({indent, "[" + std::to_string(items[list]++) + "]"});
            content = content.substr(2);
            indent += 2;
        }
        const auto colon = content.find(':');
        if (colon == std::string::npos || content[0] == '{') continue;
        stack.push_back({indent, content.substr(0, colon)});
        if (comment.rfind("est:", 0) == 0) e.marked.push_back(joined());
    }
    return e;
}

void check_estimates_listed(const std::string& yaml) {
    const auto e = estimates_of(yaml);
    REQUIRE(!e.marked.empty());
    CHECK(e.marked == e.listed); // the same keys, in file order
}

} // namespace

TEST_CASE("import: the estimated-keys check finds a key that is marked but not listed") {
    // The helper the tests below rely on, shown failing on a file that forgets one key.
    const std::string yaml = "estimated:\n  - core.base_cpi\ncore:\n  base_cpi: 0.4  # est: x\n"
                             "caches:\n  - name: l1d\n  - name: l2\n    latency: 4cycles  # est: y\n";
    const auto e = estimates_of(yaml);
    CHECK(e.listed == std::vector<std::string>{"core.base_cpi"});
    CHECK(e.marked == std::vector<std::string>{"core.base_cpi", "caches[1].latency"});
}

TEST_CASE("import: 2-socket EPYC 7451 (Zen) from hwloc's x86 corpus") {
    const std::string yaml = imported(data + "hwloc/AMD-17h-Zen-2xEpyc-7451.xml");
    const auto p = loaded(yaml);
    // 2 packages x 4 dies (each a NUMA node) x 2 CCX x 3 cores x 2 PUs = 96 CPUs; L3 8 MiB 16-way per CCX.
    CHECK(cpus_of(p) == 96);
    CHECK(p.threads_per_core == 2);
    CHECK(cores_per_llc(p) == 3);
    CHECK(platform::topology(p).num_nodes() == 8);
    REQUIRE(p.caches.size() == 3);
    CHECK(p.caches[0].size == 32 * 1024);
    CHECK(p.caches[0].associativity == 8);
    CHECK(p.caches[1].size == 512 * 1024);
    CHECK(p.caches[1].associativity == 8);
    CHECK(p.caches[2].size == 8u << 20);
    CHECK(p.caches[2].associativity == 16);
    CHECK(p.cpu_numbering == "siblings_last"); // core 0 = PUs 0 and 48
    CHECK(yaml.find("milan-7713-2s-nps4") != std::string::npos); // Zen family, 4 nodes per socket
    check_estimates_listed(yaml);
    // A node per die inside the package: PKG is skipped; no SLIT in the XML, so Linux's 10/20 default
    // gives one NUMA level over the 8 nodes.
    const auto d = domains_of(p);
    CHECK(d.summary == "SMT 2, MC 6, NODE 12, NUMA 96");
    CHECK(d.cpu0 == std::vector<std::string>{"0,48", "0-2,48-50", "0-5,48-53", "0-95"});
    CHECK(yaml.find("numa.distances") != std::string::npos); // the default table is an estimate
}

TEST_CASE("import: 2-socket EPYC 9654 (Zen 4) gives the shipped genoa-9654-2s domains") {
    const std::string yaml = imported(data + "hwloc/AMD-19h-Zen4-2xEpyc-9654.xml");
    const auto p = loaded(yaml);
    // 2 packages x 12 dies (CCDs) x 8 cores x 2 PUs = 384 CPUs; one 32 MiB 16-way L3 per die.
    CHECK(cpus_of(p) == 384);
    CHECK(p.threads_per_core == 2);
    CHECK(cores_per_llc(p) == 8);
    CHECK(platform::topology(p).num_nodes() == 2);
    CHECK(p.caches.back().size == 32u << 20);
    CHECK(p.caches.back().associativity == 16);
    CHECK(p.caches[1].size == 1u << 20);
    CHECK(p.caches.back().shared_by == "die");
    CHECK(yaml.find("genoa-9654-2s") != std::string::npos);
    check_estimates_listed(yaml);
    const auto d = domains_of(p);
    CHECK(d.summary == domains_of(platform::load_platform("genoa-9654-2s")).summary);
    CHECK(d.summary == "SMT 2, MC 16, PKG 192, NUMA 384");
    CHECK(d.cpu0 == std::vector<std::string>{"0,192", "0-7,192-199", "0-95,192-287", "0-383"});
}

TEST_CASE("import: 2-socket Xeon E5345 (Core 2) keeps its alternating CPU numbers") {
    const std::string yaml = imported(data + "hwloc/Intel-Core-2xXeon-E5345.xml");
    const auto p = loaded(yaml);
    // 2 packages x 2 L2 pairs x 2 cores, no SMT = 8 CPUs; 4 MiB 16-way L2 (the LLC) per pair; one node.
    // Package 0 holds CPUs 0,2,4,6 and its first L2 CPUs 0 and 4.
    CHECK(cpus_of(p) == 8);
    CHECK(p.threads_per_core == 1);
    CHECK(cores_per_llc(p) == 2);
    CHECK(platform::topology(p).num_nodes() == 1);
    REQUIRE(p.caches.size() == 2);
    CHECK(p.caches[1].size == 4u << 20);
    CHECK(p.caches[1].associativity == 16);
    CHECK(p.cpu_ids == std::vector<unsigned>{0, 4, 2, 6, 1, 5, 3, 7});
    CHECK(yaml.find("clovertown-e5335-2s") != std::string::npos);
    CHECK(yaml.find("frequency: 2.33GHz") != std::string::npos); // the model string's clock, an estimate
    check_estimates_listed(yaml);
    // The L2 pairs are CLS (v5.16+) or MC; the package gets no level of its own (the node spans both).
    const auto d = domains_of(p);
    CHECK(d.summary == "CLS 2, PKG 8");
    CHECK(d.cpu0 == std::vector<std::string>{"0,4", "0-7"});
    CHECK(domains_of(p, {false, "DIE"}).summary == "MC 2, DIE 8");
    const platform::topology t(p);
    CHECK(t.socket_of_core(t.core_of_cpu(2)) == 0);
    CHECK(t.socket_of_core(t.core_of_cpu(1)) == 1);
}

TEST_CASE("import: 2-socket Xeon Gold 6140 (Skylake-SP) with one NUMA node in the dump") {
    const std::string yaml = imported(data + "hwloc/Intel-Skylake-2xXeon6140.xml");
    const auto p = loaded(yaml);
    // 2 packages x 18 cores x 2 PUs = 72 CPUs; L3 24.75 MiB 11-way per package; L2 1 MiB 16-way.
    CHECK(cpus_of(p) == 72);
    CHECK(p.threads_per_core == 2);
    CHECK(cores_per_llc(p) == 18);
    CHECK(platform::topology(p).num_nodes() == 1);
    CHECK(p.caches.back().size == 25952256);
    CHECK(p.caches.back().associativity == 11);
    CHECK(p.caches[1].size == 1u << 20);
    CHECK(p.numa.node_per == "machine");
    CHECK(yaml.find("emr-8580-2s") != std::string::npos);
    check_estimates_listed(yaml);
    // Package 0 = the even CPUs; the single node makes PKG span the machine.
    const auto d = domains_of(p);
    CHECK(d.summary == "SMT 2, MC 36, PKG 72");
    std::vector<unsigned> even;
    for (unsigned c = 0; c < 72; c += 2) even.push_back(c);
    CHECK(d.cpu0 == std::vector<std::string>{"0,36", scheduler::cpulist(even), "0-71"});
}

TEST_CASE("import: 2-socket Xeon E5-2650 as Linux saw it, with its SLIT") {
    const std::string yaml = imported(data + "hwloc/Intel-SandyBridge-2xXeon-E5-2650-linux.xml");
    const auto p = loaded(yaml);
    // 2 packages = 2 nodes x 8 cores x 2 PUs = 32 CPUs; L3 20 MiB 20-way per package; distances 10/20.
    CHECK(cpus_of(p) == 32);
    CHECK(cores_per_llc(p) == 8);
    CHECK(platform::topology(p).num_nodes() == 2);
    CHECK(p.caches.back().size == 20u << 20);
    CHECK(p.caches.back().associativity == 20);
    CHECK(p.numa.distances == std::vector<std::vector<double>>{{10, 20}, {20, 10}});
    CHECK(yaml.find("numa.distances") == std::string::npos); // read, not estimated
    check_estimates_listed(yaml);
    const auto d = domains_of(p);
    CHECK(d.summary == "SMT 2, MC 16, NUMA 32");
    CHECK(d.cpu0 == std::vector<std::string>{"0,16", "0-7,16-23", "0-31"});
}

TEST_CASE("import: 24-socket Xeon E5-4640 with three remote distances gets three NUMA levels") {
    const std::string yaml = imported(data + "hwloc/Intel-SandyBridge-24xXeon-E5-4640-linux.xml");
    const auto p = loaded(yaml);
    // 24 packages = 24 nodes x 8 cores x 2 PUs = 384 CPUs; node 0's row: 10, one node at 50, 12 at 65,
    // 10 at 79: within 50 = 2 nodes (32 CPUs), within 65 = 14 nodes (224), within 79 = all 24 (384).
    CHECK(cpus_of(p) == 384);
    CHECK(platform::topology(p).num_nodes() == 24);
    check_estimates_listed(yaml);
    const auto d = domains_of(p);
    CHECK(d.summary == "SMT 2, MC 16, NUMA 32, NUMA 224, NUMA 384");
    CHECK(d.cpu0[0] == "0,192");
    CHECK(d.cpu0[1] == "0-7,192-199");
    CHECK(d.cpu0[2] == "0-15,192-207");
}

TEST_CASE("import: this machine's lstopo XML, sysfs and lscpu agree") {
    const auto from_xml = loaded(imported(data + "this-machine/lstopo.xml"));
    const std::string sysfs_yaml = imported(data + "this-machine/sysfs");
    const auto from_sysfs = loaded(sysfs_yaml);
    const std::string lscpu_yaml = imported(data + "this-machine/lscpu.json");
    const auto from_lscpu = loaded(lscpu_yaml);
    const std::string full_yaml = imported(data + "this-machine/lscpu-e-C.json");
    const auto from_full = loaded(full_yaml);
    // A KVM guest: 1 package x 2 cores, no SMT; L1d 48 KiB 12-way, L2 2 MiB 16-way, L3 260 MiB 20-way.
    for (const auto* p : {&from_xml, &from_sysfs, &from_lscpu, &from_full}) {
        CHECK(cpus_of(*p) == 2);
        CHECK(p->threads_per_core == 1);
        CHECK(cores_per_llc(*p) == 2);
        REQUIRE(p->caches.size() == 3);
        CHECK(p->caches[0].size == 48 * 1024);
        CHECK(p->caches[1].size == 2u << 20);
        CHECK(p->caches[2].size == 260u << 20);
        CHECK(p->caches[2].associativity == 20);
        CHECK(domains_of(*p).summary == "MC 2");
    }
    // lscpu's summary has no ways: estimated there (the family's 20 divides 260 MiB), read with -C.
    CHECK(lscpu_yaml.find("caches[2].associativity") != std::string::npos);
    CHECK(full_yaml.find("caches[2].associativity") == std::string::npos);
    for (const auto& y : {sysfs_yaml, lscpu_yaml, full_yaml}) check_estimates_listed(y);
}

TEST_CASE("import: a saved sysfs tree of a 2-socket Core 2 Xeon") {
    const std::string yaml = imported(data + "sysfs/8em64t-2s2ca2c", platform::import::import_from::sysfs);
    const auto p = loaded(yaml);
    // proc/cpuinfo: Xeon E5345; package 0 = CPUs 0,2,4,6, L2 (4 MiB, 16-way) pairs 0,4 and 2,6.
    CHECK(cpus_of(p) == 8);
    CHECK(cores_per_llc(p) == 2);
    CHECK(p.caches.back().size == 4u << 20);
    CHECK(p.caches.back().associativity == 16);
    CHECK(yaml.find("clovertown-e5335-2s") != std::string::npos);
    CHECK(p.cpu_ids == std::vector<unsigned>{0, 4, 2, 6, 1, 5, 3, 7});
    const auto d = domains_of(p);
    CHECK(d.summary == "CLS 2, PKG 8");
    CHECK(d.cpu0 == std::vector<std::string>{"0,4", "0-7"});
    check_estimates_listed(yaml);
}

TEST_CASE("import: a shape the model cannot state is one error naming it") {
    try {
        imported(data + "hwloc/synthetic-shared-l2.xml");
        FAIL("imported a shared L2 below the L3");
    } catch (const config::config_error& e) {
        REQUIRE(e.lines().size() == 1);
        CHECK(e.lines()[0].find("synthetic-shared-l2.xml: L2 cache is shared by 2 cores but is not the last level") !=
              std::string::npos);
    }
}

TEST_CASE("import: topology.cpu_ids is checked like every other key") {
    auto with_ids = [](const std::string& ids) {
        std::string y = imported(data + "hwloc/Intel-Core-2xXeon-E5345.xml");
        const auto at = y.find("cpu_ids: [");
        y.replace(at, y.find(']', at) - at + 1, "cpu_ids: [" + ids + "]");
        return y;
    };
    CHECK(loaded(with_ids("7, 6, 5, 4, 3, 2, 1, 0")).cpu_ids.front() == 7);
    for (const auto& [ids, why] : std::vector<std::pair<std::string, std::string>>{
             {"0, 4, 2, 6, 1, 5, 3, 3", "CPU 3 is listed twice"},
             {"0, 1, 2", "expected 8 CPU numbers"},
             {"0, 1, 2, 3, 4, 5, 6, 8", "'8' is not a CPU number of this machine (0-7)"}}) {
        try {
            loaded(with_ids(ids));
            FAIL("accepted cpu_ids " + ids);
        } catch (const config::config_error& e) {
            CHECK(e.lines()[0].find(why) != std::string::npos);
        }
    }
}

TEST_CASE("import: the command line writes a file that topology and run use, and reads stdin") {
    const fs::path out = fs::temp_directory_path() / "warmsched-import-core2.yaml";
    fs::remove(out);
    auto r = test::run_cli("import " + data + "hwloc/Intel-Core-2xXeon-E5345.xml -o " + out.string());
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(test::file_text(out).find("name: Intel-Core-2xXeon-E5345") != std::string::npos);
    r = test::run_cli("topology " + out.string());
    CHECK(r.status == 0);
    CHECK(r.out.find("CLS 2, PKG 8") != std::string::npos);
    // An XML given where a platform is expected is imported on the fly.
    r = test::run_cli("topology --platform " + data + "hwloc/AMD-17h-Zen-2xEpyc-7451.xml");
    CHECK(r.status == 0);
    CHECK(r.out.find("SMT 2, MC 6, NODE 12, NUMA 96") != std::string::npos);
    // Standard input, told apart by its content; --from sysfs for a directory; --name.
    r = test::run_cli("import - --name mine < " + data + "this-machine/lscpu.json");
    CHECK(r.status == 0);
    CHECK(r.out.find("name: mine\n") != std::string::npos);
    r = test::run_cli("import --from sysfs " + data + "sysfs/8em64t-2s2ca2c");
    CHECK(r.status == 0);
    CHECK(r.out.find("cpu_ids: [0, 4, 2, 6, 1, 5, 3, 7]") != std::string::npos);
    // No input: this machine.
    r = test::run_cli("import");
    CHECK(r.status == 0);
    CHECK(r.out.find("name: this-machine\n") != std::string::npos);
    CHECK_NOTHROW(loaded(r.out));
}

TEST_CASE("import: warmsched run --platform X.xml runs hackbench on the imported machine") {
    const fs::path dir = fs::temp_directory_path() / "warmsched-import-run";
    fs::remove_all(dir);
    const auto r = test::run_cli("run --platform " + data + "hwloc/Intel-Core-2xXeon-E5345.xml --out " +
                                 dir.string() + " -- hackbench -p -g 1 -l 5");
    CHECK(r.status == 0);
    CHECK(r.err.find("error") == std::string::npos); // stderr has only the wall-clock speed line
    CHECK(r.out.find("Time: ") != std::string::npos);
    CHECK(r.out.find("--- warmsched: Intel-Core-2xXeon-E5345 (8 CPUs)") != std::string::npos);
    CHECK(test::file_text(dir / "config.yaml").find("Intel-Core-2xXeon-E5345") != std::string::npos);
}

TEST_CASE("import: bad input is one error line naming the file, status 2") {
    const fs::path dir = fs::temp_directory_path() / "warmsched-import-bad";
    fs::create_directories(dir);
    const fs::path broken = dir / "broken.xml", v3 = dir / "hwloc3.xml", neither = dir / "notes.txt";
    std::ofstream(broken) << "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n  <object type=\"Machine\"";
    std::ofstream(v3) << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<topology version=\"3.0\">\n"
                         "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\"/>\n</topology>\n";
    std::ofstream(neither) << "hello\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"import " + broken.string(), broken.string() + ": "},
        {"import " + v3.string(), v3.string() + ": hwloc: cannot import XML version 3.0"},
        {"import " + neither.string(), neither.string() + ": neither hwloc XML"},
        {"import " + (dir / "missing.xml").string(), (dir / "missing.xml").string() + ": does not exist"},
        {"import --from sysfs " + neither.string(), neither.string() + ": not a directory"},
        {"import --from lscpu " + v3.string(), v3.string() + ": not lscpu JSON"},
        {"import --from hwloc " + data + "this-machine/lscpu.json", data + "this-machine/lscpu.json: not an hwloc XML"},
        {"run --platform " + broken.string() + " -- hackbench -p -g 1 -l 5", broken.string() + ": "},
        {"topology " + v3.string(), v3.string() + ": hwloc: cannot import XML version 3.0"},
    };
    for (const auto& [args, expect] : cases) {
        const auto r = test::run_cli(args);
        INFO(args << "\n" << r.err);
        CHECK(r.status == 2);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.err.rfind("error: " + expect, 0) == 0);
        CHECK(r.out.empty());
    }
}
