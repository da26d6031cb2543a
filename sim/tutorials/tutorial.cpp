// What a tutorial's analysis reads and writes; see tutorial.h.
#include "sim/tutorials/tutorial.h"
#include "base/files/output_file.h"

#include "platforms/config/config_error.h"
#include "platforms/platform_catalog.h"
#include "sim/file_text.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace fs = std::filesystem;

namespace {
[[noreturn]] void fail(const std::string& why) {
    throw config::config_error(std::vector<std::string>{"tutorial: " + why});
}
} // namespace

std::string tutorial_context::step_dir(const std::string& step) const {
    return (fs::path(dir_) / "runs" / step).string();
}

std::string tutorial_context::step_output(const std::string& step) const {
    const fs::path p = fs::path(dir_) / "runs" / (step + ".txt");
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail(p.string() + ": the step wrote no output");
    return file_text(p);
}

std::string tutorial_context::step_file(const std::string& step, const std::string& file) const {
    const fs::path p = fs::path(step_dir(step)) / file;
    std::string text = file_text(p);
    if (text.empty()) fail(p.string() + ": missing or empty");
    return text;
}

const nlohmann::json& tutorial_context::step_json(const std::string& step, const std::string& file) const {
    const std::string key = step + "/" + file;
    if (auto it = parsed_.find(key); it != parsed_.end()) return it->second;
    const std::string text = step_file(step, file);
    try {
        return parsed_.emplace(key, nlohmann::json::parse(text)).first->second;
    } catch (const nlohmann::json::exception& x) {
        fail((fs::path(step_dir(step)) / file).string() + ": " + x.what());
    }
}

std::vector<std::vector<std::string>> tutorial_context::step_csv(const std::string& step,
                                                                 const std::vector<std::string>& columns) const {
    std::istringstream in(step_output(step));
    auto split = [](const std::string& line) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
        return f;
    };
    std::string line;
    // Skip what precedes the CSV header (a probe prints nothing else with --csv, but a note may come first).
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        header = split(line);
        if (!header.empty() && header[0] == columns.front()) break;
        header.clear();
    }
    if (header.empty()) fail("runs/" + step + ".txt: no CSV header starting with " + columns.front());
    std::vector<std::size_t> at;
    for (const auto& c : columns) {
        std::size_t i = 0;
        while (i < header.size() && header[i] != c) ++i;
        if (i == header.size()) fail("runs/" + step + ".txt: no column " + c);
        at.push_back(i);
    }
    std::vector<std::vector<std::string>> rows;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto f = split(line);
        if (f.size() != header.size()) fail("runs/" + step + ".txt: a row of " + std::to_string(f.size()) +
                                            " fields under a header of " + std::to_string(header.size()));
        std::vector<std::string> row;
        for (const auto i : at) row.push_back(f[i]);
        rows.push_back(std::move(row));
    }
    return rows;
}

namespace {
const nlohmann::json& stats_of(const nlohmann::json& stats, const std::string& step) {
    if (!stats.contains("simulation") || !stats["simulation"].is_array() || stats["simulation"].empty())
        fail("runs/" + step + "/stats.json: no simulation statistics");
    return stats["simulation"][0];
}
} // namespace

double tutorial_context::stat(const std::string& step, const std::string& name) const {
    const nlohmann::json& s = stats_of(step_json(step, "stats.json"), step);
    if (!s.contains(name) || !s[name].contains("value") || !s[name]["value"].is_number())
        fail("runs/" + step + "/stats.json: no statistic " + name);
    return s[name]["value"].get<double>();
}

double tutorial_context::stat_sum(const std::string& step, const std::string& pattern) const {
    const std::regex re(pattern);
    double sum = 0;
    for (const auto& [name, v] : stats_of(step_json(step, "stats.json"), step).items())
        if (std::regex_match(name, re) && v.contains("value") && v["value"].is_number()) sum += v["value"].get<double>();
    return sum;
}

double tutorial_context::metric(const std::string& step, const std::string& name) const {
    const nlohmann::json& j = step_json(step, "report.json");
    if (!j.contains("metrics") || !j["metrics"].contains(name) || !j["metrics"][name].is_number())
        fail("runs/" + step + "/report.json: the run printed no " + name);
    return j["metrics"][name].get<double>();
}

void tutorial_context::write_data(const std::string& file, const std::string& text) const {
    const fs::path p = fs::path(dir_) / "plots" / file;
    base::write_file(p.string(), text);
}

std::string tutorial_input(const std::string& name) {
    return fs::weakly_canonical(fs::path(platform::configs_dir()) / "tutorials" / name).string();
}

void analysis_error(const std::string& why) {
    fail(why);
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::map<std::string, distance_tally> migrations_by_distance(const tutorial_context& c, const std::string& step,
                                                             const std::string& cause) {
    const nlohmann::json& report = c.step_json(step, "migration_report.json");
    if (!report.contains("classes") || !report["classes"].is_array())
        fail("runs/" + step + "/migration_report.json: no classes");
    std::map<std::string, distance_tally> by;
    for (const auto& k : report["classes"]) {
        if (!cause.empty() && k.at("cause") != cause) continue;
        distance_tally& t = by[k.at("distance").get<std::string>()];
        t.migrations += k.at("migrations").get<double>();
        t.stall_us += k.at("refill").at("stall_us").get<double>();
    }
    return by;
}

} // namespace warmsched::sim::tutorials
