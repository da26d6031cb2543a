// Platform YAML writer for imported machines; see platform_writer.h.
#include "platforms/import/platform_writer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <regex>
#include <sstream>

namespace warmsched::platform::import {
namespace {

// "13.45", "7.2", "20": at most `decimals` places, trailing zeros dropped.
std::string number(double v, int decimals = 2) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

std::string size_text(std::uint64_t bytes) {
    const char* units[] = {"GiB", "MiB", "KiB"};
    const unsigned shifts[] = {30, 20, 10};
    for (int i = 0; i < 3; ++i)
        if (bytes >= (std::uint64_t{1} << shifts[i]) && bytes % (std::uint64_t{1} << shifts[i]) == 0)
            return std::to_string(bytes >> shifts[i]) + units[i];
    return std::to_string(bytes) + "B";
}

std::string ns_text(double ps) {
    return number(std::max(ps, 100.0) / 1e3) + "ns";
}
std::string bandwidth_text(double bytes_per_s) {
    return number(bytes_per_s / 1e9) + "GB/s";
}
std::string ghz_text(double hz) {
    return number(hz / 1e9, 3) + "GHz";
}

// The body of the file, line by line, with the dotted key of every estimated value.
class yaml_out {
public:
    void line(int indent, const std::string& text, const std::string& comment = "") {
        std::string l = std::string(static_cast<std::size_t>(indent), ' ') + text;
        if (!comment.empty()) {
            if (l.size() < 40) l.resize(40, ' ');
            else l += ' ';
            l += "# " + comment;
        }
        body_ << l << "\n";
    }
    // A value taken from the family (or otherwise not read): "# est: why", listed in estimated:.
    // A key measured on the machine (calibrate) is written as measured instead.
    void estimate(int indent, const std::string& key_path, const std::string& text, const std::string& why) {
        if (write_measured(indent, key_path, text)) return;
        line(indent, text, "est: " + why);
        estimated_.push_back(key_path);
    }
    // A value read from the input, unless the machine measured it otherwise (calibrate: an LLC whose
    // effective capacity is smaller than sysfs says).
    void read_value(int indent, const std::string& key_path, const std::string& text, const std::string& why) {
        if (!write_measured(indent, key_path, text)) line(indent, text, why);
    }
    // "key: measured value  # measured: ..." when calibrate measured `key_path`.
    bool write_measured(int indent, const std::string& key_path, const std::string& text) {
        const auto m = measured_ ? measured_->find(key_path) : std::map<std::string, measured_value>::const_iterator{};
        if (!measured_ || m == measured_->end()) return false;
        line(indent, text.substr(0, text.find(':')) + ": " + m->second.text, m->second.comment);
        return true;
    }
    const std::map<std::string, measured_value>* measured_ = nullptr;
    std::string body() const { return body_.str(); }
    const std::vector<std::string>& estimated() const { return estimated_; }

private:
    std::ostringstream body_;
    std::vector<std::string> estimated_;
};

// The family level whose latency an imported level takes: the first for the first, the family's LLC
// for the LLC, the family's level of the same number (capped below its LLC) in between.
std::size_t family_level(std::size_t i, std::size_t levels, std::size_t family_levels) {
    if (i == 0) return 0;
    if (i + 1 == levels) return family_levels - 1;
    return std::min(i, family_levels >= 2 ? family_levels - 2 : 0);
}

// Ways that make `size` a whole number of sets: the family's, else the nearest smaller count that does.
unsigned ways_for(std::uint64_t size, unsigned line, unsigned family_ways) {
    for (unsigned w = std::min(family_ways, 64u); w > 1; --w)
        if (size % (static_cast<std::uint64_t>(w) * line) == 0) return w;
    return 1;
}

} // namespace

// A YAML double-quoted scalar: the text stays one value whatever it holds (a newline in --name or a
// backslash in a CPU model string adds no key and breaks no line).
std::string yaml_quoted(const std::string& text) {
    std::string q = "\"";
    for (const char c : text) {
        const auto b = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            q += '\\';
            q += c;
        } else if (b < 0x20 || b == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", b);
            q += hex;
        } else {
            q += c;
        }
    }
    return q + "\"";
}

std::string write_platform_yaml(const machine_inventory& inv, const machine_shape& s, const family_values& f,
                                const std::string& name, const std::map<std::string, measured_value>& measured,
                                const std::string& appendix) {
    const std::string fam = f.choice.platform;
    const std::string from = "from " + fam;
    yaml_out y;
    y.measured_ = &measured;
    const unsigned cpus = s.num_cores() * s.threads_per_core;
    const std::string reader = inv.reader == "hwloc"   ? "hwloc"
                               : inv.reader == "sysfs" ? "sysfs"
                                                       : "lscpu";

    // topology
    y.line(0, "topology:");
    y.line(2, "levels:");
    for (std::size_t i = 0; i < s.levels.size(); ++i) {
        const auto& l = s.levels[i];
        std::string what = i == 0 ? std::to_string(l.count) + " package" + (l.count > 1 ? "s" : "")
                                  : std::to_string(l.count) + " per " + s.levels[i - 1].name;
        y.line(4, "- {name: " + l.name + ", count: " + std::to_string(l.count) + "}", "read (" + reader + "): " + what);
    }
    y.line(2, "threads_per_core: " + std::to_string(s.threads_per_core), "read (" + reader + ")");
    if (s.cpu_ids.empty()) {
        y.line(2, "cpu_numbering: " + s.cpu_numbering, "read (" + reader + "): the input's CPU numbers");
    } else {
        std::string ids;
        for (unsigned id : s.cpu_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
        y.line(2, "cpu_ids: [" + ids + "]", "read (" + reader + "): neither siblings_last nor siblings_adjacent");
    }

    // core
    y.line(0, "core:");
    if (inv.max_frequency_hz >= 1e8) {
        y.line(2, "frequency: " + ghz_text(inv.max_frequency_hz),
               inv.reader == "sysfs" ? "read (sysfs): cpufreq cpuinfo_max_freq" : "read (lscpu): CPU max MHz");
    } else {
        std::smatch clock;
        if (std::regex_search(inv.model_name, clock, std::regex("@ *([0-9]+(\\.[0-9]+)?) *GHz")))
            y.estimate(2, "core.frequency", "frequency: " + clock[1].str() + "GHz",
                       "the base clock in the CPU model string; the input gives no boost clock");
        else
            y.estimate(2, "core.frequency", "frequency: " + f.frequency, from + " (the input gives no clock)");
    }
    y.estimate(2, "core.base_cpi", "base_cpi: " + number(f.base_cpi, 3), from);
    if (s.threads_per_core > 1)
        y.estimate(2, "core.smt_throughput", "smt_throughput: " + number(f.smt_throughput, 3), from);
    else
        y.line(2, "smt_throughput: 1.0", "no SMT");
    y.estimate(2, "core.max_outstanding_misses", "max_outstanding_misses: " + std::to_string(f.max_outstanding_misses), from);
    y.estimate(2, "core.stream_outstanding_misses",
               "stream_outstanding_misses: " + std::to_string(f.stream_outstanding_misses), from);
    y.estimate(2, "core.atomic_latency", "atomic_latency: " + f.atomic_latency, from);

    // caches
    y.line(0, "caches:");
    for (std::size_t i = 0; i < s.caches.size(); ++i) {
        const auto& c = s.caches[i];
        const std::size_t fl = family_level(i, s.caches.size(), f.caches.size());
        const auto& fc = f.caches[fl];
        const std::string key = "caches[" + std::to_string(i) + "].";
        const bool last = i + 1 == s.caches.size();
        const std::string fam_level = fam + "'s " + (fl == 0 ? "l1d" : "l" + std::to_string(fl + 1));
        y.line(2, "- name: " + c.name);
        y.line(4, "shared_by: " + c.shared_by,
               c.shared_by == "core" ? "read (" + reader + "): private to a core"
                                     : "read (" + reader + "): shared by " + std::to_string(c.cores_sharing) +
                                           " core" + (c.cores_sharing > 1 ? "s" : ""));
        y.read_value(4, key + "size", "size: " + size_text(c.size), "read (" + reader + ")");
        const unsigned line = c.line_size ? c.line_size : 64;
        if (c.associativity)
            y.line(4, "associativity: " + std::to_string(c.associativity), "read (" + reader + ")");
        else
            y.estimate(4, key + "associativity", "associativity: " + std::to_string(ways_for(c.size, line, fc.associativity)),
                       "the input gives no ways; " + fam_level + "'s (or the nearest that divides the size)");
        if (c.line_size)
            y.line(4, "line_size: " + std::to_string(c.line_size) + "B", "read (" + reader + ")");
        else
            y.estimate(4, key + "line_size", "line_size: 64B", "the input gives no line size");
        y.estimate(4, key + "latency", "latency: " + fc.latency, "from " + fam_level);
        if (i > 0 && !last) {
            y.line(4, "inclusion: inclusive", "the model keeps private levels inclusive of the level above");
        } else if (last && i > 0) {
            if (c.inclusive == 1)
                y.line(4, "inclusion: inclusive", "read (" + reader + "): inclusive");
            else if (c.inclusive == 0)
                y.estimate(4, key + "inclusion",
                           "inclusion: " + (fc.inclusion == "inclusive" ? std::string("non_inclusive") : fc.inclusion),
                           "read (" + reader + ") not inclusive; victim or non_inclusive as " + fam);
            else
                y.estimate(4, key + "inclusion", "inclusion: " + fc.inclusion, from + " (the input does not say)");
            if (!fc.peer_snoop_latency.empty())
                y.estimate(4, key + "peer_snoop_latency", "peer_snoop_latency: " + fc.peer_snoop_latency, "from " + fam_level);
        }
    }

    // memory: one controller stop per NUMA node.
    const std::string mem_per = s.node_per;
    const unsigned cores_per_stop = s.cores_per(mem_per);
    const double mem_bw = f.memory_bandwidth_per_core * cores_per_stop;
    y.line(0, "memory:");
    y.line(2, "controllers_per: " + mem_per, "one controller stop per NUMA node (model structure)");
    y.estimate(2, "memory.latency", "latency: " + f.memory_latency, from);
    y.estimate(2, "memory.bandwidth", "bandwidth: " + bandwidth_text(mem_bw),
               fam + "'s DRAM bandwidth per core (" + bandwidth_text(f.memory_bandwidth_per_core) + ") x " +
                   std::to_string(cores_per_stop) + " cores per node");

    // numa
    y.line(0, "numa:");
    y.line(2, "node_per: " + s.node_per, "read (" + reader + "): " + std::to_string(s.num_nodes) + " NUMA node" +
                                             (s.num_nodes > 1 ? "s" : ""));
    auto table = [](const std::vector<std::vector<unsigned>>& d) {
        std::string t = "[";
        for (std::size_t i = 0; i < d.size(); ++i) {
            t += (i ? ", [" : "[");
            for (std::size_t j = 0; j < d[i].size(); ++j) t += (j ? ", " : "") + std::to_string(d[i][j]);
            t += "]";
        }
        return t + "]";
    };
    if (!s.distances.empty()) {
        y.line(2, "distances: " + table(s.distances), "read (" + reader + "): the input's NUMA distance table");
    } else if (s.num_nodes > 1) {
        std::vector<std::vector<unsigned>> d(s.num_nodes, std::vector<unsigned>(s.num_nodes, 20));
        for (unsigned i = 0; i < s.num_nodes; ++i) d[i][i] = 10;
        y.estimate(2, "numa.distances", "distances: " + table(d),
                   "the input has no distance table: Linux's default without a SLIT (10 local, 20 remote)");
    } else {
        y.line(2, "distances: [[10]]", "one node");
    }

    // fabric: a hub per socket, or per NUMA node when a socket holds several.
    const unsigned sockets = s.num_sockets();
    const bool hub_per_node = s.node_per != "socket" && s.node_per != "machine";
    const std::string hub_per = hub_per_node ? s.node_per : "socket";
    const unsigned hubs_per_socket = hub_per_node ? s.num_nodes / sockets : 1;
    const double a = f.llc_link_latency_ps;
    const double m = std::max(f.local_memory_ps - a, 100.0);
    unsigned link = 0;
    auto link_key = [&](const char* field) { return "fabric.links[" + std::to_string(link) + "]." + field; };
    y.line(0, "fabric:");
    y.estimate(2, "fabric.directory_latency", "directory_latency: " + f.directory_latency, from);
    y.line(2, "stops:");
    y.line(4, "- {name: hub, per: " + hub_per + "}", "one router per " + hub_per + " (model structure)");
    y.line(2, "links:");
    y.line(4, "- from: hub");
    y.line(6, "to: llc");
    y.estimate(6, link_key("latency"), "latency: " + ns_text(a), fam + "'s LLC link");
    y.estimate(6, link_key("bandwidth"), "bandwidth: " + bandwidth_text(f.llc_link_bandwidth), fam + "'s LLC link");
    y.estimate(6, link_key("reverse_bandwidth"), "reverse_bandwidth: " + bandwidth_text(f.llc_link_reverse_bandwidth),
               fam + "'s LLC link");
    ++link;
    y.line(4, "- from: hub");
    y.line(6, "to: memory");
    y.estimate(6, link_key("latency"), "latency: " + ns_text(m),
               "fitted so an LLC reaches its node's memory in " + ns_text(f.local_memory_ps) + ", as on " + fam);
    y.line(6, "bandwidth: " + bandwidth_text(mem_bw), "= memory.bandwidth, so the channels are the limit");
    ++link;
    if (hubs_per_socket > 1) {
        const bool known = f.cross_node_llc_ps > 0;
        const double x = known ? std::max(f.cross_node_llc_ps - 2 * a, 100.0) : std::max(a, 100.0);
        y.line(4, "- from: hub");
        y.line(6, "to: hub");
        y.line(6, "pattern: all");
        y.line(6, "within: socket");
        y.estimate(6, link_key("latency"), "latency: " + ns_text(x),
                   known ? "fitted so LLC to LLC of another node in the socket is " + ns_text(f.cross_node_llc_ps) +
                               ", as on " + fam
                         : fam + " has one node per socket: one more LLC-link hop assumed");
        y.estimate(6, link_key("bandwidth"), "bandwidth: " + bandwidth_text(known ? f.cross_node_bandwidth : mem_bw),
                   known ? fam + "'s narrowest link between nodes of a socket" : "= memory.bandwidth (assumed)");
        ++link;
    }
    if (sockets > 1) {
        const bool known = f.cross_socket_llc_ps > 0;
        const double x = known ? std::max(f.cross_socket_llc_ps - 2 * a, 100.0) : 2 * f.local_memory_ps;
        y.line(4, "- from: hub");
        y.line(6, "to: hub");
        y.line(6, "pattern: all");
        y.estimate(6, link_key("latency"), "latency: " + ns_text(x),
                   known ? "fitted so LLC to LLC across sockets is " + ns_text(f.cross_socket_llc_ps) + ", as on " + fam
                         : fam + " has one socket: twice its local memory path assumed");
        y.estimate(6, link_key("bandwidth"), "bandwidth: " + bandwidth_text(known ? f.cross_socket_bandwidth : mem_bw),
                   known ? fam + "'s narrowest link between sockets" : "= memory.bandwidth (assumed)");
        ++link;
    }

    // Header, name, description, estimated list, then the body.
    std::ostringstream out;
    std::string cpu; // the model string with runs of blanks closed up ("CPU           E5345  @ 2.33GHz")
    for (char ch : inv.model_name)
        if (ch != ' ' || (!cpu.empty() && cpu.back() != ' ')) cpu += ch;
    if (cpu.empty()) cpu = "CPU model not given";
    std::string id = inv.family >= 0 ? " (" + (inv.vendor.empty() ? std::string("?") : inv.vendor) + " family " +
                                           std::to_string(inv.family) + " model " + std::to_string(inv.model) + ")"
                                     : "";
    std::vector<std::string> header = {
        "Imported by `warmsched import` from " + inv.source + ", read by " + reader + ".",
        "CPU: " + cpu + id + ".",
        std::string("Read from the input: the grouping levels, SMT, the CPU numbering, every cache's size and sharing") +
            " (ways and line size where given), the NUMA nodes" +
            (s.distances.empty() ? "" : " and their distance table") +
            (inv.max_frequency_hz >= 1e8 ? ", the max clock" : "") + ".",
        "No input gives latencies or bandwidths: they come from the nearest shipped platform, " + fam + " (" +
            f.choice.reason + "), each marked `# est:` and listed in estimated:. The interconnect is a generic hub per " +
            hub_per + ", fitted to " + fam + "'s paths (docs/platforms.md, \"Import your own machine\").",
    };
    if (!measured.empty())
        header.push_back("Measured on this machine by `warmsched calibrate`: every value commented `# measured:` "
                         "(the others stay estimates). The calibration: section at the end gives each figure's "
                         "median, min and max over the repeats, how it was measured, the kernel and the date.");
    auto comment = [&](const std::string& paragraph) { // wrapped at 110 columns
        std::istringstream words(paragraph);
        std::string line = "#";
        for (std::string w; words >> w;) {
            if (line.size() + 1 + w.size() > 110) {
                out << line << "\n";
                line = "#";
            }
            line += " " + w;
        }
        out << line << "\n";
    };
    for (const auto& p : header) comment(p);
    for (const auto& n : s.notes) comment("Note: " + n + ".");
    const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    });
    out << "name: " << (plain ? name : yaml_quoted(name)) << "\n";
    std::string shape_text = std::to_string(sockets) + " socket" + (sockets > 1 ? "s" : "") + ", " +
                             std::to_string(s.num_cores() / sockets) + " cores each, SMT" +
                             std::to_string(s.threads_per_core) + ", " + std::to_string(cpus) + " CPUs, " +
                             std::to_string(s.num_nodes) + " NUMA node" + (s.num_nodes > 1 ? "s" : "");
    std::string desc = "Imported: " + cpu + ": " + shape_text;
    out << "description: " << yaml_quoted(desc) << "\n";
    out << "estimated:\n";
    for (const auto& k : y.estimated()) out << "  - " << k << "\n";
    out << y.body() << appendix;
    return out.str();
}

} // namespace warmsched::platform::import
