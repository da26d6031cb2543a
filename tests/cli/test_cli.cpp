// The command line as users meet it: the listings and formats it prints, the one-line errors and exit
// status 2 for bad input, and byte-identical output for the same configuration and seed.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <vector>

namespace fs = std::filesystem;

namespace {
using result = warmsched::test::cli_result;
result run(const std::string& args) {
    return warmsched::test::run_cli(args);
}

unsigned lines(const std::string& s) {
    return static_cast<unsigned>(std::count(s.begin(), s.end(), '\n'));
}

fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = fs::temp_directory_path() / name;
    std::ofstream(p) << text;
    return p;
}
} // namespace

TEST_CASE("the README's excerpt of `make run` is what the default experiment prints") {
    // The excerpt: the indented lines from hackbench's first line to the blank line after the migration
    // table; "..." stands for lines left out.
    std::ifstream readme(std::string(WARMSCHED_SOURCE_DIR) + "/README.md");
    std::vector<std::string> excerpt;
    bool in = false;
    for (std::string line; std::getline(readme, line);) {
        if (line.rfind("    Running in process mode", 0) == 0) in = true;
        if (!in) continue;
        if (line.rfind("    ", 0) != 0 && !line.empty()) break;
        if (!line.empty() && line.find("...") == std::string::npos) excerpt.push_back(line.substr(4));
    }
    REQUIRE(excerpt.size() >= 12);
    const fs::path out = fs::temp_directory_path() / "warmsched-readme-run";
    const auto r = run("run " + std::string(WARMSCHED_SOURCE_DIR) + "/configs/experiments/default.yaml --out " +
                       out.string());
    REQUIRE(r.status == 0);
    std::istringstream printed(r.out);
    std::vector<std::string> lines_printed;
    for (std::string line; std::getline(printed, line);) lines_printed.push_back(line);
    for (const auto& line : excerpt) {
        INFO("README line: " << line);
        CHECK(std::find(lines_printed.begin(), lines_printed.end(), line) != lines_printed.end());
    }
    fs::remove_all(out);
}

TEST_CASE("platforms lists the thirteen shipped platforms, one line each") {
    const auto r = run("platforms");
    CHECK(r.status == 0);
    CHECK(lines(r.out) == 13);
    CHECK(r.out.find("genoa-9654-2s           384 CPUs  24 LLCs  2 NUMA nodes") != std::string::npos);
    // One of a thing is singular, and the columns stay aligned.
    CHECK(r.out.find("haswell-i7-4790           8 CPUs   1 LLC   1 NUMA node   Intel Core") != std::string::npos);
}

TEST_CASE("topology prints the lstopo tree, the NUMA distances and the sched domains") {
    const auto r = run("topology genoa-9654-2s");
    CHECK(r.status == 0);
    CHECK(r.out.find("Package L#1") != std::string::npos);
    CHECK(r.out.find("L3 L#23 (32MB)") != std::string::npos);
    CHECK(r.out.find("L2 L#0 (1024KB) + L1d L#0 (32KB) + Core L#0") != std::string::npos);
    CHECK(r.out.find("PU L#1 (P#192)") != std::string::npos);
    CHECK(r.out.find("  1:   32  10") != std::string::npos);
    CHECK(r.out.find("SMT 2, MC 16, PKG 192, NUMA 384") != std::string::npos);
    CHECK(r.out.find("SystemC") == std::string::npos); // no banner in the output
}

TEST_CASE("a platform given as a path works like a shipped name") {
    const auto r =
        run(std::string("topology ") + WARMSCHED_SOURCE_DIR + "/configs/platforms/haswell-i7-4790.yaml");
    CHECK(r.status == 0);
    CHECK(r.out.find("SMT 2, MC 8") != std::string::npos);
}

TEST_CASE("an experiment runs on another platform with -p platform=NAME") {
    const auto out = fs::temp_directory_path() / "warmsched-other-platform";
    const auto f =
        write("warmsched-other.yaml", "platform: zen3-5950x\nprobes:\n  latency: {max_footprint: 64KiB}\n");
    const auto r = run("run " + f.string() + " -p platform=haswell-i7-4790 --out " + out.string());
    CHECK(r.status == 0);
    CHECK(r.out.find("pointer chase on CPU 0 (haswell-i7-4790)") != std::string::npos);
    std::ifstream cfg(out / "config.yaml");
    std::stringstream s;
    s << cfg.rdbuf();
    CHECK(s.str().find("name: haswell-i7-4790") != std::string::npos);
}

TEST_CASE("CSV output has a header line and one row per measurement") {
    const auto r = run("probe c2c --platform zen3-5950x --pairs 0:16,0:1,0:8 --round-trips 10 --csv");
    CHECK(r.status == 0);
    CHECK(r.out.rfind("cpu_a,cpu_b,relation,one_way_ns\n", 0) == 0);
    CHECK(lines(r.out) == 4);
    CHECK(r.out.find("0,16,smt,") != std::string::npos);
}

TEST_CASE("bad input gets one line naming the problem and exit status 2") {
    SECTION("an unknown key given with -p") {
        const auto r = run("topology zen3-5950x -p core.frequncy=3GHz");
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find("core.frequncy: unknown key (did you mean frequency?)") != std::string::npos);
    }
    SECTION("a platform key given at an experiment's top level points to platform.KEY") {
        const auto r = run("run -p caches.2.size=64MiB");
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err == "error: -p caches.2.size=64MiB: caches: unknown key here: it is a key of platform "
                       "(platform.caches)\n");
    }
    SECTION("an unknown key with nothing near it lists the few keys known there") {
        const auto r = run("topology zen3-5950x -p core.zzz=1");
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find("core.zzz: unknown key (known here: ") != std::string::npos);
        CHECK(r.err.find("frequency") != std::string::npos);
    }
    SECTION("an unknown platform") {
        const auto r = run("topology zen9");
        CHECK(r.status == 2);
        CHECK(r.err.find("unknown platform 'zen9'") != std::string::npos);
    }
    SECTION("a CPU the machine does not have") {
        const auto r = run("probe latency --platform haswell-i7-4790 --cpu 8");
        CHECK(r.status == 2);
        CHECK(r.err.find("--cpu: 8 is not a CPU of haswell-i7-4790") != std::string::npos);
    }
    SECTION("a malformed size option") {
        const auto r = run("probe migrate --platform haswell-i7-4790 --ws 1MB_");
        CHECK(r.status == 2);
        CHECK(r.err.find("--ws") != std::string::npos);
    }
    SECTION("a mistake in an experiment file points at its line and column") {
        const auto f = write("warmsched-bad-experiment.yaml",
                             "platform: zen3-5950x\nprobes:\n  latency:\n    cpu: 99\n");
        const auto r =
            run("run " + f.string() + " --out " + (fs::temp_directory_path() / "warmsched-bad-out").string());
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find(f.string() + ":4:10: probes.latency.cpu: 99 is out of range [0, 31]") !=
              std::string::npos);
    }
    SECTION("a mistake inside the platform an experiment names points into the platform's own file") {
        const auto f = write("warmsched-bad-platform-override.yaml", "platform: zen3-5950x\nprobes: {}\n");
        const auto r = run("run " + f.string() + " -p platform.caches.0.size=33000B");
        CHECK(r.status == 2);
        CHECK(r.err.find("-p platform.caches.0.size=33000B: platform.caches[0].size: size is not a whole "
                         "number of sets") != std::string::npos);
    }
}

TEST_CASE("the same configuration and seed give byte-identical results") {
    const fs::path a = fs::temp_directory_path() / "warmsched-det-a",
                   b = fs::temp_directory_path() / "warmsched-det-b";
    fs::remove_all(a);
    fs::remove_all(b);
    const auto exp =
        write("warmsched-det.yaml", "platform: haswell-i7-4790\nseed: 7\nprobes:\n"
                                    "  latency: {max_footprint: 16MiB}\n  c2c: {}\n"
                                    "  migrate: {working_set: 128KiB}\n  bandwidth: {bytes_per_cpu: 1MiB}\n");
    REQUIRE(run("run " + exp.string() + " --out " + a.string()).status == 0);
    REQUIRE(run("run " + exp.string() + " --out " + b.string()).status == 0);
    for (const char* f :
         {"latency.csv", "c2c.csv", "migrate.csv", "bandwidth.csv", "config.yaml", "report.txt"}) {
        INFO(f);
        std::ifstream fa(a / f), fb(b / f);
        std::stringstream sa, sb;
        sa << fa.rdbuf();
        sb << fb.rdbuf();
        CHECK(!sa.str().empty());
        // config.yaml records the command line, which names each run's --out directory.
        std::string ta = sa.str(), tb = sb.str();
        if (const auto at = ta.find(a.string()); at != std::string::npos)
            ta.replace(at, a.string().size(), "OUT");
        if (const auto at = tb.find(b.string()); at != std::string::npos)
            tb.replace(at, b.string().size(), "OUT");
        CHECK(ta == tb);
    }
    // The resolved configuration holds defaults that the file did not give.
    std::ifstream cfg(a / "config.yaml");
    std::stringstream s;
    s << cfg.rdbuf();
    CHECK(s.str().find("bandwidth_window: 10ns") != std::string::npos);
    CHECK(s.str().find("max_loads: 1048576") != std::string::npos);
    CHECK(s.str().find("node_per: socket") !=
          std::string::npos); // sections checked across keys stay resolved
}

TEST_CASE("hackbench after -- prints what rt-tests hackbench prints then the run summary") {
    const auto out = fs::temp_directory_path() / "warmsched-hackbench-out";
    const auto r = run("run --out " + out.string() + " -- hackbench -p -g 2 -l 10");
    CHECK(r.status == 0);
    CHECK(r.out.rfind("Running in process mode with 2 groups using 40 file descriptors each (== 80 tasks)\n"
                      "Each sender will pass 10 messages of 100 bytes\nTime: 0.",
                      0) == 0);
    CHECK(r.out.find("--- warmsched: zen3-5950x (32 CPUs), EEVDF (Linux v6.12), HZ=250, seed 1") !=
          std::string::npos);
    for (const char* line : {"context switches", "migrations", "wakeups", "cache misses       L1d"})
        CHECK(r.out.find(line) != std::string::npos);
    CHECK(fs::exists(out / "stats.txt"));
    CHECK(r.err.find("simulated s per wall s") != std::string::npos);
}

TEST_CASE("hackbench over sockets on genoa-9654-2s runs to the end") {
    // Regression: a wakeup's placement scan list was read while touching run-queue lines, and a touch
    // that reached the quantum's end let another CPU's wakeup reuse (and reallocate) that list.
    const auto out = fs::temp_directory_path() / "warmsched-genoa-hackbench-out";
    const auto r = run("run --platform genoa-9654-2s --out " + out.string() + " -- hackbench -g 2 -l 20");
    CHECK(r.status == 0);
    CHECK(r.out.find("Time: ") != std::string::npos);
    CHECK(r.out.find("--- warmsched: genoa-9654-2s (384 CPUs)") != std::string::npos);
}

TEST_CASE("perf bench sched messaging prints perf's lines") {
    const auto r = run("run --out " + (fs::temp_directory_path() / "warmsched-perf-out").string() +
                       " --kernel cfs -- perf bench sched messaging -p -t -g 1 -l 10");
    CHECK(r.status == 0);
    CHECK(r.out.rfind("# Running 'sched/messaging' benchmark:\n# 20 sender and receiver threads per group\n"
                      "# 1 groups == 40 threads run\n\n     Total time: 0.",
                      0) == 0);
    CHECK(r.out.find("CFS (Linux v5.15)") != std::string::npos);
}

TEST_CASE("a bad workload command line gets the real tool's usage message and exit status 2 (bad input, as "
          "every other)") {
    const std::string out = " --out " + (fs::temp_directory_path() / "warmsched-usage-out").string();
    SECTION("an unknown hackbench option") {
        const auto r = run("run" + out + " -- hackbench -p -x");
        CHECK(r.status == 2);
        CHECK(r.err.rfind("hackbench: invalid option -- 'x'\nUsage: hackbench [-p|--pipe]", 0) == 0);
        CHECK(r.out.empty());
    }
    SECTION("a bad hackbench value") {
        const auto r = run("run" + out + " -- hackbench --loops 0");
        CHECK(r.status == 2);
        CHECK(r.err.rfind("hackbench: --loops|-l requires an integer > 0\n", 0) == 0);
    }
    SECTION("an unknown perf switch") {
        const auto r = run("run" + out + " -- perf bench sched messaging --grop 2");
        CHECK(r.status == 2);
        CHECK(r.err.rfind(" Error: unknown option `grop'\n", 0) == 0);
        CHECK(r.err.find("Usage: perf bench sched messaging <options>") != std::string::npos);
    }
    SECTION("taskset with a CPU the machine does not have") {
        const auto r = run("run" + out + " -- taskset -c 40 hackbench");
        CHECK(r.status == 2);
        CHECK(r.err.find("taskset: failed to parse CPU list: 40") != std::string::npos);
    }
    SECTION("an unknown tool") {
        const auto r = run("run" + out + " -- nosuchbench -m 2");
        CHECK(r.status == 2);
        CHECK(r.err.find("unknown workload 'nosuchbench -m 2'") != std::string::npos);
    }
    SECTION("a bad workload in an experiment file is a one-line configuration error") {
        const auto f =
            write("warmsched-bad-workload.yaml", "platform: zen3-5950x\nworkloads:\n  - hackbench -q\n");
        const auto r = run("run " + f.string() + out);
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find(f.string() + ":3:5: workloads: workload 0: hackbench: invalid option -- 'q'") !=
              std::string::npos);
    }
}

TEST_CASE("workload options are parsed by getopt_long, as the real tools parse them") {
    const std::string out = " --out " + (fs::temp_directory_path() / "warmsched-getopt-out").string();
    SECTION("a unique abbreviation of a long option") {
        const auto r = run("run" + out + " -- hackbench --pi --gr 1 --lo 5");
        CHECK(r.status == 0);
        CHECK(r.out.rfind("Running in process mode with 1 groups", 0) == 0);
        CHECK(r.out.find("Each sender will pass 5 messages") != std::string::npos);
    }
    SECTION("an ambiguous one, in glibc's words") {
        const auto r = run("run" + out + " -- hackbench --p");
        CHECK(r.status == 2);
        CHECK(r.err.rfind("hackbench: option '--p' is ambiguous; possibilities: '--pipe' '--processes'", 0) ==
              0);
    }
    SECTION("a missing value") {
        const auto r = run("run" + out + " -- hackbench -l");
        CHECK(r.status == 2);
        CHECK(r.err.rfind("hackbench: option requires an argument -- 'l'\n", 0) == 0);
    }
    SECTION("perf's words for a missing value") {
        const auto r = run("run" + out + " -- perf bench sched messaging -g");
        CHECK(r.status == 2);
        CHECK(r.err.rfind(" Error: switch `g' requires a value\n", 0) == 0);
    }
    SECTION("--help prints the usage on stdout and exits 0") {
        const auto r = run("run" + out + " -- hackbench --help");
        CHECK(r.status == 0);
        CHECK(r.out.rfind("Usage: hackbench [-p|--pipe]", 0) == 0);
        CHECK(r.err.empty());
    }
    SECTION("-F makes the main task and its children SCHED_FIFO 1 (rt-tests' --fifo)") {
        const auto r = run("run --seed 1" + out + " -- hackbench -F -p -g 2 -l 20");
        CHECK(r.status == 0);
        const auto rt = r.out.find("rt placement ");
        REQUIRE(rt != std::string::npos); // the wakeups are of RT tasks (without -F there is no such line)
        const auto wakeups = r.out.find("\nwakeups ");
        REQUIRE(wakeups != std::string::npos);
        const auto count = [&](std::size_t at, std::size_t skip) {
            return std::stoull(r.out.substr(r.out.find_first_of("0123456789", at + skip)));
        };
        CHECK(count(rt, 12) * 100 >= count(wakeups, 8) * 99); // 366 of 367 measured
        CHECK(count(rt, 12) > 100);
    }
}

TEST_CASE("config.yaml of a run given after -- describes what ran, not the default experiment") {
    const fs::path dir = fs::temp_directory_path() / "warmsched-cmdline-config";
    fs::remove_all(dir);
    const auto r = run("run --seed 1 --out " + dir.string() + " -- hackbench -p -g 2 -l 50");
    REQUIRE(r.status == 0);
    std::ifstream in(dir / "config.yaml");
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("\ndescription: \"the command line: hackbench -p -g 2 -l 50\"\n") !=
          std::string::npos);
    CHECK(text.str().find("400 tasks") == std::string::npos); // the default experiment's description
    CHECK(text.str().find("(its workloads replaced by the command line after --)") != std::string::npos);
}

TEST_CASE("warmsched's own command-line errors are one 'error:' line with status 2, and --help exits 0") {
    for (const std::string bad : {"run --bogus", "run --kernel bfs", "", "run --seed x"}) {
        INFO(bad);
        const auto r = run(bad);
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.rfind("error: ", 0) == 0);
        CHECK(r.out.empty());
    }
    const auto help = run("--help");
    CHECK(help.status == 0);
    CHECK(help.out.find("Usage:") != std::string::npos);
    CHECK(run("run --help").status == 0);
}

TEST_CASE("scheduler features and tunables are checked by name and range") {
    const std::string out = " --out " + (fs::temp_directory_path() / "warmsched-kernel-out").string();
    SECTION("an unknown feature") {
        const auto r = run("run" + out + " --feature RUN_TO_PARTY=off -- hackbench -l 1");
        CHECK(r.status == 2);
        CHECK(r.err.find("kernel.features.RUN_TO_PARTY: unknown key (did you mean RUN_TO_PARITY?)") !=
              std::string::npos);
    }
    SECTION("an unknown feature with nothing near it: the features listed") {
        const auto r = run("run" + out + " --feature XYZ=off -- hackbench -l 1");
        CHECK(r.status == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find("kernel.features.XYZ: unknown key (known here: ") != std::string::npos);
        CHECK(r.err.find("RUN_TO_PARITY") != std::string::npos);
    }
    SECTION("an unknown tunable: the one it begins") {
        const auto r = run("run" + out + " --sysctl base_slice=3000000 -- hackbench -l 1");
        CHECK(r.status == 2);
        CHECK(r.err.find("kernel.sysctl.base_slice: unknown key (did you mean base_slice_ns?)") != std::string::npos);
    }
    SECTION("a feature of the other kernel") {
        const auto r = run("run" + out + " --kernel cfs --feature RUN_TO_PARITY=off -- hackbench -l 1");
        CHECK(r.status == 2);
        CHECK(r.err.find("kernel.features.RUN_TO_PARITY: no such feature in cfs (v5.15); it exists in eevdf "
                         "(v6.12)") != std::string::npos);
    }
    SECTION("a tunable out of range") {
        const auto r = run("run" + out + " --sysctl base_slice_ns=5 -- hackbench -l 1");
        CHECK(r.status == 2);
        CHECK(r.err.find("kernel.sysctl.base_slice_ns: 5 is out of range") != std::string::npos);
    }
    SECTION("a feature value that is not on or off") {
        const auto r = run("run" + out + " --feature NEXT_BUDDY=maybe -- hackbench -l 1");
        CHECK(r.status == 2);
        CHECK(r.err.find("kernel.features.NEXT_BUDDY: expected true or false, got 'maybe'") !=
              std::string::npos);
    }
}

TEST_CASE("the resolved configuration lists every feature flag and tunable of the kernel run") {
    const auto out = fs::temp_directory_path() / "warmsched-resolved-kernel";
    const auto r =
        run("run --out " + out.string() +
            " --kernel cfs --feature NEXT_BUDDY=on --sysctl latency_ns=12000000 -- hackbench -g 1 -l 5");
    REQUIRE(r.status == 0);
    std::ifstream cfg(out / "config.yaml");
    std::stringstream s;
    s << cfg.rdbuf();
    for (const char* line :
         {"version: cfs", "NEXT_BUDDY: true", "GENTLE_FAIR_SLEEPERS: true", "latency_ns: 12000000",
          "min_granularity_ns: 3000000", "workloads: [hackbench -g 1 -l 5]"})
        CHECK(s.str().find(line) != std::string::npos);
    CHECK(s.str().find("RUN_TO_PARITY") == std::string::npos);
}

TEST_CASE("a hackbench run is byte-identical for the same configuration and seed") {
    const fs::path a = fs::temp_directory_path() / "warmsched-hb-a",
                   b = fs::temp_directory_path() / "warmsched-hb-b";
    fs::remove_all(a);
    fs::remove_all(b);
    const std::string cmd = " --seed 3 -- hackbench -g 2 -l 20";
    const auto ra = run("run --out " + a.string() + cmd), rb = run("run --out " + b.string() + cmd);
    REQUIRE(ra.status == 0);
    REQUIRE(rb.status == 0);
    CHECK(ra.out.substr(0, ra.out.find("results:")) == rb.out.substr(0, rb.out.find("results:")));
    for (const char* f : {"config.yaml", "report.txt", "stats.txt"}) {
        INFO(f);
        std::ifstream fa(a / f), fb(b / f);
        std::stringstream sa, sb;
        sa << fa.rdbuf();
        sb << fb.rdbuf();
        CHECK(!sa.str().empty());
        // config.yaml records the command line, which names each run's --out directory.
        std::string ta = sa.str(), tb = sb.str();
        if (const auto at = ta.find(a.string()); at != std::string::npos)
            ta.replace(at, a.string().size(), "OUT");
        if (const auto at = tb.find(b.string()); at != std::string::npos)
            tb.replace(at, b.string().size(), "OUT");
        CHECK(ta == tb);
    }
}

TEST_CASE("an experiment file can run several workloads at once, each printing its tool's output") {
    const auto f = write("warmsched-two-workloads.yaml",
                         "platform: haswell-i7-4790\nkernel: {version: cfs, hz: 1000}\nworkloads:\n"
                         "  - taskset -c 0-3 hackbench -p -g 1 -f 5 -l 20\n"
                         "  - taskset -c 4-7 perf bench sched pipe -l 1000\n");
    const auto r =
        run("run " + f.string() + " --out " + (fs::temp_directory_path() / "warmsched-two").string());
    CHECK(r.status == 0);
    const auto a =
        r.out.find("$ taskset -c 0-3 hackbench -p -g 1 -f 5 -l 20\nRunning in process mode with 1 groups");
    const auto b =
        r.out.find("$ taskset -c 4-7 perf bench sched pipe -l 1000\n# Running 'sched/pipe' benchmark:");
    CHECK(a != std::string::npos);
    CHECK(b != std::string::npos);
    CHECK(a < b);
    CHECK(r.out.find("haswell-i7-4790 (8 CPUs), CFS (Linux v5.15), HZ=1000") != std::string::npos);
}

TEST_CASE("topology prints CPU 0's sched domains with their flags, parameters and groups") {
    const auto r = run("topology genoa-9654-2s-nps4");
    CHECK(r.status == 0);
    CHECK(r.out.find("sched domains (Linux x86, v6.12): SMT 2, MC 16, NODE 48, NUMA 192, NUMA 384\n") !=
          std::string::npos);
    CHECK(r.out.find("  domain0 SMT  span=0,192 weight=2 imbalance_pct=110 cache_nice_tries=0 busy_factor=16 "
                     "min_interval=2 max_interval=4 groups=2: {0} {192} flags: SD_BALANCE_NEWIDLE "
                     "SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_CPUCAPACITY SD_SHARE_LLC "
                     "SD_PREFER_SIBLING\n") != std::string::npos);
    CHECK(r.out.find("  domain2 NODE span=0-23,192-215 weight=48") != std::string::npos);
    // The NUMA level at distance 32 (beyond 30) neither wakes affine nor balances fork and exec.
    CHECK(r.out.find(
              "  domain4 NUMA span=0-383 weight=384 imbalance_pct=117 cache_nice_tries=2 busy_factor=16 "
              "min_interval=384 max_interval=768 imb_numa_nr=6 groups=2: {0-95,192-287} {96-191,288-383} "
              "flags: SD_BALANCE_NEWIDLE SD_SERIALIZE SD_OVERLAP SD_NUMA\n") != std::string::npos);
    CHECK(r.out.find("  sd_llc MC (sd_llc_size 16, sd_llc_id 0), sd_numa NUMA 192\n") != std::string::npos);

    // Many groups are abbreviated; v5.15 names the package level DIE and SD_SHARE_LLC by its old name.
    const auto g = run("topology genoa-9654-2s --kernel cfs");
    CHECK(g.status == 0);
    CHECK(g.out.find("sched domains (Linux x86, v5.15): SMT 2, MC 16, DIE 192, NUMA 384\n") !=
          std::string::npos);
    CHECK(g.out.find("groups=12: {0-7,192-199} {8-15,200-207} {16-23,208-215} {24-31,216-223} ... (6 more) "
                     "{80-87,272-279} {88-95,280-287} flags:") != std::string::npos);
    CHECK(g.out.find("SD_SHARE_PKG_RESOURCES") != std::string::npos);
    CHECK(g.out.find("SD_SHARE_LLC") == std::string::npos);
}

TEST_CASE("migration_cost=off runs without the cost-of-migration tracker and prints no report") {
    const auto out = fs::temp_directory_path() / "warmsched-no-migcost";
    const auto on = run("run --out " + out.string() + " -- hackbench -p -g 1 -l 10");
    const auto off = run("run --out " + out.string() + " -p migration_cost=off -- hackbench -p -g 1 -l 10");
    REQUIRE(on.status == 0);
    REQUIRE(off.status == 0);
    CHECK(on.out.find("--- cost of migrations") != std::string::npos);
    CHECK(off.out.find("--- cost of migrations") == std::string::npos);
    // The tracker only watches: the run itself is the same.
    CHECK(off.out.substr(0, off.out.find("cache misses")) == on.out.substr(0, on.out.find("cache misses")));
}
