// lscpu JSON reader; see lscpu_import.h.
#include "platforms/import/lscpu_import.h"

#include "platforms/config/config_error.h"
#include "platforms/import/sysfs_import.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace warmsched::platform::import {
namespace {
using json = nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& what) {
    throw config::config_error(config::origin{source, 0, 0}, "", what);
}

std::string trimmed(const std::string& s) {
    const auto a = s.find_first_not_of(" \t");
    if (a == std::string::npos) return {};
    return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// `lscpu -J` rows, flattened (newer util-linux nests sections under "children"); keys without the colon.
void flatten(const json& rows, std::map<std::string, std::string>& out) {
    if (!rows.is_array()) return;
    for (const auto& r : rows) {
        if (!r.is_object()) continue;
        if (r.contains("field") && r["field"].is_string()) {
            std::string key = trimmed(r["field"].get<std::string>());
            if (!key.empty() && key.back() == ':') key.pop_back();
            if (r.contains("data") && r["data"].is_string()) out.emplace(key, trimmed(r["data"].get<std::string>()));
        }
        if (r.contains("children")) flatten(r["children"], out);
    }
}

// "96 KiB (2 instances)", "260 MiB (1 instance)", "32K", "2M": bytes of one instance (and the count).
std::uint64_t size_of(const std::string& text, unsigned* instances = nullptr) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !(v > 0)) return 0;
    while (*end == ' ') ++end;
    double mult = 1;
    if (*end == 'K') mult = 1024.0;
    else if (*end == 'M') mult = 1024.0 * 1024;
    else if (*end == 'G') mult = 1024.0 * 1024 * 1024;
    else if (*end != 'B' && *end != '\0' && *end != '(') return 0;
    unsigned n = 0; // no "(N instances)": an older lscpu printing the size of one instance
    if (const auto open = text.find('('); open != std::string::npos)
        n = static_cast<unsigned>(std::max(1l, std::strtol(text.c_str() + open + 1, nullptr, 10)));
    if (instances) *instances = n;
    return static_cast<std::uint64_t>(v * mult / std::max(n, 1u) + 0.5);
}

int integer(const std::map<std::string, std::string>& f, const std::string& key) {
    const auto it = f.find(key);
    if (it == f.end()) return -1;
    char* end = nullptr;
    const long v = std::strtol(it->second.c_str(), &end, 10);
    return end && *end == '\0' && v >= 0 ? static_cast<int>(v) : -1;
}

// One value of an `lscpu -J -e` row as an integer id (-1 for "-" or absent).
long id_of(const json& row, const std::string& key) {
    if (!row.contains(key)) return -1;
    const auto& v = row[key];
    if (v.is_number_integer()) return v.get<long>();
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        char* end = nullptr;
        const long n = std::strtol(s.c_str(), &end, 10);
        if (end != s.c_str() && *end == '\0') return n;
    }
    return -1;
}

unsigned level_of(const std::string& name) { // "L1d", "l2", "L3" -> 1, 2, 3
    return name.size() >= 2 && (name[0] == 'L' || name[0] == 'l') ? static_cast<unsigned>(name[1] - '0') : 0;
}

} // namespace

machine_inventory read_lscpu_json(const std::string& text, const std::string& source) {
    std::map<std::string, std::string> summary;
    json cpus = json::array(), caches = json::array();
    std::stringstream in(text);
    unsigned documents = 0;
    try {
        while (true) {
            in >> std::ws;
            if (in.peek() == EOF) break;
            json doc;
            in >> doc;
            ++documents;
            if (doc.contains("lscpu")) flatten(doc["lscpu"], summary);
            if (doc.contains("cpus")) cpus = doc["cpus"];
            if (doc.contains("caches")) caches = doc["caches"];
        }
    } catch (const json::exception& e) {
        std::string what = e.what();
        fail(source, "not lscpu JSON: " + what.substr(what.find(']') == std::string::npos ? 0 : what.find(']') + 2));
    }
    if (documents == 0 || summary.empty())
        fail(source, "no `lscpu -J` summary (an object with an \"lscpu\" list) in the input");

    machine_inventory inv;
    inv.source = source;
    inv.reader = "lscpu";
    inv.vendor = summary.count("Vendor ID") ? summary["Vendor ID"] : "";
    inv.model_name = summary.count("Model name") ? summary["Model name"] : "";
    inv.family = integer(summary, "CPU family");
    inv.model = integer(summary, "Model");
    if (summary.count("CPU max MHz")) inv.max_frequency_hz = std::strtod(summary["CPU max MHz"].c_str(), nullptr) * 1e6;

    // Per-level cache geometry from `lscpu -J -C`.
    struct geometry {
        std::uint64_t size = 0;
        unsigned ways = 0, line = 0;
    };
    std::map<unsigned, geometry> geo; // data/unified caches by level
    for (const auto& c : caches) {
        if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) continue;
        const std::string type = c.contains("type") && c["type"].is_string() ? c["type"].get<std::string>() : "";
        if (type == "Instruction") continue;
        geometry g;
        if (c.contains("one-size") && c["one-size"].is_string()) g.size = size_of(c["one-size"].get<std::string>());
        if (c.contains("ways") && c["ways"].is_number_integer()) g.ways = c["ways"].get<unsigned>();
        if (c.contains("coherency-size") && c["coherency-size"].is_number_integer())
            g.line = c["coherency-size"].get<unsigned>();
        geo[level_of(c["name"].get<std::string>())] = g;
    }
    // Per-instance sizes and instance counts from the summary ("L2 cache: 4 MiB (2 instances)").
    std::map<unsigned, std::pair<std::uint64_t, unsigned>> summary_caches;
    for (const char* name : {"L1d", "L2", "L3", "L4"}) {
        // "L2 cache:" (util-linux 2.38), or "L2:" under "Caches (sum of all):" (2.39 and later).
        auto it = summary.find(std::string(name) + " cache");
        if (it == summary.end()) it = summary.find(name);
        if (it == summary.end()) continue;
        unsigned n = 0;
        const std::uint64_t size = size_of(it->second, &n);
        if (size == 0) fail(source, std::string(name) + " cache: not a size: '" + it->second + "'");
        summary_caches[level_of(name)] = {size, n};
    }
    auto cache_geometry = [&](unsigned level, inventory_cache& c) {
        if (geo.count(level)) {
            c.size = geo[level].size;
            c.associativity = geo[level].ways;
            c.line_size = geo[level].line;
        }
        if (c.size == 0 && summary_caches.count(level)) c.size = summary_caches[level].first;
    };

    if (!cpus.empty()) { // `lscpu -J -e`: every CPU's place
        std::map<long, cpu_set> sockets, cores_by_id, nodes;
        std::string cache_key;
        for (const auto& [k, v] : cpus.front().items())
            if (k.find(':') != std::string::npos || k.rfind("l1", 0) == 0) cache_key = k;
        std::vector<std::string> level_names;
        {
            std::stringstream ss(cache_key);
            for (std::string n; std::getline(ss, n, ':');) level_names.push_back(n);
        }
        std::map<std::pair<std::string, long>, cpu_set> cache_sets;
        for (const auto& row : cpus) {
            const long cpu = id_of(row, "cpu");
            if (cpu < 0) fail(source, "an `lscpu -J -e` row without a cpu number");
            if (row.contains("online") && row["online"].is_boolean() && !row["online"].get<bool>()) continue;
            const auto c = static_cast<unsigned>(cpu);
            const long socket = id_of(row, "socket"), core = id_of(row, "core"), node = id_of(row, "node");
            if (socket < 0 || core < 0) fail(source, "CPU " + std::to_string(cpu) + " has no socket or core id");
            sockets[socket].push_back(c);
            cores_by_id[core].push_back(c);
            if (node >= 0) nodes[node].push_back(c);
            if (!cache_key.empty() && row.contains(cache_key) && row[cache_key].is_string()) {
                std::stringstream ss(row[cache_key].get<std::string>());
                std::size_t i = 0;
                for (std::string id; std::getline(ss, id, ':') && i < level_names.size(); ++i)
                    if (level_names[i] != "l1i" && !id.empty() && id != "-")
                        cache_sets[{level_names[i], std::strtol(id.c_str(), nullptr, 10)}].push_back(c);
            }
        }
        for (auto& [id, set] : sockets) inv.packages.push_back(set);
        for (auto& [id, set] : cores_by_id) inv.cores.push_back(set);
        for (auto& [id, set] : nodes) inv.nodes.push_back({static_cast<unsigned>(id), set});
        for (auto& [key, set] : cache_sets) {
            inventory_cache c;
            c.level = level_of(key.first);
            c.cpus = set;
            cache_geometry(c.level, c);
            if (c.size == 0) fail(source, key.first + ": no size (add `lscpu -J -C` or the summary)");
            inv.caches.push_back(c);
        }
        for (auto* sets : {&inv.packages, &inv.cores})
            for (auto& s : *sets) std::sort(s.begin(), s.end());
        for (auto& c : inv.caches) std::sort(c.cpus.begin(), c.cpus.end());
        for (auto& n : inv.nodes) std::sort(n.cpus.begin(), n.cpus.end());
        return inv;
    }

    // The summary alone: counts, with the Linux x86 numbering assumed.
    const int n = integer(summary, "CPU(s)"), threads = integer(summary, "Thread(s) per core"),
              sockets = integer(summary, "Socket(s)");
    int per_socket = integer(summary, "Core(s) per socket");
    if (per_socket < 0) per_socket = integer(summary, "Core(s) per cluster");
    if (n <= 0 || threads <= 0 || sockets <= 0 || per_socket <= 0)
        fail(source, "the lscpu summary lacks CPU(s), Thread(s) per core, Core(s) per socket or Socket(s)");
    const unsigned cores = static_cast<unsigned>(sockets * per_socket);
    if (cores * static_cast<unsigned>(threads) != static_cast<unsigned>(n))
        fail(source, "Socket(s) x Core(s) per socket x Thread(s) per core is not CPU(s) (offline CPUs? add "
                     "`lscpu -J -e`)");
    auto cpus_of_cores = [&](unsigned first, unsigned count) {
        cpu_set set;
        for (unsigned t = 0; t < static_cast<unsigned>(threads); ++t)
            for (unsigned c = first; c < first + count; ++c) set.push_back(t * cores + c);
        std::sort(set.begin(), set.end());
        return set;
    };
    for (unsigned s = 0; s < static_cast<unsigned>(sockets); ++s)
        inv.packages.push_back(cpus_of_cores(s * per_socket, per_socket));
    for (unsigned c = 0; c < cores; ++c) inv.cores.push_back(cpus_of_cores(c, 1));
    for (const auto& [level, size_count] : summary_caches) {
        const unsigned instances = size_count.second;
        if (instances == 0)
            fail(source, "L" + std::to_string(level) +
                             " cache: this lscpu gives no instance count; add `lscpu -J -e` for the sharing");
        if (cores % instances != 0)
            fail(source, "L" + std::to_string(level) + " cache: " + std::to_string(instances) +
                             " instances do not divide " + std::to_string(cores) + " cores");
        const unsigned per = cores / instances;
        for (unsigned i = 0; i < instances; ++i) {
            inventory_cache c;
            c.level = level;
            cache_geometry(level, c);
            c.cpus = cpus_of_cores(i * per, per);
            inv.caches.push_back(c);
        }
    }
    for (const auto& [key, value] : summary) {
        unsigned node = 0;
        if (std::sscanf(key.c_str(), "NUMA node%u CPU(s)", &node) != 1) continue;
        inventory_node nd{node, {}};
        if (value.empty()) continue;
        if (!parse_cpulist(value, nd.cpus)) fail(source, key + ": not a CPU list: '" + value + "'");
        inv.nodes.push_back(nd);
    }
    std::sort(inv.nodes.begin(), inv.nodes.end(),
              [](const inventory_node& a, const inventory_node& b) { return a.os_index < b.os_index; });
    return inv;
}

} // namespace warmsched::platform::import
