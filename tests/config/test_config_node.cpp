// Configuration files: includes merge a base file under the including one, command-line overrides
// replace single keys, and every value remembers the file, line and column it came from.
#include "platforms/config/config_node.h"
#include "platforms/config/config_reader.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace warmsched::config;
namespace fs = std::filesystem;

namespace {
fs::path write_file(const fs::path& dir, const std::string& name, const std::string& text) {
    fs::create_directories(dir);
    std::ofstream(dir / name) << text;
    return dir / name;
}
} // namespace

TEST_CASE("an included file is the base, and the including file's keys override it map by map") {
    const fs::path dir = fs::temp_directory_path() / "warmsched-test-include";
    write_file(dir, "base.yaml", "a: 1\nb:\n  x: 1\n  y: 2\nlist: [1, 2]\n");
    const fs::path top = write_file(dir, "top.yaml", "include: base.yaml\nb:\n  y: 3\nlist: [9]\n");
    config_node root = load_yaml_file(top.string());
    CHECK(root.find("a")->scalar() == "1");
    CHECK(root.find("b")->find("x")->scalar() == "1");
    CHECK(root.find("b")->find("y")->scalar() == "3");
    REQUIRE(root.find("list")->items().size() == 1);
    CHECK(root.find("list")->items()[0].scalar() == "9");
    CHECK(root.find("include") == nullptr);
    // Positions point into the file that supplied the value.
    CHECK(root.find("a")->where().file == (dir / "base.yaml").string());
    CHECK(root.find("b")->find("y")->where().file == top.string());
    CHECK(root.find("b")->find("y")->where().line == 3);
}

TEST_CASE("include cycles and missing include files are errors") {
    const fs::path dir = fs::temp_directory_path() / "warmsched-test-cycle";
    write_file(dir, "a.yaml", "include: b.yaml\nx: 1\n");
    write_file(dir, "b.yaml", "include: a.yaml\ny: 1\n");
    CHECK_THROWS_WITH(load_yaml_file((dir / "a.yaml").string()), Catch::Contains("include cycle"));
    write_file(dir, "c.yaml", "include: nowhere.yaml\n");
    CHECK_THROWS_WITH(load_yaml_file((dir / "c.yaml").string()), Catch::Contains("does not exist"));
}

TEST_CASE("overrides set dotted keys, index lists, and create missing maps") {
    config_node root =
        load_yaml_text("core:\n  frequency: 3GHz\ncaches:\n  - {size: 1KiB}\n  - {size: 2KiB}\n", "t.yaml");
    apply_override(root, "core.frequency=4GHz");
    apply_override(root, "caches.1.size=8KiB");
    apply_override(root, "memory.latency=80ns");
    CHECK(root.find("core")->find("frequency")->scalar() == "4GHz");
    CHECK(root.find("caches")->items()[1].find("size")->scalar() == "8KiB");
    CHECK(root.find("memory")->find("latency")->scalar() == "80ns");
    CHECK_THROWS_WITH(apply_override(root, "core.frequency"), Catch::Contains("dotted.key=value"));
    CHECK_THROWS_WITH(apply_override(root, "caches.7.size=1KiB"), Catch::Contains("not an index"));
    // An index too long for any list: one line, not std::stoul's out_of_range through the run.
    CHECK_THROWS_WITH(apply_override(root, "caches.99999999999999999999.size=1MiB"),
                      Catch::Contains("not an index"));
    CHECK_THROWS_WITH(apply_override(root, "caches.99999999999999999999=1"), Catch::Contains("not an index"));
    CHECK_THROWS_WITH(apply_override(root, "core.frequency.x=1"), Catch::Contains("plain value"));
}

TEST_CASE("overrides reach keys that contain dots, such as a cgroup's cpu.max") {
    config_node root = load_yaml_text("cgroups:\n  - {path: /a, cpu.max: \"20000 10000\", cpu.weight: 100}\n"
                                      "kernel: {version: eevdf}\n",
                                      "t.yaml");
    // The key the map has is matched whole: docs/tutorials/throttling.md's "try this next".
    apply_override(root, "cgroups.0.cpu.max=50000 100000");
    const config_node& g = root.find("cgroups")->items()[0];
    CHECK(g.find("cpu.max")->scalar() == "50000 100000");
    CHECK(g.find("cpu") == nullptr);
    // A dotted key the map does not have yet: escaped dots keep it one key, plain dots nest.
    apply_override(root, "cgroups.0.cpu\\.max\\.burst=1000");
    CHECK(g.find("cpu.max.burst")->scalar() == "1000");
    apply_override(root, "kernel.sysctl.hz=1000");
    CHECK(root.find("kernel")->find("sysctl")->find("hz")->scalar() == "1000");
    CHECK_THROWS_WITH(apply_override(root, "kernel..hz=1"), Catch::Contains("empty key segment"));
}

TEST_CASE("the resolved tree holds every value read, defaults included") {
    config_node root = load_yaml_text("size: 32KiB\n", "t.yaml");
    config_node resolved = config_node::make_map({});
    error_list errors;
    config_reader r(&root, "", errors, &resolved);
    CHECK(r.size("size") == 32768);
    CHECK(r.integer("ways", 8, 1, 64) == 8);
    r.finish();
    CHECK(errors.empty());
    CHECK(resolved.find("size")->scalar() == "32KiB");
    CHECK(resolved.find("ways")->scalar() == "8");
    CHECK(resolved.to_yaml().find("ways: 8") != std::string::npos);
}

namespace {
// The one error line of loading `text`, or "" when it loads.
std::string load_error(const std::string& text) {
    try {
        load_yaml_text(text, "t.yaml");
    } catch (const config_error& e) {
        REQUIRE(e.lines().size() == 1);
        return e.lines().front();
    }
    return "";
}
} // namespace

TEST_CASE("configuration text is UTF-8 without NUL bytes or lone carriage returns, one document, no tags") {
    // Valid: ASCII, 2-, 3- and 4-byte UTF-8, a byte order mark, CRLF line endings, tags yaml-cpp sets itself.
    CHECK(load_error("a: µs über 😀\r\nb: 'x'\r\n") == "");
    CHECK(load_error("\xef\xbb\xbf" "a: 1\n") == "");
    CHECK(load_error("a: 1\n...\n") == "");
    // Not UTF-8: a Latin-1 byte, an overlong slash, a UTF-16 surrogate, a truncated sequence, past U+10FFFF.
    CHECK(load_error("a: 1\nb: caf\xe9\n") == "t.yaml:2: invalid UTF-8 (byte 0xe9): the text must be UTF-8");
    CHECK(load_error("a: \xc0\xaf\n") == "t.yaml:1: invalid UTF-8 (byte 0xc0): the text must be UTF-8");
    CHECK(load_error("a: \xed\xa0\x80\n") == "t.yaml:1: invalid UTF-8 (byte 0xed): the text must be UTF-8");
    CHECK(load_error("a: \xe2\x82") == "t.yaml:1: invalid UTF-8 (byte 0xe2): the text must be UTF-8");
    CHECK(load_error("a: \xf4\x90\x80\x80\n") == "t.yaml:1: invalid UTF-8 (byte 0xf4): the text must be UTF-8");
    CHECK(load_error(std::string("a: 1\n\nb: \0\n", 10)) == "t.yaml:3: a NUL byte (a binary file? configuration files are text)");
    CHECK(load_error("a: 1\rb: 2\r").find("t.yaml: CR-only line endings") == 0);
    CHECK(load_error("a: 1\nb: 2\rc: 3\n").find("t.yaml:2: a carriage return without a line feed") == 0);
    CHECK(load_error("a: 1\n---\nb: 2\n").find("t.yaml:3: a second YAML document") == 0);
    CHECK(load_error("a: 1\n---\n").find("a second YAML document") != std::string::npos);
    CHECK(load_error("a: !!int 1\n").find("t.yaml:1:4: the YAML tag !!int is not understood") == 0);
    CHECK(load_error("a: !!binary aGk=\n").find("the YAML tag !!binary is not understood") != std::string::npos);
    CHECK(load_error("a: !local {b: 1}\n").find("the YAML tag !local is not understood") != std::string::npos);
}

TEST_CASE("error lines show control characters of keys and values escaped") {
    error_list errors;
    errors.add(origin{"f.yaml", 2, 1}, "k\x1b[31m", "got 'a\tb\x7f \xff µs'");
    CHECK(errors.lines().front() == "f.yaml:2:1: k\\x1b[31m: got 'a\\tb\\x7f \\xff µs'");
    // An empty list entry keeps the list's position (yaml-cpp gives it the next token's).
    const config_node root = load_yaml_text("a: 1\nlist:\n  -\n  - x\n", "t.yaml");
    CHECK(root.find("list")->items()[0].is_null());
    CHECK(root.find("list")->items()[0].where().describe() == "t.yaml:3:3");
}

TEST_CASE("an override with an empty value or bytes that are not UTF-8 is refused") {
    config_node root = load_yaml_text("seed: 1\n", "t.yaml");
    CHECK_THROWS_WITH(apply_override(root, "seed="),
                      "-p seed=: seed: an empty value (give a value, or leave the override out for the default)");
    CHECK_THROWS_WITH(apply_override(root, "seed=\xff"), "-p seed=\\xff: invalid UTF-8 (byte 0xff): the text must be UTF-8");
}
