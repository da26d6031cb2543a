// Issue 20's bad inputs, one class per test case: each ends with one line naming the file or option and
// what is wrong, and exit status 2 -- never a signal, an uncaught exception or a hang. The limits are
// those of docs/validation.md "Reliability" (pid_max, the platform limits, hackbench's message size).
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

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
    // in a child process has 1 s of CPU time; a host fast enough to load it within that second gets the
    // node's unknown index refused instead. One line and status 2 either way.
    const auto r = run_cli("import " + std::string(WARMSCHED_SOURCE_DIR) +
                                 "/tests/data/hwloc/fuzz-slow-libhwloc.xml -o " + (scratch / "slow.yaml").string());
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK((r.err.find("libhwloc did not finish loading it within 1 s of CPU time") != std::string::npos ||
           r.err.find("a NUMANode without os_index (L#0): not a consistent topology") != std::string::npos));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
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

// Issue 41, item 7: limits with holes, and numbers no machine gives printed with exit 0.
TEST_CASE("coherence latencies, an L1 under a cycle, DRAM under 10ns and a 1 B/s disk are refused") {
    refused("run -p platform.core.atomic_latency=1s" + hackbench,
            "core.atomic_latency: a locked read-modify-write of more than 1us is no machine's");
    refused("probe c2c --platform zen3-5950x -p core.atomic_latency=1s --pairs 0:1",
            "core.atomic_latency: a locked read-modify-write of more than 1us");
    refused("probe c2c --platform zen3-5950x -p caches.2.peer_snoop_latency=1s --pairs 0:1",
            "caches[2].peer_snoop_latency: a snoop of a peer's cache of more than 1us is no machine's");
    refused("run -p platform.caches.0.latency=0cycles" + hackbench,
            "platform.caches[0].latency: a cache hit takes at least one core cycle (0.204082ns at core.frequency), got 0ns");
    refused("run -p platform.memory.latency=1ps" + hackbench,
            "platform.memory.latency: a memory latency under 10ns is no DRAM's (row activation and column read alone take ~25ns; got 1ps)");
    refused("run -p platform.block_device.read_bandwidth=1B/s" + hackbench,
            "platform.block_device.read_bandwidth: must be between 1MB/s (an SD card or a USB 2.0 stick, the slowest storage in use) and 1PB/s");
    // The shipped platforms stay inside the bounds (platforms lists every one as valid).
    const auto listed = run_cli("platforms");
    CHECK(listed.status == 0);
    CHECK(listed.out.find("invalid") == std::string::npos);
}

TEST_CASE("a quantum past 1us changes results and is refused, 1us and 100ns run") {
    refused("run -p quantum=1s" + hackbench, "quantum: must be between 1ns and 1us");
    refused("run -p quantum=0.5ns" + hackbench, "quantum: must be between 1ns and 1us");
    CHECK(run_cli("run --out " + (scratch / "quantum-100ns").string() + " -p quantum=100ns" + hackbench).status == 0);
}

TEST_CASE("probe arguments that measure nothing are refused: 0 bytes, 0 round trips, a 0B working set, a move to itself") {
    refused("probe bandwidth --platform zen3-5950x --bytes 0B --cpus 0", "--bytes: '0B' is smaller than the minimum 4KiB");
    refused("probe c2c --platform zen3-5950x --round-trips 0 --pairs 0:1", "--round-trips: must be 1 to 1048576");
    refused("probe migrate --platform zen3-5950x --ws 0B", "--ws: '0B' is smaller than the minimum 64B");
    refused("probe migrate --platform zen3-5950x --from 0 --to 0",
            "--from/--to: CPU 0 twice: a migration moves the task to another CPU");
    refused("probe latency --platform zen3-5950x --max-footprint 0B", "--max-footprint: '0B' is smaller than the minimum 64B");
}

TEST_CASE("pid_max holds for the experiment's workloads together, not for each alone") {
    // zen3-5950x: pid_max 32768. Each hackbench needs 20001 tasks (250 groups x 80 + 1): alone it fits.
    const std::string two = file("two-hackbench.yaml", "platform: zen3-5950x\nworkloads:\n"
                                                       "  - hackbench -g 250 -f 40 -l 1\n"
                                                       "  - hackbench -g 250 -f 40 -l 1\n");
    refused("run " + two + " --out " + (scratch / "pid-max").string(),
            "workloads: the workloads together need 40002 tasks, more than the simulated kernel's pid_max of 32768 on 32 CPUs");
    CHECK_FALSE(fs::exists(scratch / "pid-max"));
}

// Issue 41, item 8: what was silently taken.
TEST_CASE("empty option values are refused, not taken as the default") {
    refused("run --seed ''" + hackbench, "--seed: an empty value");
    refused("run --platform ''" + hackbench, "--platform: an empty value");
    refused("import " + std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/hwloc/Intel-Core-2xXeon-E5345.xml -o ''",
            "--output: an empty value");
    refused("run -p platform.name=" + hackbench, "-p platform.name=: platform.name: an empty value");
    refused("run -p seed=" + hackbench, "an empty value");
    refused("topology " + file("empty-name.yaml", "include: " + std::string(WARMSCHED_SOURCE_DIR) +
                                                      "/configs/platforms/zen3-5950x.yaml\nname: \"\"\n"),
            "empty-name.yaml:2:7: name: an empty name");
}

TEST_CASE("a second YAML document, a tag and bytes that are not UTF-8 are refused, keys are shown escaped") {
    const std::string base = "include: " + std::string(WARMSCHED_SOURCE_DIR) + "/configs/platforms/zen3-5950x.yaml\n";
    refused("run --platform " + file("two-docs.yaml", base + "---\nname: other\n") + hackbench,
            "two-docs.yaml:3: a second YAML document (after ---)");
    refused("run --platform " + file("binary.yaml", base + "description: !!binary aGVsbG8=\n") + hackbench,
            "binary.yaml:2:14: the YAML tag !!binary is not understood");
    refused("run --platform " + file("custom-tag.yaml", base + "description: !mine x\n") + hackbench,
            "the YAML tag !mine is not understood");
    refused("run --platform " + file("latin1.yaml", base + "description: caf\xe9\n") + hackbench,
            "latin1.yaml:2: invalid UTF-8 (byte 0xe9): the text must be UTF-8");
    refused("run -p 'description=caf\xe9'" + hackbench, "invalid UTF-8 (byte 0xe9");
    // An escape sequence in an unknown key is shown as \x1b, never sent to the terminal.
    const auto r = run_cli("run --platform " + file("esc-key.yaml", base + "\"\x1b[2Jx\": 1\n") + hackbench + " </dev/null");
    CHECK(r.status == 2);
    CHECK(r.err.find("\\x1b[2Jx: unknown key") != std::string::npos);
    CHECK(r.err.find('\x1b') == std::string::npos);
    // UTF-8 is fine: config.yaml keeps it as written.
    const fs::path ok = scratch / "utf8-ok";
    CHECK(run_cli("run --out " + ok.string() + " -p 'description=µs über' -- hackbench -g 1 -l 1").status == 0);
}

TEST_CASE("two cache levels with one name and a trace format listed twice are refused") {
    refused("run -p platform.caches.1.name=l1d" + hackbench,
            "platform.caches[1].name: two cache levels are named 'l1d'");
    refused("run --trace-format ftrace,ftrace" + hackbench, "trace.formats: 'ftrace' is listed twice in 'ftrace,ftrace'");
}

TEST_CASE("a trace window that opens after the run: refused before a run with a duration, a warning after one without") {
    const fs::path out = scratch / "late-window";
    refused("run --out " + out.string() + " -p duration=10ms --trace-window 0.02:0.03 -- hackbench -g 1 -l 1",
            "trace.start: the trace window opens at 20ms, after the run ends (duration: 10ms): nothing would be traced");
    CHECK_FALSE(fs::exists(out));
    // Without a duration the end is known only after the run: it completes and says so in one line.
    const auto r = run_cli("run --out " + out.string() + " --trace-window 100:101 -- hackbench -g 1 -l 1");
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK(r.err.find("warning: trace.start: the trace window never opened (it opens at 100 s, the run ended at 0.") !=
          std::string::npos);
    CHECK(r.err.find("s): the trace files hold no scheduler events\n") != std::string::npos);
    CHECK(fs::exists(out / "trace.txt"));
}

// Issue 41, item 11: errors that named the wrong thing or hid the cause.
TEST_CASE("unclear errors say what is wrong: an empty list entry, a seed past 64 bits, a NUL byte, CR-only lines") {
    refused("run " + file("empty-entry.yaml", "platform: zen3-5950x\nworkloads:\n  -\n"),
            "empty-entry.yaml:3:3: workloads.0: an empty entry (a '-' with nothing after it)");
    refused("run --seed 18446744073709551615" + hackbench, "seed: 18446744073709551615 is out of range [0, 4611686018427387904]");
    refused("run " + file("nul.yaml", std::string("platform: zen3-5950x\nworkloads: [hackbench -g 1 -l 1]\n\0\n", 56)),
            "nul.yaml:3: a NUL byte");
    refused("run " + file("cr-only.yaml", "platform: zen3-5950x\rworkloads: [hackbench -g 1 -l 1]\r"),
            "cr-only.yaml: CR-only line endings (classic Mac OS): the file reads as one line");
    // CRLF (Windows) line endings are fine.
    CHECK(run_cli("run --out " + (scratch / "crlf").string() + " " +
                  file("crlf.yaml", "platform: zen3-5950x\r\nworkloads: [hackbench -g 1 -l 1]\r\n"))
              .status == 0);
}

TEST_CASE("taskset -c takes util-linux's cpulist strides (0-7:2), a stride of 0 is refused") {
    const fs::path out = scratch / "stride";
    const auto r = run_cli("run --out " + out.string() + " -- taskset -c 0-7:2 hackbench -g 1 -l 1");
    INFO(r.err);
    CHECK(r.status == 0);
    // The tool's own message, with its usage line, as for every taskset error.
    const auto zero = run_cli("run -- taskset -c 0-7:0 hackbench -g 1 -l 1");
    CHECK(zero.status == 2);
    CHECK(zero.err.rfind("taskset: failed to parse CPU list: 0-7:0 (this machine has CPUs 0-31)\n", 0) == 0);
}

// Issue 41, item 10: the import refuses what the model cannot state instead of making it uniform.
namespace {
std::string hwloc_variant(const std::string& name, const std::string& from, const std::string& to) {
    std::string xml = warmsched::test::file_text(std::string(WARMSCHED_SOURCE_DIR) +
                                     "/tests/data/hwloc/Intel-SandyBridge-2xXeon-E5-2650-linux.xml");
    const auto at = xml.find(from);
    REQUIRE(at != std::string::npos);
    xml.replace(at, from.size(), to);
    return file(name, xml);
}
} // namespace

TEST_CASE("import: non-uniform hwloc and sysfs inputs are refused, naming the input and what differs") {
    const std::string pu16 = "<object type=\"PU\" os_index=\"16\" cpuset=\"0x00010000\" complete_cpuset=\"0x00010000\" "
                             "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"9\"/>";
    const std::string out = " -o " + (scratch / "imported.yaml").string();
    fs::remove(scratch / "imported.yaml");
    refused("import " + hwloc_variant("one-pu.xml", pu16, "") + out,
            "one-pu.xml: core L#0 has 1 PU of the 2 CPUs of its cpuset (no PU object for CPU 16)");
    refused("import " + hwloc_variant("dup-os-index.xml", "type=\"PU\" os_index=\"16\"", "type=\"PU\" os_index=\"0\"") + out,
            "dup-os-index.xml: two PU objects have os_index 0 (L#0 and L#1)");
    refused("import " + hwloc_variant("two-kinds.xml", "  <support name=",
                                      "  <cpukind cpuset=\"0x00ff00ff\" forced_efficiency=\"1\"/>\n"
                                      "  <cpukind cpuset=\"0xff00ff00\" forced_efficiency=\"0\"/>\n  <support name=") + out,
            "two-kinds.xml: the input has 2 CPU kinds, kind 0 (CPUs 8-15,24-31), kind 1 (CPUs 0-7,16-23) (a hybrid CPU?); "
            "the model needs one kind of core");
    // A saved sysfs tree whose L2 sharing names CPUs the tree does not have.
    const fs::path tree = scratch / "sysfs-out-of-range";
    fs::remove_all(tree);
    fs::copy(std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/sysfs/8em64t-2s2ca2c", tree, fs::copy_options::recursive);
    std::ofstream(tree / "sys/devices/system/cpu/cpu3/cache/index2/shared_cpu_list") << "0-99\n";
    refused("import --from sysfs " + tree.string() + out,
            "cpu3/cache/index2/shared_cpu_list: lists CPU 8, which the tree does not have (no cpu8 directory; it has 8 CPUs)");
    // One cache level: the message names the input and what is missing, not a key of the written file.
    for (const auto& e : fs::directory_iterator(tree / "sys/devices/system/cpu"))
        if (e.is_directory()) fs::remove_all(e.path() / "cache/index2");
    refused("import --from sysfs " + tree.string() + out,
            tree.string() + ": the input gives one cache level (L1, no other data or unified cache); the model needs at least two");
    CHECK_FALSE(fs::exists(scratch / "imported.yaml"));
}

TEST_CASE("import --from sysfs: a node directory with a number past 32 bits is not a node, not a crash") {
    const fs::path tree = scratch / "sysfs-long-node";
    fs::remove_all(tree);
    fs::copy(std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/sysfs/8em64t-2s2ca2c", tree, fs::copy_options::recursive);
    fs::create_directories(tree / "sys/devices/system/node/node99999999999999999999");
    const auto r = run_cli("import --from sysfs " + tree.string());
    INFO(r.err);
    CHECK(r.status == 0); // Linux names nodes below MAX_NUMNODES: that directory is no node of the tree
    CHECK(r.err.find("error") == std::string::npos);
}

TEST_CASE("import --name: control characters are refused, other names are written so they stay one value") {
    const std::string xml = std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/hwloc/Intel-Core-2xXeon-E5345.xml";
    refused("import " + xml + " --name 'a\nnuma: {}'", "--name: a platform name is one line of text, without control characters (got \"a\\nnuma: {}\")");
    const auto r = run_cli("import " + xml + " --name 'my \"box\": x'");
    REQUIRE(r.status == 0);
    CHECK(r.out.find("\nname: \"my \\\"box\\\": x\"\n") != std::string::npos);
    const fs::path saved = scratch / "quoted-name.yaml";
    std::ofstream(saved) << r.out;
    const auto t = run_cli("topology " + saved.string());
    CHECK(t.status == 0);
}

// Issue 41, items 5, 6 and 9: what printed SystemC's E549 "uncaught exception", hung, or silently
// wrote nothing.
namespace {
// `warmsched ARGS` under `timeout 60` (a hang before the fix is then status 124, not a stuck suite);
// stdout and stderr as run_cli gives them.
warmsched::test::cli_result run_bounded(const std::string& args) {
    const fs::path err_file = scratch / ("bounded-err-" + std::to_string(::getpid()));
    fs::create_directories(scratch);
    auto r = warmsched::test::run_command("timeout 60 " + std::string(WARMSCHED_BINARY) + " " + args + " </dev/null 2>" +
                                          err_file.string());
    std::ifstream e(err_file);
    r.err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
    fs::remove(err_file);
    return r;
}

// As refused(), for a reproducer that hung: bounded by `timeout 60`, which must not have fired.
void refused_in_time(const std::string& args, const std::string& what) {
    INFO(args);
    const auto r = run_bounded(args);
    INFO(r.err);
    CHECK(r.status != 124);
    CHECK(r.status == 2);
    CHECK(r.err.find(what) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

fs::path fresh_dir(const std::string& name) {
    const fs::path d = scratch / name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// A complete results directory of a one-loop hackbench, made once per test process.
fs::path one_run() {
    const fs::path d = scratch / ("run-" + std::to_string(::getpid()));
    if (!fs::exists(d / "stats.json")) REQUIRE(run_cli("run --out " + d.string() + hackbench).status == 0);
    return d;
}
} // namespace

TEST_CASE("symlink loops as the experiment, the platform or an include, and an .xml platform that is a "
          "directory, are one line each") {
    const fs::path d = fresh_dir("loops");
    fs::create_symlink("b.yaml", d / "a.yaml");
    fs::create_symlink("a.yaml", d / "b.yaml");
    refused("run " + (d / "a.yaml").string(), "a.yaml: cannot be read: Too many levels of symbolic links");
    refused("run --platform " + (d / "a.yaml").string() + hackbench,
            "a.yaml: cannot be read: Too many levels of symbolic links");
    std::ofstream(d / "inc.yaml") << "include: a.yaml\nname: x\n";
    refused("run --platform " + (d / "inc.yaml").string() + hackbench,
            "a.yaml: cannot be read: Too many levels of symbolic links");
    fs::create_directories(d / "machine.xml");
    refused("run --platform " + (d / "machine.xml").string() + hackbench, "machine.xml: a directory, not a file");
    refused("topology " + (d / "machine.xml").string(), "machine.xml: a directory, not a file");
    fs::create_symlink("q.so", d / "p.so");
    fs::create_symlink("p.so", d / "q.so");
    refused("run --policy " + (d / "p.so").string() + hackbench, "p.so: Too many levels of symbolic links");
    refused("plot " + (d / "a.yaml").string(), "a.yaml: not a results directory (no stats.json: Too many levels of "
                                               "symbolic links)");
}

TEST_CASE("a cgroup name the kernel would refuse is refused when the experiment is read, before the run") {
    // A 300-byte name was accepted, ran the whole simulation, then failed writing cgroup/<path>/ (E549).
    const fs::path out = scratch / "cgroup-name-out";
    fs::remove_all(out);
    const auto run = [&](const std::string& file, const std::string& what) {
        refused("run " + file + " --out " + out.string() + hackbench, what);
        CHECK_FALSE(fs::exists(out));
    };
    run(file("cg-long.yaml", "platform: zen3-5950x\ncgroups:\n  - path: /a/" + std::string(300, 'n') + "\n"),
        "cgroups[0].path: a group name of 300 bytes; the kernel's limit is NAME_MAX, 255 (mkdir fails with "
        "ENAMETOOLONG)");
    run(file("cg-file.yaml", "platform: zen3-5950x\ncgroups:\n  - path: /cpu.max\n"),
        "cgroups[0].path: 'cpu.max' is the name of a file cgroupfs has in every group (mkdir fails with EEXIST)");
    run(file("cg-core.yaml", "platform: zen3-5950x\ncgroups:\n  - path: /cgroup.procs2\n"),
        "'cgroup.procs2' begins with 'cgroup.', the prefix cgroup v2 reserves for its core files");
    std::string deep = "platform: zen3-5950x\ncgroups:\n", path;
    for (int i = 0; i < 17; ++i) deep += "  - path: " + (path += "/" + std::string(250, 'a' + i)) + "\n";
    run(file("cg-deep.yaml", deep), "below /sys/fs/cgroup it must fit in PATH_MAX (at most 4081 bytes");
    // The generator's names: its name with the index of the level's last group.
    run(file("cg-gen.yaml", "platform: zen3-5950x\ncgroup_generator:\n  name: " + std::string(254, 'g') +
                                "\n  fanout: [20]\n"),
        "the group " + std::string(254, 'g') + "19 it makes: a group name of 256 bytes");
}

TEST_CASE("probe migrate --ws and probe latency --max-footprint are bounded by the platform's caches") {
    // --ws 1TiB was std::bad_alloc; --max-footprint 1TiB ran for ever.
    refused("probe migrate --platform zen3-5950x --ws 1TiB",
            "--ws: 1024GiB is more than a probe takes on zen3-5950x: at most 1GiB");
    refused_in_time("probe latency --platform zen3-5950x --max-footprint 1TiB",
                    "--max-footprint: 1024GiB is more than a probe takes on zen3-5950x: at most 1GiB");
    refused("run " + file("probe-ws.yaml", "platform: zen3-5950x\nprobes:\n  migrate:\n    working_set: 2GiB\n"),
            "probes.migrate.working_set: 2GiB is more than a probe takes on zen3-5950x");
}

TEST_CASE("compare reads results files as input: /dev/zero or a FIFO as stats.json is one line") {
    const fs::path run = one_run();
    const fs::path zero = fresh_dir("compare-zero"), fifo = fresh_dir("compare-fifo");
    fs::copy_file(run / "report.txt", zero / "report.txt");
    fs::create_symlink("/dev/zero", zero / "stats.json");
    refused_in_time("compare " + zero.string(), "compare-zero/stats.json: a character device, not a file");
    fs::copy_file(run / "report.txt", fifo / "report.txt");
    REQUIRE(::mkfifo((fifo / "stats.json").c_str(), 0600) == 0);
    refused_in_time("compare " + fifo.string(), "compare-fifo/stats.json: a FIFO, not a file");
    // report.txt too, and a symlink loop in place of the directory.
    const fs::path report = fresh_dir("compare-report");
    fs::copy_file(run / "stats.json", report / "stats.json");
    fs::create_symlink("/dev/zero", report / "report.txt");
    refused_in_time("compare " + report.string(), "report.txt: a character device, not a file");
    fs::create_symlink("loop-b", scratch / "loop-a");
    fs::create_symlink("loop-a", scratch / "loop-b");
    refused("compare " + (scratch / "loop-a").string(), "cannot be read: Too many levels of symbolic links");
    fs::remove(scratch / "loop-a");
    fs::remove(scratch / "loop-b");
}

TEST_CASE("compare on a --repeat 10000 directory reads repeat.yaml without recursing per character") {
    // The 60 kB `seeds: [...]` line overflowed the stack of std::regex (SIGSEGV).
    const fs::path d = fresh_dir("repeat-10000");
    std::string seeds;
    for (int s = 1; s <= 10000; ++s) seeds += (s > 1 ? ", " : "") + std::to_string(s);
    std::ofstream(d / "repeat.yaml") << "# warmsched run --repeat\nseeds: [" << seeds << "]\n";
    fs::copy(one_run(), d / "seed-1", fs::copy_options::recursive);
    refused("compare " + d.string(),
            "9999 of its 10000 seeds are missing or incomplete (2-10000); finish them with the same run command "
            "and --resume");
    std::ofstream(d / "repeat.yaml") << "seeds: [1, 123456789012345678901234]\n";
    refused("compare " + d.string(), "seed 123456789012345678901234 is beyond 2^62");
}

TEST_CASE("a sweep grid is counted before it is expanded: 10^9 runs are one line naming the sweep file") {
    std::string axes = "command: hackbench -g {g} -l 1\naxes:\n  g: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
    for (int i = 0; i < 8; ++i) axes += "  kernel.sysctl.a" + std::to_string(i) + ": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
    const std::string sweep = file("huge-grid.yaml", axes);
    const fs::path out = scratch / "huge-grid-out";
    fs::remove_all(out);
    refused_in_time("sweep " + sweep + " --out " + out.string(),
                    "huge-grid.yaml:3:3: axes: the grid has 1000000000 runs (10 x 10 x 10 x 10 x 10 x 10 x 10 x 10 x "
                    "10 x 1 seed); a sweep has at most 100000 runs");
    CHECK_FALSE(fs::exists(out));
    // Past 2^64 the count is not wrapped.
    for (int i = 8; i < 20; ++i) axes += "  kernel.sysctl.a" + std::to_string(i) + ": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
    refused("sweep " + file("huger-grid.yaml", axes) + " --out " + out.string(), "the grid has more than 2^64 runs");
}

TEST_CASE("a YAML map of 120,000 keys is read in linear time (a duplicate-key search per key was quadratic)") {
    // 120,000 keys of 1.4 MB took more than 60 s; now well under a second of reading (docs/validation.md
    // section 11). The map is under an unknown key: one line.
    std::string y = "platform: zen3-5950x\njunk:\n";
    for (int i = 0; i < 120000; ++i) y += "  k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
    refused_in_time("run " + file("big-map.yaml", y) + hackbench, "big-map.yaml:2:1: junk: unknown key");
    // The same map through an include (the merge searched the map once per key too), and its duplicate key.
    refused_in_time("run " + file("big-map-inc.yaml", "include: big-map.yaml\njunk:\n  k7: 1\n") + hackbench,
                    "junk: unknown key");
    refused_in_time("run " + file("big-map-dup.yaml", y + "  k119999: again\n") + hackbench,
                    "big-map-dup.yaml:120003:3: k119999: key appears twice in the same map");
}

TEST_CASE("a time with a fraction of a nanosecond is refused: -p duration=0.5ns was no duration at all") {
    refused("run -p duration=0.5ns" + hackbench,
            "duration: '0.5ns' is not a whole number of nanoseconds (the model's clock counts ns, as the kernel's "
            "does)");
    refused("run -p warmup=1500ps" + hackbench, "warmup: '1500ps' is not a whole number of nanoseconds");
    refused("run -p trace.enabled=true -p trace.end=0.25ns" + hackbench, "trace.end: '0.25ns' is not a whole number");
}

TEST_CASE("import --from sysfs refuses a FIFO or a device in the tree it reads, instead of blocking") {
    const fs::path root = fresh_dir("sysfs-fifo");
    fs::copy(std::string(WARMSCHED_SOURCE_DIR) + "/tests/data/this-machine/sysfs", root, fs::copy_options::recursive);
    fs::remove(root / "proc/cpuinfo");
    REQUIRE(::mkfifo((root / "proc/cpuinfo").c_str(), 0600) == 0);
    const fs::path out = scratch / "sysfs-fifo.yaml";
    fs::remove(out);
    refused_in_time("import --from sysfs " + root.string() + " -o " + out.string(), "proc/cpuinfo: a FIFO, not a file");
    CHECK_FALSE(fs::exists(out));
    fs::remove(root / "proc/cpuinfo");
    const fs::path siblings = root / "sys/devices/system/cpu/cpu0/topology/thread_siblings_list";
    fs::remove(siblings);
    fs::create_symlink("/dev/zero", siblings);
    refused_in_time("import --from sysfs " + root.string() + " -o " + out.string(),
                    "thread_siblings_list: a character device, not a file");
}

TEST_CASE("rt-app log file names must be file names: a task named ../../esc and a 300-byte log_basename") {
    // Both ran and silently wrote no log.
    const fs::path out = scratch / "rtapp-names-out";
    fs::remove_all(out);
    refused("run --out " + out.string() + " -- rt-app " +
                file("esc.json", R"({"tasks": {"../../esc": {"loop": 1, "run": 100}}})"),
            "esc.json: tasks.../../esc: a task name with a '/': it is part of its threads' log file names");
    refused("run --out " + out.string() + " -- rt-app " +
                file("basename.json", R"({"global": {"log_basename": ")" + std::string(300, 'b') +
                                          R"("}, "tasks": {"t": {"loop": 1, "run": 100}}})"),
            "basename.json: global.log_basename: a prefix of 300 bytes: with the suffixes rt-app adds (-<task>-"
            "<index>.log) its log file names would pass NAME_MAX (255 bytes)");
    refused("run --out " + out.string() + " -- rt-app " +
                file("taskname.json", R"({"tasks": {")" + std::string(250, 't') +
                                          R"(": {"loop": 1, "run": 100}}})"),
            "up to 263 bytes, more than NAME_MAX (255)");
    CHECK_FALSE(fs::exists(out));
    // The longest name that fits is written: rt-app-<242 bytes>-0.log is 255 bytes.
    const std::string fits(242, 'f');
    const auto ok = run_cli("run --out " + out.string() + " -- rt-app " +
                            file("fits.json", R"({"tasks": {")" + fits + R"(": {"loop": 1, "run": 100}}})"));
    CHECK(ok.status == 0);
    CHECK(fs::exists(out / ("rt-app-" + fits + "-0.log")));
}

TEST_CASE("an rt-app use case whose threads all block for good ends with one line saying who waits on what") {
    // Each ended the run with exit 1, no line and a complete-looking results directory.
    const fs::path out = scratch / "rtapp-deadlock-out";
    const auto deadlock = [&](const std::string& name, const std::string& json, const std::string& what) {
        fs::remove_all(out);
        refused_in_time("run --out " + out.string() + " -- rt-app " + file(name, json),
                        "rt-app: " + (scratch / name).string() + ": every thread is blocked at ");
        const auto r = run_bounded("run --out " + out.string() + " -- rt-app " + (scratch / name).string());
        CHECK(r.err.find(what) != std::string::npos);
        CHECK(r.err.find("(no results written)") != std::string::npos);
        CHECK(r.out.empty());
        CHECK_FALSE(fs::exists(out));
    };
    deadlock("nobody-signals.json",
             R"({"tasks": {"waiter": {"loop": 1, "lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"},
                           "worker": {"loop": 1, "run": 1000}}})",
             "simulated s, for good: waiter-0 waits on cond \"c\" (in wait)");
    deadlock("barrier-left.json",
             R"({"tasks": {"a": {"loop": 1, "run": 100, "barrier": "b"}, "b": {"loop": 2, "run": 100, "barrier": "b"}}})",
             "for good: b-1 waits on barrier \"b\" (in barrier)");
    deadlock("held-mutex.json",
             R"({"tasks": {"holder": {"loop": 1, "lock": "m", "run": 100, "lock1": "m", "unlock": "m"},
                           "other": {"loop": 1, "run": 50, "lock": "m", "unlock": "m"}}})",
             "for good: holder-0 waits on mutex \"m\" held by holder-0 (in lock1), other-1 waits on mutex \"m\" "
             "held by holder-0 (in lock)");
    deadlock("exits-holding.json",
             R"({"tasks": {"holder": {"loop": 1, "lock": "m", "run": 100},
                           "other": {"loop": 1, "run": 50, "lock": "m", "unlock": "m"}}})",
             "for good: other-1 waits on mutex \"m\" held by holder-0, which has exited (in lock)");
    // rt-app's stop wakes every condition's waiters, not a mutex's: with a duration the first use case ends
    // normally at the stop, and the held mutex is still a deadlock.
    fs::remove_all(out);
    const auto stopped = run_bounded("run --out " + out.string() + " -- rt-app " +
                                     file("woken-at-stop.json", R"({"global": {"duration": 1}, "tasks": {
                                          "waiter": {"loop": 1, "lock": "m", "wait": {"ref": "c", "mutex": "m"},
                                                     "unlock": "m"}, "worker": {"loop": 1, "run": 1000}}})"));
    CHECK(stopped.status == 0);
    CHECK(fs::exists(out / "stats.json"));
    deadlock("held-mutex-duration.json",
             R"({"global": {"duration": 1}, "tasks": {"holder": {"loop": 1, "lock": "m", "lock1": "m", "run": 9},
                                                       "other": {"loop": 1, "run": 50, "lock": "m", "unlock": "m"}}})",
             "holder-0 waits on mutex \"m\" held by holder-0 (in lock1)");
}
