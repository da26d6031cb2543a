// Tutorial 2, "migration-cost": what moving a warm task costs, by distance and by working-set size.
// `probe migrate` warms a task's working set on CPU 0, moves it to an SMT sibling, a CPU of the same LLC,
// of another LLC of the quadrant, of the socket, and of the other socket, and sweeps the set again; the
// extra time and where its lines came from are the model's misses. Swept over working-set sizes on
// genoa-9654-2s. Nothing here charges a migration anything.
#include "sim/tutorials/tutorial.h"

#include <cstdlib>
#include <map>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace {

const char* const platform = "genoa-9654-2s";
const std::vector<std::string> sizes_full{"64KiB", "256KiB", "1MiB", "4MiB", "16MiB"};
const std::vector<std::string> sizes_quick{"256KiB", "1MiB", "4MiB"};
const std::vector<std::string> relations{"smt", "same_llc", "same_quadrant", "same_socket", "cross_socket"};
const std::vector<std::string> relation_labels{"SMT sibling", "same LLC", "another LLC, same quadrant",
                                               "another LLC, same socket", "the other socket"};
// The sources of a refetched line, as the probe names them, and as the figure labels them.
const std::vector<std::pair<std::string, std::string>> sources{
    {"l2", "own L2"}, {"peer_cache", "a cache of the LLC"}, {"llc", "own L3"}, {"remote_llc", "another L3"},
    {"remote_socket", "the other socket's caches"}, {"local_memory", "DRAM"}, {"remote_memory", "remote DRAM"}};

std::string step_name(const std::string& ws) {
    std::string s = "migrate-";
    for (char c : ws) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

class migration_cost final : public tutorial {
public:
    std::string name() const override { return "migration-cost"; }
    std::string title() const override { return "What a migration costs by distance"; }
    std::string teaches() const override {
        return "A migrated task refetches its working set from wherever it now lives: nothing to an SMT sibling, "
               "the shared L3 within the LLC, another L3 or the other socket beyond. probe migrate on "
               "genoa-9654-2s, swept over working-set size x distance.";
    }
    std::vector<tutorial_step> steps(const tutorial_options& o) const override {
        std::vector<tutorial_step> s;
        for (const auto& ws : o.quick ? sizes_quick : sizes_full)
            s.push_back({step_name(ws), {"probe", "migrate", "--platform", platform, "--csv", "--ws", ws}});
        return s;
    }

    tutorial_outcome analyse(const tutorial_context& ctx, const tutorial_options& o) const override {
        tutorial_outcome r;
        const auto& sizes = o.quick ? sizes_quick : sizes_full;
        std::vector<std::string> columns{"from", "to", "relation", "warm_sweep_us", "moved_sweep_us", "extra_us"};
        for (const auto& [src, label] : sources) columns.push_back(src);
        std::map<std::string, std::map<std::string, std::vector<std::string>>> by; // ws -> relation -> row
        for (const auto& ws : sizes)
            for (auto& row : ctx.step_csv(step_name(ws), columns)) by[ws][row[2]] = row;

        std::ostringstream md, dat, src_dat;
        md << "## Refill time after the move (us: the moved sweep less the warm one)\n\n| working set |";
        for (const auto& rel : relations) md << " " << rel << " |";
        md << "\n|---|";
        for (std::size_t i = 0; i < relations.size(); ++i) md << "---|";
        md << "\n";
        dat << "# ws_KiB";
        for (const auto& rel : relations) dat << " " << rel;
        dat << "   (extra us after the move; below 0.01 drawn at 0.01: no refill)\n";
        bool holds = true;
        std::string numbers;
        for (const auto& ws : sizes) {
            const auto& rows = by[ws];
            double kib = 0;
            md << "| " << ws << " |";
            std::map<std::string, double> extra;
            for (const auto& rel : relations) {
                const auto it = rows.find(rel);
                if (it == rows.end()) {
                    md << " - |";
                    continue;
                }
                kib = std::strtod(ws.c_str(), nullptr) * (ws.find("MiB") != std::string::npos ? 1024 : 1);
                extra[rel] = std::strtod(it->second[5].c_str(), nullptr);
                md << " " << fixed(extra[rel], 2) << " |";
                r.figures_data["extra_us"][ws][rel] = extra[rel];
            }
            md << "\n";
            dat << kib;
            for (const auto& rel : relations) dat << " " << (extra.count(rel) ? std::max(extra[rel], 0.01) : 0.01);
            dat << "\n";
            // Check: farther is dearer, at every size.
            const bool ok = extra.size() == relations.size() && extra["smt"] < extra["same_llc"] &&
                            extra["same_llc"] < extra["same_quadrant"] && extra["same_llc"] < extra["same_socket"] &&
                            extra["same_quadrant"] < extra["cross_socket"] && extra["same_socket"] < extra["cross_socket"];
            holds = holds && ok;
            numbers += (numbers.empty() ? "" : "; ") + ws + ": " + fixed(extra["smt"], 2) + " < " +
                       fixed(extra["same_llc"], 2) + " < " + fixed(extra["same_quadrant"], 1) + "/" +
                       fixed(extra["same_socket"], 1) + " < " + fixed(extra["cross_socket"], 1) + " us";
        }
        ctx.write_data("extra_us.dat", dat.str());

        // Where the lines came from, at the largest size that fits the L3 (the figure's second panel).
        const std::string ws = o.quick ? "4MiB" : "4MiB";
        md << "\n## Where the moved task's lines came from (" << ws << " working set)\n\n| relation |";
        src_dat << "relation";
        for (const auto& [src, label] : sources) {
            md << " " << label << " |";
            src_dat << " \"" << label << "\"";
        }
        md << "\n|---|";
        src_dat << "\n";
        for (std::size_t i = 0; i < sources.size(); ++i) md << "---|";
        md << "\n";
        for (std::size_t k = 0; k < relations.size(); ++k) {
            const std::string& rel = relations[k];
            const auto it = by[ws].find(rel);
            if (it == by[ws].end()) continue;
            md << "| " << rel << " |";
            src_dat << "\"" << relation_labels[k] << "\"";
            for (std::size_t i = 0; i < sources.size(); ++i) {
                md << " " << it->second[6 + i] << " |";
                src_dat << " " << it->second[6 + i];
                r.figures_data["lines_from"][rel][sources[i].second] = std::strtod(it->second[6 + i].c_str(), nullptr);
            }
            md << "\n";
            src_dat << "\n";
        }
        ctx.write_data("sources.dat", src_dat.str());
        r.report = md.str();
        r.check = {"the refill grows with distance at every working-set size: SMT sibling < same LLC < another "
                   "LLC (same quadrant / same socket) < the other socket",
                   numbers, holds};
        r.look_at = {"migration_cost.png, left: the refill time against the working set, one line per distance; "
                     "the SMT sibling shares L1 and L2, so nothing is refetched",
                     "right: where the lines came from; within the LLC the L3 has them, beyond it they come from "
                     "another L3 (across the I/O die) or the other socket",
                     "the gap between the same LLC and any other LLC is the reason the scheduler prefers to keep "
                     "wakeups inside an LLC (tutorial wake-affine)"};
        std::string plot = "set multiplot layout 1,2 title 'probe migrate on genoa-9654-2s: a warm task moved from "
                           "CPU 0'\nset logscale xy\nset xlabel 'working set (KiB)'\nset ylabel 'refill us (moved "
                           "sweep - warm sweep)'\nset grid\nset key top left\nset title 'Refill time by distance'\n"
                           "plot ";
        for (std::size_t i = 0; i < relations.size(); ++i)
            plot += std::string(i ? ", \\\n     " : "") + "'extra_us.dat' using 1:" + std::to_string(i + 2) +
                    " with linespoints lw 2 title '" + relation_labels[i] + "'";
        plot += "\nunset logscale\nset logscale y\nset style data histograms\nset style histogram rowstacked\n"
                "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset xlabel 'moved to'\nset ylabel 'lines "
                "refetched'\nset key outside right top\nset xtics rotate by -20\nset title 'Where the " + ws + " set came from'\n"
                "unset logscale y\nplot for [i=2:" + std::to_string(sources.size() + 1) +
                "] 'sources.dat' using i:xtic(1) title columnheader(i)\nunset multiplot\n";
        r.figures.push_back({"migration_cost", plot, 1400, 600});
        return r;
    }

    std::vector<std::string> try_next() const override {
        return {"warmsched probe migrate --platform zen3-5950x --ws 16MiB --csv        # two CCDs, one socket",
                "warmsched probe migrate --platform genoa-9654-2s --ws 4MiB --write-fraction 1 --csv   # dirty lines",
                "warmsched probe migrate --platform emr-8580-2s --ws 1MiB --csv        # a mesh LLC: one per socket"};
    }
};

} // namespace

const tutorial& migration_cost_tutorial() {
    static const migration_cost t;
    return t;
}

} // namespace warmsched::sim::tutorials
