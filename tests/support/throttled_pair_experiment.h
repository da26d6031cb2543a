// The experiment of the tests that split a run in time (test_measurement_window.cpp, test_stats_series.cpp):
// bandwidth throttling in 10 ms periods, wakeups, migrations and load balancing on zen3's 32 CPUs, with
// two cgroups (/a throttled at 4 CPUs, /b without a limit) of two hackbench groups each; and a results
// directory's stats.json, its stats by full name.
#pragma once

#include "support/file_text.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace warmsched::test {

inline constexpr const char* throttled_pair_experiment = R"(platform: zen3-5950x
seed: 7
cgroups:
  - {path: /a, cpu.max: "40000 10000"}
  - {path: /b}
workloads:
  - {command: hackbench -p -g 2 -l 100000, cgroup: /a}
  - {command: hackbench -p -g 2 -l 100000, cgroup: /b}
)";

inline nlohmann::json stats_json_of(const std::filesystem::path& results_dir) {
    return nlohmann::json::parse(file_text(results_dir / "stats.json"))["simulation"][0];
}

} // namespace warmsched::test
