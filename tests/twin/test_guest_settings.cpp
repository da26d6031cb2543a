// What the twin's guest runs (twin/guest_settings.h): the model's settings as guest debugfs writes, and
// the workloads as real tools; here `make -jN`, which builds a generated tree with the real gcc
// (twin/guest_build_tree.h), and the refusals.
#include "platforms/config/config_error.h"
#include "platforms/platform_loader.h"
#include "sim/experiment.h"
#include "twin/guest_build_tree.h"
#include "twin/guest_machine.h"
#include "twin/guest_settings.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace warmsched;
namespace fs = std::filesystem;

namespace {

sim::experiment experiment_of(const std::string& yaml) {
    // One file per process: ctest runs the test cases of this file in parallel.
    const fs::path p =
        fs::temp_directory_path() / ("warmsched-test-guest-settings-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(p) << yaml;
    auto e = sim::read_experiment(p.string(), {});
    fs::remove(p);
    return e;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_CASE("make -jN: gcc builds the workload's objects in the guest, one generated file each") {
    const auto e =
        experiment_of("platform: haswell-i7-4790\nworkloads:\n  - command: make -j8\n    objects: 12\n");
    const auto g = twin::make_guest_machine(platform::load_platform("haswell-i7-4790"));
    const auto r = twin::make_guest_run(e, g);
    for (const char* t : {"make", "gcc", "as", "cc1"}) CHECK(has(r.tools, t));
    REQUIRE(r.files.size() == 13); // the Makefile and 12 sources
    CHECK(r.files[0].first == "build/w0/Makefile");
    CHECK(r.files[0].second.find("obj_11.o") != std::string::npos);
    CHECK(r.files[0].second.find("obj_12.o") == std::string::npos);
    CHECK(r.files[12].first == "build/w0/obj_11.c");
    // make runs in the tree, under twin_runner, and the script returns to / for the next workload.
    CHECK(r.start_sh.find("cd /twin/build/w0; twin_runner /out/w0 -- 'make' '-j8'") != std::string::npos);
    CHECK(r.start_sh.find("cd /\n") != std::string::npos);
    // Every object's functions are its own (the objects are distinct translation units of one size).
    const std::string a = twin::build_object_source(3), b = twin::build_object_source(4);
    CHECK(a.find("f3_7(") != std::string::npos);
    CHECK(b.find("f3_") == std::string::npos);
    CHECK(a.size() + 8 >= b.size());
}

TEST_CASE("the guest's refusals name the workload and the limit") {
    const auto g = twin::make_guest_machine(platform::load_platform("haswell-i7-4790"));
    // The model's default tree (2500 objects) would take an hour of TCG.
    const auto big = experiment_of("platform: haswell-i7-4790\nworkloads:\n  - make -j8\n");
    try {
        twin::make_guest_run(big, g);
        FAIL("2500 objects accepted");
    } catch (const config::config_error& x) {
        CHECK(std::string(x.what()).find("workloads.0.objects") != std::string::npos);
        CHECK(std::string(x.what()).find("at most 512 (it is 2500)") != std::string::npos);
    }
    CHECK_THROWS_AS(
        twin::make_guest_run(experiment_of("platform: haswell-i7-4790\nworkloads:\n  - kernbench -n 1\n"), g),
        config::config_error);
}

TEST_CASE("the guest gets the model's sched_features, not its version changes, and a run that switches a "
          "version change says the guest cannot follow") {
    const auto g = twin::make_guest_machine(platform::load_platform("haswell-i7-4790"));
    const auto plain = twin::make_guest_run(
        experiment_of("platform: haswell-i7-4790\nworkloads:\n  - hackbench -g 1 -l 10\n"), g);
    CHECK(plain.setup_sh.find("feature RUN_TO_PARITY on\n") != std::string::npos);
    CHECK(plain.setup_sh.find("feature LB_SMT_BALANCE") == std::string::npos);
    CHECK(plain.setup_sh.find("feature NUMA_IMB_PER_LLC") == std::string::npos);
    for (const auto& n : plain.notes) CHECK(n.find("version changes") == std::string::npos);
    const auto changed = twin::make_guest_run(
        experiment_of("platform: haswell-i7-4790\nkernel:\n  features:\n    LB_SMT_BALANCE: false\n"
                      "workloads:\n  - hackbench -g 1 -l 10\n"),
        g);
    CHECK(std::count_if(changed.notes.begin(), changed.notes.end(), [](const std::string& n) {
              return n.find("version changes set away from the kernel's code") != std::string::npos &&
                     n.find(" LB_SMT_BALANCE=off") != std::string::npos;
          }) == 1);
}
