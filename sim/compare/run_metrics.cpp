// Reading a run's metrics for `warmsched compare`; see run_metrics.h.
#include "sim/compare/run_metrics.h"

#include "base/files/input_file.h"
#include "platforms/config/config_error.h"
#include "sim/repeated_runs.h"
#include "sim/results_dir.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace warmsched::sim {

namespace {

// The largest results file compare reads. A stats.json takes about 3.6 KB per CPU and 1.1 KB per cgroup
// (1.4 MB for genoa-9654-2s's 384 CPUs): the model's largest, 4096 CPUs and 65,536 groups, is about
// 90 MB. The 16MiB cap of configuration files would refuse it.
constexpr std::uint64_t max_results_file_bytes = 256ull << 20;

// std::regex recurses once per character: names longer than any stat's (a crafted stats.json) are
// skipped rather than matched.
constexpr std::size_t max_stat_name = 512;
bool match_stat(const std::string& name, std::smatch& m, const std::regex& re) {
    return name.size() <= max_stat_name && std::regex_match(name, m, re);
}

// "2-9, 12, 15-10000": seeds as ranges, the first 20 of them (a --repeat 10000 directory listed each).
std::string seed_ranges(const std::vector<std::uint64_t>& seeds) {
    std::string out;
    std::size_t ranges = 0;
    for (std::size_t i = 0; i < seeds.size();) {
        std::size_t j = i;
        while (j + 1 < seeds.size() && seeds[j + 1] == seeds[j] + 1) ++j;
        if (++ranges > 20) return out + ", ...";
        out += (out.empty() ? "" : ", ") + std::to_string(seeds[i]) + (j > i ? "-" + std::to_string(seeds[j]) : "");
        i = j + 1;
    }
    return out;
}

[[noreturn]] void fail(const std::string& dir, const std::string& why) {
    throw config::config_error(std::vector<std::string>{"compare: " + dir + ": " + why});
}

// A results file's text, read with the checks of user input (base/files/input_file.h): a FIFO, a device
// or a directory in its place, or a file past the cap, is one line naming it -- a FIFO blocked compare
// for ever and a link to /dev/zero read until memory ran out. A missing report.txt (`required` false)
// reads as empty: its workload metrics are then absent.
std::string results_file_text(const std::string& path, bool required) {
    std::error_code ec;
    if (!required && !fs::exists(fs::symlink_status(path, ec)) && !ec) return {};
    std::string why;
    std::optional<std::string> text = base::read_input_file(path, why, max_results_file_bytes);
    if (!text) throw config::config_error(std::vector<std::string>{"compare: " + path + ": " + why});
    return std::move(*text);
}

double value_of(const run_metrics& m, const std::string& name) {
    for (const auto& [k, v] : m)
        if (k == name) return v;
    return 0;
}

} // namespace

run_metrics parse_report_metrics(const std::string& text) {
    struct pattern {
        const char* name;
        std::regex re;
    };
    static const std::vector<pattern> patterns = {
        {"hackbench Time (s)", std::regex(R"(^Time: ([0-9.]+)\s*$)")},
        {"perf-bench Total time (s)", std::regex(R"(^\s*Total time: ([0-9.]+) \[sec\]\s*$)")},
        {"netperf Trans/s", std::regex(R"(^\d+\s+\d+\s+\d+\s+\d+\s+[0-9.]+\s+([0-9.]+)\s*$)")},
        {"schbench average rps", std::regex(R"(^average rps: ([0-9.]+)\s*$)")},
        {"tbench Throughput MB/s", std::regex(R"(^Throughput ([0-9.e+]+) MB/sec\b.*$)")},
    };
    run_metrics out;
    std::map<std::string, int> seen;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.size() > 512) continue; // no metric line is this long; std::regex recurses per character
        for (const auto& p : patterns) {
            std::smatch m;
            if (!std::regex_match(line, m, p.re)) continue;
            const int k = ++seen[p.name];
            out.emplace_back(k == 1 ? std::string(p.name) : std::string(p.name) + " #" + std::to_string(k),
                             std::strtod(m[1].str().c_str(), nullptr));
            break;
        }
    }
    return out;
}

run_metrics read_stats_json(const std::string& path) {
    const auto doc = nlohmann::ordered_json::parse(results_file_text(path, true), nullptr, false);
    auto bad = [&](const std::string& why) {
        throw config::config_error(
            std::vector<std::string>{path + ": not a warmsched stats.json (" + why + ")"});
    };
    if (doc.is_discarded()) bad("malformed JSON");
    if (!doc.is_object() || !doc.contains("simulation") || !doc["simulation"].is_array())
        bad("no \"simulation\" list");
    run_metrics out;
    for (const auto& block : doc["simulation"]) {
        if (!block.is_object()) bad("a block that is not an object");
        for (const auto& [name, s] : block.items()) {
            if (!s.is_object() || !s.contains("value")) bad("stat '" + name + "' has no value");
            const auto& v = s["value"];
            if (v.is_number())
                out.emplace_back(name, v.get<double>());
            else if (!v.is_null())
                bad("stat '" + name + "' is not a number");
        }
    }
    return out;
}

run_metrics read_run_metrics(const std::string& dir) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(fs::path(dir) / "stats.json", ec))) fail(dir, "no stats.json");
    const run_metrics stats = read_stats_json((fs::path(dir) / "stats.json").string());
    run_metrics out = parse_report_metrics(results_file_text((fs::path(dir) / "report.txt").string(), false));
    out.emplace_back("migrations", value_of(stats, "kernel.migrations"));
    out.emplace_back("context switches", value_of(stats, "kernel.contextSwitches"));
    // Of the accesses that missed the private caches, the share another L3 (same or other socket) served.
    double other = 0, beyond_l2 = 0;
    static const std::regex cpu_access(R"(^system\.cpu\d+\.accesses::(\w+)$)");
    for (const auto& [name, v] : stats) {
        std::smatch m;
        if (!match_stat(name, m, cpu_access)) continue;
        const std::string src = m[1].str();
        if (src == "remote_llc" || src == "remote_socket") other += v;
        if (src != "l1" && src != "l2" && src != "total") beyond_l2 += v;
    }
    out.emplace_back("other-L3 share (%)", beyond_l2 > 0 ? 100 * other / beyond_l2 : 0);
    // Cross-LLC transfers: accesses served by another L3 (a cache-to-cache transfer between LLCs).
    out.emplace_back("cross-LLC transfers", other);
    // Migrations by distance, from the cost-of-migration classes (kernel.migrationCost.<cause>.<distance>).
    static const std::pair<const char*, const char*> distances[] = {{"smtSibling", "SMT sibling"},
                                                                    {"sameLLC", "same LLC"},
                                                                    {"otherLLC", "other LLC"},
                                                                    {"otherNode", "other node"}};
    static const std::regex by_class(R"(^kernel\.migrationCost\.\w+\.(\w+)\.migrations$)");
    bool have_classes = false;
    std::map<std::string, double> by_distance;
    for (const auto& [name, v] : stats) {
        std::smatch m;
        if (name == "kernel.migrationCost.migrations") have_classes = true;
        if (match_stat(name, m, by_class)) by_distance[m[1].str()] += v;
    }
    if (have_classes)
        for (const auto& [key, label] : distances)
            out.emplace_back(std::string("migrations ") + label, by_distance[key]);
    double gained = 0;
    for (const char* idle : {"idle", "busy", "newidle"}) {
        const double g = value_of(stats, std::string("kernel.lbGained::") + idle);
        gained += g;
        out.emplace_back(std::string("lb gained ") + idle, g);
    }
    out.emplace_back("lb gained", gained);
    // Per domain level (kernel.domain.<NAME>.lbGained::<idle type>), summed over the idle types. v5.15
    // calls the package level DIE and v6.12 PKG (renamed in v6.7): one row, so CFS and EEVDF compare.
    static const std::regex level_gained(R"(^kernel\.domain\.(\w+)\.lbGained::\w+$)");
    std::vector<std::string> levels;
    std::map<std::string, double> per_level;
    for (const auto& [name, v] : stats) {
        std::smatch m;
        if (!match_stat(name, m, level_gained)) continue;
        const std::string level = m[1].str() == "DIE" || m[1].str() == "PKG" ? "PKG/DIE" : m[1].str();
        if (!per_level.count(level)) levels.push_back(level);
        per_level[level] += v;
    }
    for (const auto& l : levels) out.emplace_back("lb gained " + l, per_level[l]);
    return out;
}

std::vector<std::string> runs_of(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        fail(dir, ec && ec != std::errc::no_such_file_or_directory ? "cannot be read: " + ec.message()
                                                                    : "not a directory");
    if (is_partial_results_name(dir))
        fail(dir, "an incomplete run (its process stopped while writing the results)");
    std::vector<std::pair<unsigned long long, std::string>> seeds;
    static const std::regex seed_dir(R"(seed-(\d{1,19}))"); // a seed is < 2^62
    fs::directory_iterator entries(dir, ec);
    if (ec) fail(dir, "cannot be read: " + ec.message());
    for (const auto& entry : entries) {
        std::smatch m;
        const std::string name = entry.path().filename().string();
        std::error_code type_ec;
        if (entry.is_directory(type_ec) && std::regex_match(name, m, seed_dir))
            seeds.emplace_back(std::strtoull(m[1].str().c_str(), nullptr, 10), entry.path().string());
    }
    std::sort(seeds.begin(), seeds.end());
    // A --repeat directory names the seeds it holds when complete: refuse it while some are missing.
    if (const std::vector<std::uint64_t> expected = repeat_seeds(dir); !expected.empty()) {
        std::set<unsigned long long> present;
        for (const auto& p : seeds) present.insert(p.first);
        std::vector<std::uint64_t> absent;
        for (const std::uint64_t s : expected)
            if (!present.count(s)) absent.push_back(s);
        const std::size_t n = absent.size();
        const std::string missing = seed_ranges(absent);
        if (n)
            fail(dir, std::to_string(n) + " of its " + std::to_string(expected.size()) +
                          " seeds are missing or incomplete (" + missing +
                          "); finish them with the same run command and --resume");
    }
    std::vector<std::string> out;
    for (const auto& s : seeds) out.push_back(s.second);
    if (out.empty()) {
        if (!fs::exists(fs::symlink_status(fs::path(dir) / "stats.json", ec)))
            fail(dir, "neither a results directory (stats.json) nor a --repeat directory (seed-*/)");
        out.push_back(dir);
    }
    // A run's files must be those its manifest lists (results_dir.h); a directory of a warmsched from before
    // the manifest has none and is read as it is.
    for (const auto& run : out)
        if (has_results_manifest(run))
            if (const std::string problem = results_problem(run); !problem.empty())
                fail(run, "damaged or incomplete: " + problem);
    return out;
}

} // namespace warmsched::sim
