// Bad platform descriptions: each mistake must be reported with the file, line and column, the dotted
// key and what is wrong -- never accepted silently, never a crash.
#include "platforms/config/config_error.h"
#include "platforms/config/config_node.h"
#include "platforms/platform_loader.h"
#include "support/mini_platform.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace warmsched;

namespace {

// The mini platform with `from` replaced by `to`; `line` receives the line the change is on.
std::string edited(const std::string& from, const std::string& to, int& line) {
    std::string text = test::mini_platform_yaml();
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    return text.replace(at, from.size(), to);
}

// Loads text as bad.yaml and returns the error text (fails the test if it loads).
std::string error_of(const std::string& text) {
    try {
        platform::read_platform(config::load_yaml_text(text, "bad.yaml"));
    } catch (const config::config_error& e) {
        for (const auto& l : e.lines()) CHECK(l.find('\n') == std::string::npos); // one line each
        return e.what();
    }
    FAIL("the platform was accepted");
    return {};
}

void check_error(const std::string& from, const std::string& to, const std::string& key,
                 const std::string& what, int line_offset = 0) {
    int line = 0;
    const std::string text = edited(from, to, line);
    line += line_offset;
    const std::string err = error_of(text);
    INFO(err);
    CHECK(err.find("bad.yaml:" + std::to_string(line) + ":") != std::string::npos);
    CHECK(err.find(key + ": ") != std::string::npos);
    CHECK(err.find(what) != std::string::npos);
}

} // namespace

TEST_CASE("the mini test platform itself is valid") {
    CHECK_NOTHROW(test::mini_platform());
}

TEST_CASE("1: YAML syntax error names the position") {
    int line = 0;
    const std::string err = error_of(edited("{name: socket, count: 1}", "{name: socket, count: 1", line));
    CHECK(err.find("bad.yaml:") != std::string::npos);
    CHECK(err.find("YAML syntax error") != std::string::npos);
}

TEST_CASE("2: an unknown key (a typo) is an error, not ignored") {
    check_error("frequency: 1GHz", "frequency: 1GHz\n  frequncy: 2GHz", "core.frequncy", "unknown key", 1);
}

TEST_CASE("3: a missing required key") {
    int line = 0;
    const std::string err = error_of(edited("  latency: 50ns\n", "", line));
    CHECK(err.find("memory.latency: required key is missing") != std::string::npos);
}

TEST_CASE("4: a list where a plain value belongs") {
    check_error("threads_per_core: 2", "threads_per_core: [2]", "topology.threads_per_core",
                "expected a whole number");
}

TEST_CASE("5: an unknown unit") {
    check_error("size: 4KiB", "size: 4Kb", "caches[2].size", "unknown size unit 'Kb'");
}

TEST_CASE("6: a size without a unit") {
    check_error("size: 4KiB", "size: 4096", "caches[2].size", "needs a unit");
}

TEST_CASE("7: out-of-range values") {
    check_error("associativity: 4, latency: 20cycles", "associativity: 0, latency: 20cycles",
                "caches[2].associativity", "out of range");
    check_error("max_outstanding_misses: 4", "max_outstanding_misses: 4\n  smt_throughput: 1.5",
                "core.smt_throughput", "out of range", 1);
}

TEST_CASE("8: impossible cache geometry") {
    check_error("size: 1KiB", "size: 1000B", "caches[1].size", "not a whole number of sets");
}

TEST_CASE("9: a cache shared by a level that does not exist") {
    check_error("shared_by: ccx", "shared_by: ccd", "caches[2].shared_by", "'ccd' is not a grouping level");
}

TEST_CASE("10: the last level must be shared (an LLC), and only the last may be") {
    check_error("shared_by: ccx", "shared_by: core", "caches[2].shared_by",
                "must be shared by a grouping level");
    check_error("{name: l2, shared_by: core", "{name: l2, shared_by: ccx", "caches[1].shared_by",
                "only the last cache level");
}

TEST_CASE("11: a NUMA distance table of the wrong size") {
    check_error("node_per: socket", "node_per: socket\n  distances: [[10, 20], [20, 10]]", "numa.distances",
                "must be 1 x 1", 1);
}

TEST_CASE("12: a NUMA distance table that is not symmetric or has a wrong diagonal") {
    int line = 0;
    std::string text = edited("- {name: socket, count: 1}", "- {name: socket, count: 2}", line);
    const auto at = text.find("node_per: socket");
    text.replace(at, 16, "node_per: socket\n  distances: [[10, 21], [31, 10]]");
    CHECK(error_of(text).find("numa.distances: the table must be symmetric") != std::string::npos);
    text.replace(text.find("[[10, 21], [31, 10]]"), 20, "[[11, 21], [21, 10]]");
    CHECK(error_of(text).find("local distance (diagonal) must be 10") != std::string::npos);
}

TEST_CASE("13: a NUMA node smaller than an LLC is an inconsistent topology") {
    check_error("node_per: socket", "node_per: core", "numa.node_per", "cannot be smaller than an LLC");
}

TEST_CASE("14: a fabric link to a stop kind that does not exist") {
    check_error("{from: hub, to: memory", "{from: hub, to: dram", "fabric.links[1].to",
                "'dram' is not a stop kind");
}

TEST_CASE("15: a fabric that does not connect the LLCs to memory") {
    int line = 0;
    const std::string err =
        error_of(edited("    - {from: hub, to: memory, latency: 5ns, bandwidth: 64GB/s}\n", "", line));
    CHECK(err.find("fabric.links: the links do not connect llc0 to memory0") != std::string::npos);
}

TEST_CASE("16: levels must run from socket to core, each name once") {
    check_error("{name: socket, count: 1}", "{name: package, count: 1}", "topology.levels",
                "must start with 'socket'");
    check_error("{name: core, count: 2}", "{name: ccx, count: 2}", "topology.levels[2].name", "listed twice");
}

TEST_CASE("17: a value outside its list of choices") {
    check_error("inclusion: victim", "inclusion: exclusive", "caches[2].inclusion",
                "'exclusive' is not one of");
}

TEST_CASE("18: cache levels with different line sizes, or latencies that do not grow") {
    check_error("size: 1KiB, associativity: 4, latency: 4cycles",
                "size: 1KiB, associativity: 4, latency: 4cycles, line_size: 128B", "caches[1].line_size",
                "same line size");
    check_error("latency: 4cycles", "latency: 1cycles", "caches[1].latency",
                "must be larger than the latency of l1d");
}

TEST_CASE("19: more LLCs or cores per LLC than the model's 64-bit sharer masks hold") {
    check_error("{name: ccx, count: 2}", "{name: ccx, count: 65}", "topology.levels", "at most 64 LLCs", -1);
    int line = 0;
    const std::string err = error_of(edited("{name: core, count: 2}", "{name: core, count: 65}", line));
    CHECK(err.find("caches: the model supports at most 64 cores per LLC, l3 has 65") != std::string::npos);
}

TEST_CASE("all problems of a file are reported at once") {
    int line = 0;
    std::string text = edited("size: 4KiB", "size: 4Kb", line);
    text.replace(text.find("frequency: 1GHz"), 15, "frequency: fast");
    config::config_error err({});
    try {
        platform::read_platform(config::load_yaml_text(text, "bad.yaml"));
    } catch (const config::config_error& e) {
        err = e;
    }
    CHECK(err.lines().size() >= 2);
}
