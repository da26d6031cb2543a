// Guest vs model sched domains; see domain_check.h.
#include "twin/domain_check.h"

#include "platforms/fabric_graph.h"
#include "sim/file_text.h"
#include "platforms/topology.h"
#include "scheduler/topology/sched_domain_tree.h"
#include "scheduler/topology/sd_flags.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace warmsched::twin {
namespace {

std::string read_file(const std::string& path) {
    if (!std::filesystem::is_regular_file(path)) throw std::runtime_error("the guest wrote no " + path);
    return sim::file_text(path);
}

std::vector<unsigned> parse_list(const std::string& s) {
    std::vector<unsigned> v;
    std::istringstream in(s);
    std::string part;
    while (std::getline(in, part, ',')) {
        if (part.empty()) continue;
        const auto dash = part.find('-');
        const unsigned a = static_cast<unsigned>(std::stoul(part.substr(0, dash)));
        const unsigned b = dash == std::string::npos ? a : static_cast<unsigned>(std::stoul(part.substr(dash + 1)));
        for (unsigned c = a; c <= b; ++c) v.push_back(c);
    }
    return v;
}

std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    std::string w;
    while (in >> w) v.push_back(w);
    std::sort(v.begin(), v.end());
    return v;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& w : v) s += (s.empty() ? "" : " ") + w;
    return s;
}

std::string describe(const std::vector<domain_view>& ds) {
    std::string s;
    for (const auto& d : ds) s += (s.empty() ? "" : " ") + d.name + "{" + cpu_list(d.span) + "}";
    return s.empty() ? "(none)" : s;
}

} // namespace

topology_comparison compare_topology(const std::string& twin_dir, const platform::platform_params& p,
                                     const guest_machine& g, scheduler::kernel_version k) {
    topology_comparison c;
    const unsigned n = g.num_cpus();
    c.guest.assign(n, {});
    c.model.assign(n, {});

    // Names and flags: "cpu index name FLAGS..." lines of debugfs.
    std::istringstream dom(read_file(twin_dir + "/domains.txt"));
    std::string line;
    while (std::getline(dom, line)) {
        std::istringstream ls(line);
        unsigned cpu = 0, index = 0;
        std::string name;
        if (!(ls >> cpu >> index >> name) || cpu >= n) continue;
        std::string rest;
        std::getline(ls, rest);
        auto& v = c.guest[cpu];
        if (v.size() <= index) v.resize(index + 1);
        v[index].name = name;
        v[index].flags = words(rest);
    }
    // Spans: the last "CPUn attaching sched-domain(s):" block of the boot log for each CPU, whose lines are
    // " domain-K: span=LIST level=NAME".
    std::istringstream log(read_file(twin_dir + "/dmesg.txt"));
    long cpu = -1;
    std::vector<std::vector<std::vector<unsigned>>> spans(n);
    while (std::getline(log, line)) {
        if (const auto a = line.find("] CPU"); a != std::string::npos && line.find("attaching sched-domain") != std::string::npos) {
            cpu = std::strtol(line.c_str() + a + 5, nullptr, 10);
            if (cpu >= 0 && cpu < static_cast<long>(n)) spans[cpu].clear();
            continue;
        }
        if (line.find("attaching NULL sched-domain") != std::string::npos) {
            cpu = -1;
            continue;
        }
        const auto d = line.find(" domain-");
        const auto s = line.find(": span=");
        if (cpu < 0 || cpu >= static_cast<long>(n) || d == std::string::npos || s == std::string::npos) continue;
        const unsigned index = static_cast<unsigned>(std::strtoul(line.c_str() + d + 8, nullptr, 10));
        const auto e = line.find(' ', s + 7);
        if (spans[cpu].size() <= index) spans[cpu].resize(index + 1);
        spans[cpu][index] = parse_list(line.substr(s + 7, e - s - 7));
    }
    for (unsigned i = 0; i < n; ++i)
        for (std::size_t d = 0; d < c.guest[i].size() && d < spans[i].size(); ++d) c.guest[i][d].span = spans[i][d];

    // The model's domains of the same machine, in guest CPU numbers.
    const platform::topology t(p);
    const platform::fabric_graph fg(p, t, {});
    const scheduler::sched_domain_tree tree(t, platform::numa_distances(p, t, fg), k);
    for (unsigned gc = 0; gc < n; ++gc)
        for (const auto& d : tree.domains(g.model_cpu[gc])) {
            domain_view v;
            v.name = d.name;
            for (unsigned m : d.span().cpus()) v.span.push_back(g.guest_cpu[m]);
            std::sort(v.span.begin(), v.span.end());
            v.flags = words(scheduler::sd_flag_names(d.flags, k));
            c.model[gc].push_back(v);
        }

    for (unsigned gc = 0; gc < n; ++gc) {
        const auto& a = c.guest[gc];
        const auto& b = c.model[gc];
        const std::string where = "guest cpu" + std::to_string(gc) + " (model cpu" + std::to_string(g.model_cpu[gc]) + ")";
        if (a.size() != b.size()) {
            c.differences.push_back(where + ": guest " + describe(a) + ", model " + describe(b));
            continue;
        }
        for (std::size_t d = 0; d < a.size(); ++d) {
            if (a[d].name != b[d].name || a[d].span != b[d].span)
                c.differences.push_back(where + " domain" + std::to_string(d) + ": guest " + a[d].name + "{" +
                                        cpu_list(a[d].span) + "}, model " + b[d].name + "{" + cpu_list(b[d].span) + "}");
            if (a[d].flags != b[d].flags) {
                std::vector<std::string> only_guest, only_model;
                std::set_difference(a[d].flags.begin(), a[d].flags.end(), b[d].flags.begin(), b[d].flags.end(),
                                    std::back_inserter(only_guest));
                std::set_difference(b[d].flags.begin(), b[d].flags.end(), a[d].flags.begin(), a[d].flags.end(),
                                    std::back_inserter(only_model));
                c.differences.push_back(where + " " + a[d].name + " flags: guest only [" + join(only_guest) +
                                        "], model only [" + join(only_model) + "]");
            }
        }
    }

    // LLC sharing and NUMA nodes: "cpu N package P die D core C l2 LIST llc LIST node N" lines.
    std::istringstream cpus(read_file(twin_dir + "/cpus.txt"));
    while (std::getline(cpus, line)) {
        std::istringstream ls(line);
        std::string key, value;
        unsigned gc = 0;
        std::vector<unsigned> llc;
        long node = -1;
        ls >> key >> gc;
        while (ls >> key >> value) {
            if (key == "llc") llc = parse_list(value);
            if (key == "node") node = std::strtol(value.c_str(), nullptr, 10);
        }
        if (gc >= n) continue;
        const unsigned core = t.core_of_cpu(g.model_cpu[gc]);
        std::vector<unsigned> model_llc;
        for (unsigned oc : t.cores_of_group(t.cache_group(t.llc_level()), t.llc_of_core(core)))
            for (unsigned h = 0; h < t.threads_per_core(); ++h) model_llc.push_back(g.guest_cpu[t.cpu_of(oc, h)]);
        std::sort(model_llc.begin(), model_llc.end());
        if (llc != model_llc)
            c.differences.push_back("guest cpu" + std::to_string(gc) + " LLC: guest shares it with " + cpu_list(llc) +
                                    ", the model with " + cpu_list(model_llc));
        if (t.num_nodes() > 1 && node != static_cast<long>(t.node_of_core(core)))
            c.differences.push_back("guest cpu" + std::to_string(gc) + ": guest node " + std::to_string(node) +
                                    ", model node " + std::to_string(t.node_of_core(core)));
    }
    return c;
}

void print_topology_comparison(std::ostream& out, const topology_comparison& c) {
    out << "sched domains of guest cpu0, bottom-up (guest | model):\n";
    const std::size_t levels = std::max(c.guest.empty() ? 0 : c.guest[0].size(), c.model.empty() ? 0 : c.model[0].size());
    for (std::size_t d = 0; d < levels; ++d) {
        auto cell = [&](const std::vector<std::vector<domain_view>>& v) {
            if (v.empty() || d >= v[0].size()) return std::string("-");
            return v[0][d].name + " span=" + cpu_list(v[0][d].span) + " " + join(v[0][d].flags);
        };
        out << "  domain" << d << "  " << cell(c.guest) << "\n           " << cell(c.model) << "\n";
    }
    if (c.differences.empty()) {
        out << "sched domains, LLC sharing and NUMA nodes: guest and model identical on all " << c.guest.size()
            << " CPUs (names, spans, flags)\n";
        return;
    }
    out << c.differences.size() << " difference" << (c.differences.size() > 1 ? "s" : "") << " between guest and model:\n";
    for (const auto& d : c.differences) out << "  " << d << "\n";
}

} // namespace warmsched::twin
