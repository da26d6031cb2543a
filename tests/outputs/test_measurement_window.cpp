// A run's measurement window (`warmup:`): the counters of a run with a warm-up are those of the same run
// without one minus those of a run that stops where the warm-up ends (same seed), for every stat of
// stats.json, schedstat's and cpu.stat's start files are that shorter run's end files, and the run itself
// is the same (its end files equal). Bad warm-ups are one line and exit status 2, with nothing written.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/file_text.h"
#include "support/throttled_pair_experiment.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

namespace fs = std::filesystem;
using warmsched::test::file_text;
using warmsched::test::run_cli;
using warmsched::test::stats_json_of;
using warmsched::test::throttled_pair_experiment;

namespace {

fs::path temp(const std::string& name) {
    return warmsched::test::temp_path("window", name);
}

// cpu.stat's "key value" lines.
std::map<std::string, unsigned long long> cpu_stat(const fs::path& file) {
    std::map<std::string, unsigned long long> m;
    std::istringstream in(file_text(file));
    std::string k;
    for (unsigned long long v; in >> k >> v;) m[k] = v;
    REQUIRE(m.size() == 8);
    return m;
}

} // namespace

TEST_CASE("warmup: the window's stats are the whole run's minus the warm-up's, and the run is the same") {
    const fs::path exp = temp("exp.yaml"), win = temp("window"), warm = temp("warm"), whole = temp("whole");
    std::ofstream(exp) << throttled_pair_experiment;
    const auto rw =
        run_cli("run " + exp.string() + " --out " + win.string() + " -p duration=24ms -p warmup=9ms");
    const auto rp = run_cli("run " + exp.string() + " --out " + warm.string() + " -p duration=9ms");
    const auto rf = run_cli("run " + exp.string() + " --out " + whole.string() + " -p duration=24ms");
    INFO(rw.err << rp.err << rf.err);
    REQUIRE(rw.status == 0);
    REQUIRE(rp.status == 0);
    REQUIRE(rf.status == 0);
    CHECK(rw.out.find("simulated time     0.015000 s\nmeasured           from 0.009000 s to 0.024000 s") !=
          std::string::npos);

    const auto w = stats_json_of(win), p = stats_json_of(warm), f = stats_json_of(whole);
    CHECK(w.size() == f.size() + 1);
    CHECK(w["warmupSeconds"]["value"] == 0.009);
    unsigned totals = 0;
    for (auto it = f.begin(); it != f.end(); ++it) {
        const std::string& name = it.key();
        INFO(name);
        REQUIRE(w.contains(name));
        const auto& end = it.value()["value"];
        const auto& got = w[name]["value"];
        const bool level = name.size() > 12 && (name.rfind(".setSampling") == name.size() - 12 ||
                                                name.rfind(".trackerBytes") == name.size() - 13);
        // user and system time are usage split in the ratio of the tasks' user and kernel time, kept
        // monotonic as cputime_adjust keeps them: below.
        const bool split =
            name.find(".user_usec") != std::string::npos || name.find(".system_usec") != std::string::npos;
        if (level || split) {
            if (level) CHECK(got == end);
            continue;
        }
        const auto& before = p.contains(name) ? p[name]["value"] : nlohmann::json(0);
        if (end.is_number_unsigned()) {
            CHECK(got.get<std::uint64_t>() == end.get<std::uint64_t>() - before.get<std::uint64_t>());
            totals += end.get<std::uint64_t>() != before.get<std::uint64_t>();
        } else {
            CHECK(std::abs(got.get<double>() - (end.get<double>() - before.get<double>())) <=
                  1e-9 * std::max(1.0, std::abs(end.get<double>())));
        }
    }
    CHECK(totals > 100); // the window saw switches, accesses, throttling...
    CHECK(w["kernel.cgroup./a.nr_throttled"]["value"].get<std::uint64_t>() >= 1);
    for (const std::string g : {"/a", "/b"}) {
        INFO(g);
        const auto usage = w["kernel.cgroup." + g + ".usage_usec"]["value"].get<std::uint64_t>();
        const auto user = w["kernel.cgroup." + g + ".user_usec"]["value"].get<std::uint64_t>();
        const auto system = w["kernel.cgroup." + g + ".system_usec"]["value"].get<std::uint64_t>();
        CHECK(user + system <= usage + 1); // each truncated to whole microseconds at both ends
        CHECK(user + system + 2 >= usage);
    }

    // The shorter run's end files are the window's start files; the end files are the whole run's.
    for (const char* v : {"v15", "v17"}) {
        INFO(v);
        CHECK(file_text(win / "schedstat" / (std::string(v) + "-start.txt")) ==
              file_text(warm / "schedstat" / (std::string(v) + "-end.txt")));
        CHECK(file_text(win / "schedstat" / (std::string(v) + "-end.txt")) ==
              file_text(whole / "schedstat" / (std::string(v) + "-end.txt")));
    }
    for (const std::string g : {"", "a", "b"}) {
        INFO("cgroup /" << g);
        const auto start = cpu_stat(win / "cgroup" / g / "cpu.stat.start");
        const auto end = cpu_stat(win / "cgroup" / g / "cpu.stat");
        const auto warm_end = cpu_stat(warm / "cgroup" / g / "cpu.stat");
        const auto whole_end = cpu_stat(whole / "cgroup" / g / "cpu.stat");
        CHECK(start == warm_end);
        for (const char* k : {"usage_usec", "nr_periods", "nr_throttled", "throttled_usec"})
            CHECK(end.at(k) == whole_end.at(k));
        CHECK(end.at("user_usec") >= start.at("user_usec"));
        CHECK(end.at("system_usec") >= start.at("system_usec"));
        CHECK(!fs::exists(whole / "cgroup" / g / "cpu.stat.start"));
    }
    // The tools' own output covers their whole run: the same as without the warm-up.
    const std::string tools_w = file_text(win / "report.txt"), tools_f = file_text(whole / "report.txt");
    CHECK(tools_w.substr(0, tools_w.find("\n--- warmsched")) ==
          tools_f.substr(0, tools_f.find("\n--- warmsched")));
    for (const auto& d : {exp, win, warm, whole}) fs::remove_all(d);
}

TEST_CASE("warmup: one line and exit status 2 for a warm-up that cannot be, with nothing written") {
    const fs::path out = temp("bad");
    auto r = run_cli("run --platform zen3-5950x --out " + out.string() +
                     " -p duration=10ms -p warmup=10ms -- hackbench -l 10");
    CHECK(r.status == 2);
    CHECK(r.err ==
          "error: -p warmup=10ms: warmup: the warm-up (10ms) must end before the run does (duration: "
          "10ms)\n");
    r = run_cli("run --platform zen3-5950x --out " + out.string() + " -p warmup=fast -- hackbench -l 10");
    CHECK(r.status == 2);
    CHECK(r.err.find("warmup") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    r = run_cli("run " + std::string(WARMSCHED_SOURCE_DIR) + "/configs/experiments/probes.yaml --out " +
                out.string() + " -p warmup=1ms");
    CHECK(r.status == 2);
    CHECK(r.err.find("warmup: the probes measure from their start: a warm-up is for workload runs") !=
          std::string::npos);
    // hackbench -g 1 -l 10 ends after well under a simulated millisecond.
    r = run_cli("run --platform zen3-5950x --out " + out.string() +
                " -p warmup=50ms -- hackbench -g 1 -l 10");
    CHECK(r.status == 2);
    CHECK(r.err ==
          "error: -p warmup=50ms: warmup: the workloads ended within the warm-up of 50ms: nothing would be "
          "measured (give a shorter warmup; no results written)\n");
    CHECK(!fs::exists(out));
}
