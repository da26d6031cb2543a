// Tutorial 1, "line-origin": where a cache line comes from, and what that costs. The load-latency
// staircase (lat_mem_rd's pointer chase: `probe latency`) of a Ryzen 9 5950X and of a 2-socket EPYC Genoa,
// and their core-to-core matrices (`probe c2c`: a line bounced between two CPUs) drawn as heat maps. The
// steps are the probes; nothing here computes a latency.
#include "sim/tutorials/tutorial.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace {

struct platform_case {
    const char* platform;
    const char* label;
    const char* cpus;       // c2c: the CPUs of the heat map
    const char* cpus_quick; // --quick
};
const platform_case cases[] = {
    {"zen3-5950x", "zen3", "0-31", "0-31"},
    {"genoa-9654-2s", "genoa", "0-191", "0-23,96-119"},
};

const char* const level_sources[] = {"l1", "l2", "llc", "local_memory"};
const char* const level_names[] = {"L1", "L2", "L3", "DRAM"};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

class line_origin final : public tutorial {
public:
    std::string name() const override { return "line-origin"; }
    std::string title() const override { return "Where a line comes from"; }
    std::string teaches() const override {
        return "A load costs what the level that holds the line costs: L1, L2, the LLC, another LLC, the other "
               "socket, DRAM. The staircase and the core-to-core heat maps of zen3-5950x and genoa-9654-2s.";
    }
    std::vector<tutorial_step> steps(const tutorial_options& o) const override {
        std::vector<tutorial_step> s;
        for (const auto& c : cases) {
            s.push_back({std::string("latency-") + c.label,
                         {"probe", "latency", "--platform", c.platform, "--csv", "--min-footprint",
                          o.quick ? "16KiB" : "4KiB", "--max-footprint", o.quick ? "64MiB" : "256MiB"}});
            std::vector<std::string> c2c{"probe", "c2c", "--platform", c.platform, "--csv", "--cpus",
                                         o.quick ? c.cpus_quick : c.cpus};
            if (o.quick) c2c.insert(c2c.end(), {"--round-trips", "20"});
            s.push_back({std::string("c2c-") + c.label, c2c});
        }
        return s;
    }

    tutorial_outcome analyse(const tutorial_context& ctx, const tutorial_options&) const override {
        tutorial_outcome r;
        std::ostringstream md;
        bool holds = true;
        std::string numbers;
        md << "## The staircase (ns per dependent load, by footprint)\n\n| footprint | zen3-5950x | genoa-9654-2s |\n"
              "|---|---|---|\n";
        std::map<std::string, std::map<std::string, std::string>> table; // footprint -> platform -> ns
        std::vector<std::string> footprints;
        for (const auto& c : cases) {
            const auto rows = ctx.step_csv(std::string("latency-") + c.label,
                                           {"footprint_bytes", "ns_per_load", "loads", "l1", "l2", "llc",
                                            "local_memory"});
            std::ostringstream dat;
            dat << "# footprint_KiB ns_per_load (probe latency --platform " << c.platform << ")\n";
            std::map<std::string, std::vector<double>> by_level; // dominant source -> ns
            for (const auto& row : rows) {
                const double kib = std::strtod(row[0].c_str(), nullptr) / 1024;
                const double ns = std::strtod(row[1].c_str(), nullptr);
                dat << kib << " " << ns << "\n";
                if (!table.count(row[0])) footprints.push_back(row[0]);
                table[row[0]][c.label] = row[1];
                const double loads = std::strtod(row[2].c_str(), nullptr);
                for (int l = 0; l < 4; ++l)
                    if (std::strtod(row[3 + l].c_str(), nullptr) > 0.9 * loads) by_level[level_sources[l]].push_back(ns);
            }
            ctx.write_data(std::string("latency-") + c.label + ".dat", dat.str());
            // Check: each level slower than the one above it.
            std::string levels;
            double prev = 0;
            nlohmann::json lj;
            for (int l = 0; l < 4; ++l) {
                if (!by_level.count(level_sources[l])) {
                    holds = false;
                    levels += std::string(levels.empty() ? "" : ", ") + level_names[l] + " not reached";
                    continue;
                }
                const double ns = median(by_level[level_sources[l]]);
                lj[level_names[l]] = ns;
                if (ns <= prev) holds = false;
                prev = ns;
                levels += std::string(levels.empty() ? "" : " < ") + level_names[l] + " " + fixed(ns, 1);
            }
            r.figures_data[c.label]["load_ns_by_level"] = lj;
            numbers += std::string(numbers.empty() ? "" : "; ") + c.platform + ": " + levels + " ns";
        }
        for (const auto& f : footprints) {
            const double b = std::strtod(f.c_str(), nullptr);
            md << "| " << (b >= 1 << 20 ? fixed(b / (1 << 20), 0) + " MiB" : fixed(b / 1024, 0) + " KiB") << " | "
               << (table[f].count("zen3") ? table[f]["zen3"] : "") << " | "
               << (table[f].count("genoa") ? table[f]["genoa"] : "") << " |\n";
        }

        md << "\n## Core to core (one-way ns of a line bounced between two CPUs, median by relation)\n\n"
              "| platform | relation | pairs | median ns | min | max |\n|---|---|---|---|---|---|\n";
        for (const auto& c : cases) {
            const auto rows = ctx.step_csv(std::string("c2c-") + c.label, {"cpu_a", "cpu_b", "relation", "one_way_ns"});
            std::vector<unsigned> cpus;
            std::map<std::pair<unsigned, unsigned>, double> ns;
            std::map<std::string, std::vector<double>> by_relation;
            for (const auto& row : rows) {
                const unsigned a = static_cast<unsigned>(std::strtoul(row[0].c_str(), nullptr, 10));
                const unsigned b = static_cast<unsigned>(std::strtoul(row[1].c_str(), nullptr, 10));
                const double v = std::strtod(row[3].c_str(), nullptr);
                ns[{a, b}] = ns[{b, a}] = v;
                cpus.push_back(a);
                cpus.push_back(b);
                by_relation[row[2]].push_back(v);
            }
            std::sort(cpus.begin(), cpus.end());
            cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
            // The matrix, rows and columns in CPU order (the heat map's axes are indices into this list).
            std::ostringstream m;
            m << "# one-way ns, CPU x CPU; rows and columns: CPUs";
            for (const unsigned cpu : cpus) m << " " << cpu;
            m << "\n";
            for (const unsigned a : cpus) {
                for (std::size_t j = 0; j < cpus.size(); ++j) {
                    const auto it = ns.find({a, cpus[j]});
                    m << (j ? " " : "") << (it == ns.end() ? std::string("NaN") : fixed(it->second, 3));
                }
                m << "\n";
            }
            ctx.write_data(std::string("c2c-") + c.label + ".dat", m.str());
            std::vector<std::pair<double, std::string>> medians;
            for (auto& [rel, v] : by_relation) {
                const double med = median(v);
                medians.emplace_back(med, rel);
                md << "| " << c.platform << " | " << rel << " | " << v.size() << " | " << fixed(med, 1) << " | "
                   << fixed(*std::min_element(v.begin(), v.end()), 1) << " | "
                   << fixed(*std::max_element(v.begin(), v.end()), 1) << " |\n";
                r.figures_data[c.label]["c2c_median_ns"][rel] = med;
            }
            std::sort(medians.begin(), medians.end());
            // Check: the SMT sibling is nearest (where the set has siblings), then the same LLC; every other
            // relation is farther.
            std::string order;
            for (const auto& [med, rel] : medians) order += (order.empty() ? "" : " < ") + rel + " " + fixed(med, 1);
            const std::size_t llc_rank = by_relation.count("smt") ? 1 : 0;
            if (medians.size() < llc_rank + 2 || (llc_rank && medians[0].second != "smt") ||
                medians[llc_rank].second != "same_llc")
                holds = false;
            numbers += std::string("; ") + c.platform + " c2c: " + order + " ns";
        }
        r.report = md.str();
        r.check = {"every step away from the core costs more: L1 < L2 < L3 < DRAM, and SMT sibling < same LLC < "
                   "anything farther",
                   numbers, holds};
        r.look_at = {
            "latency.png: the plateaus are the cache levels; the edges sit at each level's size (32 KiB L1d, "
            "512 KiB / 1 MiB L2, 32 MiB L3 per CCD); the last plateau is DRAM",
            "c2c.png: the blocks along the diagonal are the LLCs (CCDs); genoa's off-diagonal quadrants are the "
            "other socket",
            "report.md's c2c table: the median one-way latency of each relation"};

        r.figures.push_back(
            {"latency",
             "set title 'Load latency vs footprint (probe latency: dependent loads, one CPU)'\n"
             "set logscale x 2\nset logscale y\nset xlabel 'footprint (KiB)'\nset ylabel 'ns per load'\n"
             "set grid\nset key top left\n"
             "plot 'latency-zen3.dat' using 1:2 with linespoints lw 2 title 'zen3-5950x', \\\n"
             "     'latency-genoa.dat' using 1:2 with linespoints lw 2 title 'genoa-9654-2s'\n",
             1000, 600});
        r.figures.push_back(
            {"c2c",
             "set multiplot layout 1,2 title 'Core-to-core latency (probe c2c: one-way ns of a line bounced between "
             "two CPUs)'\nset palette rgbformulae 33,13,10\nset cblabel 'one-way ns'\nset size ratio -1\n"
             "set xlabel 'CPU (index in the measured set)'\nset ylabel 'CPU (index in the measured set)'\n"
             "set yrange [*:*] reverse\nset autoscale fix\nset cbrange [0:*]\n"
             "set title 'zen3-5950x (CPUs 0-31)'\nplot 'c2c-zen3.dat' matrix with image notitle\n"
             "set title 'genoa-9654-2s (one CPU per core: no SMT pairs)'\nplot 'c2c-genoa.dat' matrix with image notitle\n"
             "unset multiplot\n",
             1400, 650});
        return r;
    }

    std::vector<std::string> try_next() const override {
        return {"warmsched probe latency --platform emr-8580-2s --csv        # Intel: a larger L2, a mesh LLC",
                "warmsched probe c2c --platform genoa-9654-2s-nps4 --cpus 0-95 --csv   # NPS4: the quadrants as NUMA nodes",
                "warmsched probe latency --platform zen3-5950x -p platform.memory.latency=60ns   # a faster DRAM"};
    }
};

} // namespace

const tutorial& line_origin_tutorial() {
    static const line_origin t;
    return t;
}

} // namespace warmsched::sim::tutorials
