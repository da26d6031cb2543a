// Issue 20's bad inputs, one class per test case: each ends with one line naming the file or option and
// what is wrong, and exit status 2 -- never a signal, an uncaught exception or a hang. The limits are
// those of docs/validation.md "Reliability" (pid_max, the platform limits, hackbench's message size).
#include "support/cli_runner.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using warmsched::test::run_cli;

namespace {
const fs::path scratch = fs::temp_directory_path() / "warmsched-bad-input";

std::string file(const std::string& name, const std::string& text) {
    fs::create_directories(scratch);
    const fs::path p = scratch / name;
    std::ofstream(p) << text;
    return p.string();
}

// One line on stderr that contains `what`, status 2, nothing on a signal.
void refused(const std::string& args, const std::string& what) {
    INFO(args);
    const auto r = run_cli(args + " </dev/null");
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(what) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("uncaught exception") == std::string::npos);
}
const std::string hackbench = " -- hackbench -g 1 -l 1";
} // namespace

TEST_CASE("includes: a chain past 32 files, a cycle and nesting past 64 levels are one line each") {
    for (int i = 1; i <= 40; ++i)
        file("chain" + std::to_string(i) + ".yaml", "include: chain" + std::to_string(i + 1) + ".yaml\n");
    file("chain41.yaml", "name: x\n");
    refused("run --platform " + (scratch / "chain1.yaml").string() + hackbench, "includes nest deeper than 32 files");
    refused("run --platform " + file("cycle.yaml", "include: cycle.yaml\n") + hackbench, "include cycle");
    refused("run --platform " + file("deep.yaml", "a: " + std::string(100, '[') + std::string(100, ']') + "\n") +
                hackbench,
            "maps and lists nest deeper than 64 levels");
    // Deeper than yaml-cpp's own guard, whose message is "bad file".
    refused("run --platform " + file("deeper.yaml", "a: " + std::string(3000, '[') + std::string(3000, ']') + "\n") +
                hackbench,
            "maps and lists nest deeper than 64 levels");
}

TEST_CASE("a YAML billion laughs stops at a million values instead of running until bad_alloc") {
    std::string y = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'i'; ++c)
        y += std::string(1, c) + ": &" + c + " [" + [&] {
            std::string items;
            for (int k = 0; k < 10; ++k) items += std::string(k ? ", " : "") + "*" + static_cast<char>(c - 1);
            return items;
        }() + "]\n";
    refused("run --platform " + file("laughs.yaml", y) + hackbench, "expands to more than 1000000 values");
}

TEST_CASE("a directory, a FIFO or a device given as a file is named for what it is") {
    refused("run --platform /tmp" + hackbench, "/tmp: a directory, not a file");
    refused("run --platform /dev/zero" + hackbench, "/dev/zero: a character device, not a file");
    const fs::path fifo = scratch / "fifo.yaml";
    fs::create_directories(scratch);
    fs::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    refused("run " + fifo.string(), "a FIFO, not a file"); // opening it would block forever
    refused("run -- rt-app " + fifo.string(), "a FIFO, not a file");
    refused("run -- rt-app /tmp", "a directory, not a file");
}

TEST_CASE("platform values no machine has are refused: sizes, latencies, bandwidths, counts, blocks") {
    refused("run -p platform.caches.2.size=16TiB" + hackbench, "caches of at most 4GiB");
    refused("run -p platform.fabric.links.0.bandwidth=1e-300GB/s" + hackbench, "between 10MB/s and 1PB/s");
    refused("run -p platform.memory.latency=1e6s" + hackbench, "more than 10us");
    refused("run -p platform.memory.page_size=100B" + hackbench, "power of two from the line size");
    refused("run -p platform.memory.interleave=96B" + hackbench, "power of two from the line size");
    // 4096 x 4096 x 256 wrapped a 32-bit CPU count to 0, which passed the check.
    refused("run -p platform.topology.levels.0.count=4096 -p platform.topology.levels.1.count=4096 "
            "-p platform.topology.levels.2.count=256" + hackbench,
            "more than 4096 CPUs");
    refused("run -p platform.fabric.bandwidth_window=1e30s" + hackbench, "beyond what a run can simulate");
}

TEST_CASE("kernel values out of range are refused: an uptime past a day or below zero") {
    refused("run -p kernel.uptime=100000s" + hackbench, "kernel.uptime: must be 0s..86400s");
    refused("run -p kernel.uptime=-1s" + hackbench, "kernel.uptime: expected a time");
}

TEST_CASE("workloads larger than the simulated kernel allows are refused before the run, naming the limit") {
    // zen3-5950x has 32 CPUs: pid_max = max(32768, 1024 x 32) = 32768.
    refused("run -- hackbench -g 100000 -f 40 -l 1", "needs 8000001 tasks, more than the simulated kernel's pid_max of 32768");
    refused("run -- schbench -m 1 -t 100000 -r 1", "needs 100002 tasks");
    refused("run -- hackbench -s 1000000000 -l 1", "the model's limit is 1048576 bytes per message");
    refused("run -- fio --name=x --size=1000000000G --rw=read", "larger than the device (nvme0n1: 2000398934016 bytes");
    // genoa-9654-2s has 384 CPUs: pid_max 393216, so the same hackbench is still refused, naming it.
    refused("run --platform genoa-9654-2s -- hackbench -g 100000 -f 40 -l 1", "pid_max of 393216 on 384 CPUs");
}

TEST_CASE("rt-app files that could not run as written: no time passes, an unheld unlock, huge numbers") {
    refused("run -- rt-app " + file("t0.json", R"({"tasks": {"t": {"loop": -1, "timer": {"ref": "a", "period": 0}}}, "global": {"duration": 1}})"),
            "no event of its loop takes time");
    refused("run -- rt-app " + file("lk.json", R"({"resources": {"m": {"type": "mutex"}}, "tasks": {"t": {"loop": -1, "lock": "m", "unlock": "m"}}, "global": {"duration": 1}})"),
            "no event of its loop takes time");
    refused("run -- rt-app " + file("ul.json", R"({"resources": {"m": {"type": "mutex"}}, "tasks": {"t": {"loop": 1, "unlock": "m", "run": 100}}, "global": {"duration": 1}})"),
            "tasks.t.unlock: unlocks mutex \"m\", which the thread does not hold there");
    refused("run -- rt-app " + file("big.json", R"({"tasks": {"t": {"loop": 1, "run": 100000000000000000000000}}, "global": {"duration": 1}})"),
            "got an integer too large for 64 bits");
    refused("run -- rt-app " + file("inf.json", R"({"tasks": {"t": {"loop": 1, "run": 1e400}}})"),
            "number overflow parsing '1e400'");
    // A lock with its unlock, around a run: accepted and run.
    const auto ok = run_cli("run --out " + (scratch / "lock-ok").string() + " -- rt-app " +
                            file("ok.json", R"({"resources": {"m": {"type": "mutex"}}, "tasks": {"t": {"loop": 3, "lock": "m", "run": 100, "unlock": "m"}}, "global": {"duration": 1}})"));
    CHECK(ok.status == 0);
}

TEST_CASE("an rt-app file with a 200 kB token is one line (a regex over nlohmann's message overflowed the stack)") {
    // fuzz_rtapp_json's finding: the parse error quotes the token it last read, and std::regex recursed
    // once per character of it.
    refused("run -- rt-app " + file("long-token.json", "{\"tasks\": \"" + std::string(200000, 'x')), "malformed JSON");
}

TEST_CASE("an hwloc XML on which libhwloc itself crashes is one line, not a SIGSEGV") {
    // fuzz_import's finding in CI: libhwloc 2.9 dies in hwloc_topology_load on this file; the import
    // loads an XML in a child process first.
    refused("import " + std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/hwloc/fuzz-crash-libhwloc.xml -o " +
                (scratch / "crash.yaml").string(),
            "libhwloc crashed reading it (signal 11)");
}

TEST_CASE("an hwloc XML on which libhwloc spends seconds is one line: a NUMANode without os_index") {
    // fuzz_import's finding (a 1-hour run): libhwloc 2.9 gives the node the unknown index 2^32-1 and
    // builds a nodeset of 2^32 bits, 3.3 s of CPU before it accepts the file. The import's trial load
    // in a child process has 1 s of CPU time.
    refused("import " + std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/hwloc/fuzz-slow-libhwloc.xml -o " +
                (scratch / "slow.yaml").string(),
            "libhwloc did not finish loading it within 1 s of CPU time");
}

TEST_CASE("a bare -- is not a silent run of the default experiment") {
    refused("run --", "nothing after --");
}

TEST_CASE("compare and plot read malformed files without an exception: numbers past a double, huge seeds") {
    const fs::path dir = scratch / "malformed";
    fs::remove_all(dir);
    fs::create_directories(dir / "seed-99999999999999999999999999");
    std::ofstream(dir / "seed-99999999999999999999999999" / "stats.json") << "{}";
    const auto r = run_cli("compare " + dir.string());
    CHECK(r.status == 2);
    CHECK(r.err.find("error: ") == 0);
}
