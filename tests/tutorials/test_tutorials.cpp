// `warmsched tutorial`: each tutorial runs end to end with --quick (fewer and shorter steps, the same
// figures and check), writes its figures as non-empty PNG and SVG, its report and tutorial.json, and the
// effect it teaches is in its numbers: each case below re-checks that effect from tutorial.json's data,
// independently of the tutorial's own check. Also: the list, a name that is not a tutorial, an --out that
// is not empty, and the same tutorial giving the same numbers twice.
#include "tests/support/cli_runner.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using warmsched::test::run_cli;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs `tutorial NAME --quick` into a fresh directory and checks what every tutorial writes; returns
// tutorial.json.
nlohmann::json run_tutorial(const std::string& name, const std::vector<std::string>& figures) {
    const fs::path dir = fs::temp_directory_path() / ("warmsched-test-tutorial-" + name);
    fs::remove_all(dir);
    const auto r = run_cli("tutorial " + name + " --quick -j 1 --out " + dir.string());
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    REQUIRE(r.out.find("Check: ") != std::string::npos);
    REQUIRE(r.out.find(" -- seen") != std::string::npos);
    for (const auto& f : figures) {
        const std::string png = slurp(dir / "plots" / (f + ".png"));
        REQUIRE(png.size() > 1000);
        CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
        const std::string svg = slurp(dir / "plots" / (f + ".svg"));
        REQUIRE(svg.size() > 1000);
        CHECK(svg.find("<svg") != std::string::npos);
        CHECK(fs::exists(dir / "plots" / (f + ".gp")));
    }
    const std::string report = slurp(dir / "report.md");
    CHECK(report.find("# Tutorial: ") == 0);
    CHECK(report.find("## Check") != std::string::npos);
    CHECK(report.find("## Try this next") != std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(slurp(dir / "tutorial.json"));
    CHECK(j.at("tutorial") == name);
    CHECK(j.at("quick") == true);
    CHECK(j.at("check").at("holds") == true);
    CHECK(j.at("figures").size() == figures.size());
    for (const auto& s : j.at("steps")) CHECK(fs::exists(dir / "runs" / (s.at("name").get<std::string>() + ".txt")));
    return j;
}

} // namespace

TEST_CASE("tutorial with no name lists the eight tutorials in order", "[tutorial]") {
    const auto r = run_cli("tutorial");
    REQUIRE(r.status == 0);
    std::size_t at = 0;
    for (const char* name : {"line-origin", "migration-cost", "stacking", "wake-affine", "cfs-vs-eevdf", "rt-placement",
                             "throttling", "own-policy"}) {
        const std::size_t next = r.out.find(std::string("  ") + name + " ", at);
        INFO(name << "\n" << r.out);
        REQUIRE(next != std::string::npos);
        at = next;
    }
}

TEST_CASE("tutorial: an unknown name and a non-empty --out are one-line errors with status 2", "[tutorial]") {
    auto r = run_cli("tutorial nosuch");
    CHECK(r.status == 2);
    CHECK(r.err == "error: tutorial: no tutorial 'nosuch' (there are: line-origin, migration-cost, stacking, "
                   "wake-affine, cfs-vs-eevdf, rt-placement, throttling, own-policy)\n");
    const fs::path dir = fs::temp_directory_path() / "warmsched-test-tutorial-nonempty";
    fs::create_directories(dir);
    std::ofstream(dir / "keep.txt") << "mine\n";
    r = run_cli("tutorial rt-placement --out " + dir.string());
    CHECK(r.status == 2);
    CHECK(r.err.find("error: --out " + dir.string()) == 0);
    CHECK(slurp(dir / "keep.txt") == "mine\n");
    fs::remove_all(dir);
}

TEST_CASE("tutorial line-origin: the staircase climbs level by level and c2c grows with distance", "[tutorial]") {
    const auto j = run_tutorial("line-origin", {"latency", "c2c"});
    for (const char* p : {"zen3", "genoa"}) {
        const auto& l = j.at("data").at(p).at("load_ns_by_level");
        INFO(p << ": " << l.dump());
        CHECK(l.at("L1").get<double>() < l.at("L2").get<double>());
        CHECK(l.at("L2").get<double>() < l.at("L3").get<double>());
        CHECK(l.at("L3").get<double>() * 4 < l.at("DRAM").get<double>());
    }
    const auto& z = j.at("data").at("zen3").at("c2c_median_ns");
    CHECK(z.at("smt").get<double>() < z.at("same_llc").get<double>());
    CHECK(z.at("same_llc").get<double>() * 2 < z.at("same_socket/2hops").get<double>());
    const auto& g = j.at("data").at("genoa").at("c2c_median_ns");
    CHECK(g.at("same_llc").get<double>() < g.at("same_quadrant").get<double>());
    CHECK(g.at("same_quadrant").get<double>() < g.at("cross_socket").get<double>());
}

TEST_CASE("tutorial migration-cost: refill grows with distance at every working-set size", "[tutorial]") {
    const auto j = run_tutorial("migration-cost", {"migration_cost"});
    const auto& e = j.at("data").at("extra_us");
    REQUIRE(e.size() == 3);
    for (const auto& [ws, by] : e.items()) {
        INFO(ws << ": " << by.dump());
        CHECK(by.at("smt").get<double>() < 0.1);
        CHECK(by.at("same_llc").get<double>() < by.at("same_socket").get<double>());
        CHECK(by.at("same_socket").get<double>() < by.at("cross_socket").get<double>());
    }
    // Past the L3 of one CCD nothing is left to share: the lines of a move to the other socket come from
    // the other socket's caches, within an LLC from the L3.
    const auto& from = j.at("data").at("lines_from");
    CHECK(from.at("cross_socket").at("the other socket's caches").get<double>() > 0);
    CHECK(from.at("same_llc").at("own L3").get<double>() > 0);
}

TEST_CASE("tutorial stacking: the pair is slowest across LLCs, where its lines come from the other L3", "[tutorial]") {
    const auto j = run_tutorial("stacking", {"stacking"});
    const auto& d = j.at("data");
    const double same = d.at("same-llc").at("transactions_per_s"), cross = d.at("other-llc").at("transactions_per_s");
    CHECK(d.at("same-cpu").at("transactions_per_s").get<double>() > same);
    CHECK(cross < same);
    CHECK(d.at("other-llc").at("accesses_per_transaction").at("another L3").get<double>() > 10);
    CHECK(d.at("same-llc").at("accesses_per_transaction").at("another L3").get<double>() < 1);
    // SMT siblings share L2: the lines the pair passes never leave it.
    CHECK(d.at("smt").at("accesses_per_transaction").at("own L3").get<double>() <
          d.at("same-llc").at("accesses_per_transaction").at("own L3").get<double>());
}

TEST_CASE("tutorial wake-affine: only the split run has cross-LLC wakeups, and they refill more", "[tutorial]") {
    const auto j = run_tutorial("wake-affine", {"wake_affine"});
    const auto& one = j.at("data").at("one-ccd");
    const auto& two = j.at("data").at("two-ccds");
    CHECK(one.at("wakeup_migrations").value("other LLC", 0.0) == 0);
    CHECK(two.at("wakeup_migrations").at("other LLC").get<double>() > 0);
    CHECK(two.at("refill_us_per_wakeup_migration").at("other LLC").get<double>() >
          2 * two.at("refill_us_per_wakeup_migration").at("same LLC").get<double>());
}

TEST_CASE("tutorial cfs-vs-eevdf: a custom slice cuts the short task's wait under EEVDF", "[tutorial]") {
    const auto j = run_tutorial("cfs-vs-eevdf", {"cfs_vs_eevdf"});
    const auto& p = j.at("data").at("slice_probe");
    CHECK(p.at("probe-eevdf-slice").at("mean_us").get<double>() < 0.5 * p.at("probe-eevdf").at("mean_us").get<double>());
    CHECK(p.at("probe-cfs").at("mean_us").get<double>() < p.at("probe-eevdf").at("mean_us").get<double>());
    for (const char* k : {"cfs", "eevdf"}) {
        const auto& w = j.at("data").at("schbench").at(k).at("Wakeup Latencies (usec)");
        CHECK(w.at("p50").get<double>() <= w.at("p99").get<double>());
    }
}

TEST_CASE("tutorial rt-placement: the linear scan reads many more run queues than cpupri", "[tutorial]") {
    const auto j = run_tutorial("rt-placement", {"rt_placement"});
    const auto& on = j.at("data").at("cpupri-on");
    const auto& off = j.at("data").at("cpupri-off");
    CHECK(off.at("rq_reads").get<double>() > 10 * on.at("rq_reads").get<double>());
    CHECK(on.at("rt_wakeups") == off.at("rt_wakeups"));
    CHECK(on.at("pushes").get<double>() > 0);
}

TEST_CASE("tutorial throttling: the group is held to its quota in both throttle models", "[tutorial]") {
    const auto j = run_tutorial("throttling", {"throttling"});
    for (const char* m : {"per-cfs-rq", "task-based"}) {
        const auto& d = j.at("data").at(m);
        INFO(m << ": " << d.dump());
        CHECK(d.at("nr_throttled").get<double>() >= 3);
        CHECK(d.at("cpus").get<double>() <= 2.4);
        CHECK(d.at("cpus").get<double>() > 1.0);
    }
}

TEST_CASE("tutorial own-policy: llc_sticky never migrates across LLCs, EEVDF does", "[tutorial]") {
    const auto j = run_tutorial("own-policy", {"own_policy"});
    const auto& d = j.at("data");
    CHECK(d.at("eevdf").at("migrations").at("other LLC").get<double>() > 0);
    CHECK(d.at("llc-sticky").at("migrations").value("other LLC", 0.0) == 0);
    CHECK(d.at("llc-sticky").at("stall_per_migration_us").get<double>() <
          d.at("eevdf").at("stall_per_migration_us").get<double>());
}

TEST_CASE("tutorial: the same tutorial gives the same numbers twice, whatever -j", "[tutorial]") {
    const fs::path a = fs::temp_directory_path() / "warmsched-test-tutorial-repeat-a";
    const fs::path b = fs::temp_directory_path() / "warmsched-test-tutorial-repeat-b";
    fs::remove_all(a);
    fs::remove_all(b);
    REQUIRE(run_cli("tutorial rt-placement --quick -j 1 --out " + a.string()).status == 0);
    REQUIRE(run_cli("tutorial rt-placement --quick -j 2 --out " + b.string()).status == 0);
    CHECK(slurp(a / "tutorial.json") == slurp(b / "tutorial.json"));
    CHECK(slurp(a / "report.md") == slurp(b / "report.md"));
    CHECK(slurp(a / "plots" / "landed.dat") == slurp(b / "plots" / "landed.dat"));
    fs::remove_all(a);
    fs::remove_all(b);
}

TEST_CASE("tutorial: SIGINT stops the running steps, keeps nothing and exits 130", "[tutorial]") {
    const fs::path dir = fs::temp_directory_path() / "warmsched-test-tutorial-sigint";
    fs::remove_all(dir);
    // line-origin's latency probes run for tens of seconds: the signal comes while they run.
    const std::string script = std::string(WARMSCHED_BINARY) + " tutorial line-origin -j 2 --out " + dir.string() +
                               " >/dev/null 2>&1 & pid=$!; sleep 3; kill -INT $pid; wait $pid; echo $?";
    FILE* p = ::popen(("sh -c '" + script + "'").c_str(), "r");
    REQUIRE(p);
    char buf[64] = {};
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, p);
    ::pclose(p);
    CHECK(std::string(buf, n) == "130\n");
    CHECK_FALSE(fs::exists(dir));
    for (const auto& e : fs::directory_iterator(dir.parent_path()))
        CHECK(e.path().filename().string().rfind("warmsched-test-tutorial-sigint.partial-", 0) != 0);
    // No step is left running: the full (not --quick) latency probes, which no other test runs, are gone
    // (the [B] keeps pgrep from finding its own command line).
    FILE* ps = ::popen("pgrep -f -- 'max-footprint 256Mi[B]' | wc -l", "r");
    REQUIRE(ps);
    const std::size_t m = std::fread(buf, 1, sizeof buf - 1, ps);
    ::pclose(ps);
    CHECK(std::string(buf, m) == "0\n");
}
