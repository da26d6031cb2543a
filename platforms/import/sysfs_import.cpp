// sysfs reader; see sysfs_import.h.
#include "platforms/import/sysfs_import.h"

#include "base/files/input_file.h"
#include "platforms/config/config_error.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace warmsched::platform::import {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what) {
    throw config::config_error(config::origin{source, 0, 0}, "", what);
}

// A sysfs or procfs file's text, or nullopt when there is none. Anything but a regular file (real sysfs
// and procfs files are regular) is refused in one line: a FIFO blocked the import for ever.
std::optional<std::string> file_text(const fs::path& p) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec)) && !ec) return std::nullopt;
    std::string why;
    std::optional<std::string> text = base::read_input_file(p.string(), why);
    if (!text && why != "does not exist") fail(p.string(), why);
    return text;
}

std::optional<std::string> first_line(const fs::path& p) {
    const std::optional<std::string> text = file_text(p);
    if (!text) return std::nullopt;
    std::istringstream in(*text);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
}

std::optional<long long> number_file(const fs::path& p) {
    const auto text = first_line(p);
    if (!text || text->empty()) return std::nullopt;
    char* end = nullptr;
    const long long v = std::strtoll(text->c_str(), &end, 10);
    if (!end || *end != '\0') return std::nullopt;
    return v;
}

// sysfs cache sizes: "32K", "4096K", "260M".
std::uint64_t cache_size(const std::string& text) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (!end || end == text.c_str()) return 0;
    const std::string unit(end);
    if (unit.empty()) return v;
    if (unit == "K") return v << 10;
    if (unit == "M") return v << 20;
    if (unit == "G") return v << 30;
    return 0;
}

std::string trimmed(const std::string& s) {
    const auto a = s.find_first_not_of(" \t");
    if (a == std::string::npos) return {};
    return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// The first processor's vendor_id, cpu family, model and model name from /proc/cpuinfo (x86 layout).
void read_cpuinfo(const fs::path& file, machine_inventory& inv) {
    std::istringstream in(file_text(file).value_or(""));
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) break; // the end of the first processor's block
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = trimmed(line.substr(0, colon)), value = trimmed(line.substr(colon + 1));
        if (key == "vendor_id") inv.vendor = value;
        if (key == "model name") inv.model_name = value;
        if (key == "cpu family" || key == "model") {
            char* end = nullptr;
            const long v = std::strtol(value.c_str(), &end, 10);
            if (end && *end == '\0') (key == "model" ? inv.model : inv.family) = static_cast<int>(v);
        }
    }
}

} // namespace

bool parse_cpulist(const std::string& text, cpu_set& out) {
    out.clear();
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) {
        item = trimmed(item);
        if (item.empty()) return false;
        const auto dash = item.find('-');
        char* end = nullptr;
        const unsigned long a = std::strtoul(item.c_str(), &end, 10);
        if (end == item.c_str() || a > 1u << 20) return false;
        unsigned long b = a;
        if (dash != std::string::npos) {
            const std::string hi = item.substr(dash + 1);
            b = std::strtoul(hi.c_str(), &end, 10);
            if (end == hi.c_str() || *end || b < a || b > 1u << 20) return false;
        } else if (*end) {
            return false;
        }
        for (unsigned long c = a; c <= b; ++c) out.push_back(static_cast<unsigned>(c));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return !out.empty();
}

machine_inventory read_sysfs(const std::string& root) {
    const fs::path cpu_dir = fs::path(root) / "sys/devices/system/cpu";
    const fs::path node_dir = fs::path(root) / "sys/devices/system/node";
    const std::string source = root;
    if (!fs::is_directory(cpu_dir)) fail(source, "no sys/devices/system/cpu under this directory");
    machine_inventory inv;
    inv.source = source;
    inv.reader = "sysfs";

    // Every CPU of the tree (a cpuN directory), online or not: the CPU lists may name no other.
    cpu_set present;
    for (const auto& e : fs::directory_iterator(cpu_dir)) {
        const std::string name = e.path().filename().string();
        if (name.size() > 3 && name.size() < 10 && name.rfind("cpu", 0) == 0 &&
            std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            present.push_back(static_cast<unsigned>(std::stoul(name.substr(3))));
    }
    std::sort(present.begin(), present.end());
    auto check_in_tree = [&](const cpu_set& cpus, const fs::path& file) {
        for (unsigned cpu : cpus)
            if (!std::binary_search(present.begin(), present.end(), cpu))
                fail(file.string(), "lists CPU " + std::to_string(cpu) + ", which the tree does not have (no cpu" +
                                        std::to_string(cpu) + " directory; it has " + std::to_string(present.size()) +
                                        " CPUs): not a consistent sysfs tree");
    };
    cpu_set online;
    if (const auto text = first_line(cpu_dir / "online"); text && !parse_cpulist(*text, online))
        fail((cpu_dir / "online").string(), "not a CPU list: '" + *text + "'");
    if (online.empty()) online = present;
    std::sort(online.begin(), online.end());
    if (online.empty()) fail(source, "no CPU under sys/devices/system/cpu");

    std::map<long long, cpu_set> packages;
    std::map<std::pair<long long, long long>, cpu_set> dies;
    std::set<cpu_set> cores;
    std::map<std::pair<unsigned, cpu_set>, inventory_cache> caches; // (level, sharing) -> instance
    for (unsigned cpu : online) {
        const fs::path dir = cpu_dir / ("cpu" + std::to_string(cpu));
        const fs::path topo = dir / "topology";
        const auto pkg = number_file(topo / "physical_package_id");
        const auto siblings = first_line(topo / "thread_siblings_list");
        cpu_set core;
        if (!pkg || !siblings || !parse_cpulist(*siblings, core))
            fail(topo.string(), "missing or unreadable physical_package_id / thread_siblings_list");
        check_in_tree(core, topo / "thread_siblings_list");
        packages[*pkg].push_back(cpu);
        if (const auto die = number_file(topo / "die_id")) dies[{*pkg, *die}].push_back(cpu);
        // Offline siblings are not part of the machine being modelled.
        cpu_set on;
        std::set_intersection(core.begin(), core.end(), online.begin(), online.end(), std::back_inserter(on));
        cores.insert(on);
        if (const auto khz = number_file(dir / "cpufreq/cpuinfo_max_freq"))
            inv.max_frequency_hz = std::max(inv.max_frequency_hz, static_cast<double>(*khz) * 1e3);

        const fs::path cache_dir = dir / "cache";
        if (!fs::is_directory(cache_dir)) continue;
        for (const auto& e : fs::directory_iterator(cache_dir)) {
            if (e.path().filename().string().rfind("index", 0) != 0) continue;
            const auto type = first_line(e.path() / "type");
            if (!type || *type == "Instruction") continue;
            inventory_cache c;
            const auto level = number_file(e.path() / "level");
            const auto size = first_line(e.path() / "size");
            const auto shared = first_line(e.path() / "shared_cpu_list");
            if (!level || !size || !shared || !parse_cpulist(*shared, c.cpus))
                fail(e.path().string(), "missing or unreadable level / size / shared_cpu_list");
            check_in_tree(c.cpus, e.path() / "shared_cpu_list");
            c.level = static_cast<unsigned>(*level);
            c.size = cache_size(*size);
            if (c.size == 0) fail((e.path() / "size").string(), "not a cache size: '" + *size + "'");
            if (const auto ways = number_file(e.path() / "ways_of_associativity"); ways && *ways > 0)
                c.associativity = static_cast<unsigned>(*ways);
            if (const auto line = number_file(e.path() / "coherency_line_size"); line && *line > 0)
                c.line_size = static_cast<unsigned>(*line);
            cpu_set on_shared;
            std::set_intersection(c.cpus.begin(), c.cpus.end(), online.begin(), online.end(),
                                  std::back_inserter(on_shared));
            c.cpus = on_shared;
            caches.emplace(std::make_pair(c.level, c.cpus), c);
        }
    }
    for (auto& [id, cpus] : packages) inv.packages.push_back(cpus);
    for (auto& [id, cpus] : dies) inv.dies.push_back(cpus);
    inv.cores.assign(cores.begin(), cores.end());
    for (auto& [key, c] : caches) inv.caches.push_back(c);

    if (fs::is_directory(node_dir)) {
        std::vector<unsigned> numbers;
        for (const auto& e : fs::directory_iterator(node_dir)) {
            const std::string name = e.path().filename().string();
            if (name.size() > 4 && name.size() < 11 && name.rfind("node", 0) == 0 &&
                std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
                numbers.push_back(static_cast<unsigned>(std::stoul(name.substr(4))));
        }
        std::sort(numbers.begin(), numbers.end());
        std::vector<std::vector<unsigned>> rows;
        bool have_rows = true;
        for (unsigned n : numbers) {
            const fs::path dir = node_dir / ("node" + std::to_string(n));
            inventory_node node{n, {}};
            const auto list = first_line(dir / "cpulist");
            if (!list || list->empty()) continue; // a node with memory only
            if (!parse_cpulist(*list, node.cpus)) fail((dir / "cpulist").string(), "not a CPU list: '" + *list + "'");
            cpu_set on;
            std::set_intersection(node.cpus.begin(), node.cpus.end(), online.begin(), online.end(),
                                  std::back_inserter(on));
            if (on.empty()) continue;
            node.cpus = on;
            inv.nodes.push_back(node);
            std::vector<unsigned> row;
            std::stringstream ss(first_line(dir / "distance").value_or(""));
            for (unsigned d; ss >> d;) row.push_back(d);
            rows.push_back(row);
            have_rows = have_rows && !row.empty();
        }
        // A distance row has one entry per node directory in number order; keep the nodes with CPUs.
        if (have_rows && inv.nodes.size() > 1) {
            std::vector<std::size_t> column;
            for (const auto& node : inv.nodes)
                column.push_back(static_cast<std::size_t>(
                    std::find(numbers.begin(), numbers.end(), node.os_index) - numbers.begin()));
            for (std::size_t i = 0; i < inv.nodes.size(); ++i) {
                if (rows[i].size() != numbers.size())
                    fail((node_dir / ("node" + std::to_string(inv.nodes[i].os_index)) / "distance").string(),
                         "expected " + std::to_string(numbers.size()) + " distances (one per node)");
                std::vector<unsigned> row;
                for (std::size_t c : column) row.push_back(rows[i][c]);
                inv.distances.push_back(row);
            }
        }
    }
    read_cpuinfo(fs::path(root) / "proc/cpuinfo", inv);
    return inv;
}

} // namespace warmsched::platform::import
