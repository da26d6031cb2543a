// Tutorial 3, "stacking": two communicating tasks stacked on one CPU, on SMT siblings, on two cores of one
// LLC and on two LLCs. The pair is netperf's TCP_RR over the modelled loopback (netperf and netserver
// pinned with -T, 4 KiB requests and replies), on zen3-5950x; its transactions per second and where its
// memory accesses were served come out of the run. On one CPU the pair pays no IPI and no idle exit, but
// shares the CPU; on SMT siblings it shares L1 and L2 and the core's pipeline; within an LLC the
// connection's lines move through the shared L3; across LLCs they move cache to cache across the I/O die.
#include "sim/tutorials/tutorial.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace {

struct placement {
    const char* step;
    const char* cpus; // netperf -T LOCAL,REMOTE
    const char* label;
};
const placement placements[] = {
    {"same-cpu", "0,0", "same CPU"},
    {"smt", "0,16", "SMT siblings"},
    {"same-llc", "0,1", "same LLC"},
    {"other-llc", "0,8", "different LLCs"},
};
// Where an access was served, as the per-CPU statistics name it, and as the figure labels it.
const std::pair<const char*, const char*> levels[] = {
    {"l2", "L2"}, {"peer_cache", "a core of the LLC"}, {"llc", "own L3"}, {"remote_llc", "another L3"},
    {"local_memory", "DRAM"}};

class stacking final : public tutorial {
public:
    std::string name() const override { return "stacking"; }
    std::string title() const override { return "Stacking vs spreading"; }
    std::string teaches() const override {
        return "Two tasks that talk run fastest close together: netperf TCP_RR on one CPU, SMT siblings, one LLC "
               "and two LLCs of zen3-5950x, with the transactions and where their lines came from.";
    }
    std::vector<tutorial_step> steps(const tutorial_options& o) const override {
        std::vector<tutorial_step> s;
        for (const auto& p : placements)
            s.push_back({p.step,
                         {"run", "--platform", "zen3-5950x", "--", "netperf", "-t", "TCP_RR", "-l",
                          o.quick ? "0.02" : "0.2", "-T", p.cpus, "--", "-r", "4096,4096"}});
        return s;
    }

    tutorial_outcome analyse(const tutorial_context& ctx, const tutorial_options&) const override {
        tutorial_outcome r;
        std::ostringstream md, tps_dat, src_dat;
        md << "| placement | netperf -T | transactions/s | accesses per transaction served by:";
        for (const auto& [stat, label] : levels) md << " " << label << " |";
        md << "\n|---|---|---|";
        for (std::size_t i = 0; i < std::size(levels); ++i) md << "---|";
        md << "\n";
        tps_dat << "# placement trans_per_s\n";
        src_dat << "placement";
        for (const auto& [stat, label] : levels) src_dat << " \"" << label << "\"";
        src_dat << "\n";
        std::map<std::string, double> tps, other_l3;
        for (const auto& p : placements) {
            const double t = ctx.metric(p.step, "netperf Trans/s");
            const double transactions = t * ctx.stat(p.step, "simSeconds");
            tps[p.step] = t;
            md << "| " << p.label << " | " << p.cpus << " | " << fixed(t, 0) << " |";
            tps_dat << "\"" << p.label << "\" " << fixed(t, 2) << "\n";
            src_dat << "\"" << p.label << "\"";
            for (const auto& [stat, label] : levels) {
                const double per = ctx.stat_sum(p.step, std::string(R"(system\.cpu\d+\.accesses::)") + stat) /
                                   std::max(transactions, 1.0);
                md << " " << fixed(per, 1) << " |";
                src_dat << " " << fixed(per, 3);
                r.figures_data[p.step]["accesses_per_transaction"][label] = per;
                if (std::string(stat) == "remote_llc") other_l3[p.step] = per;
            }
            r.figures_data[p.step]["transactions_per_s"] = t;
            md << "\n";
            src_dat << "\n";
        }
        ctx.write_data("transactions.dat", tps_dat.str());
        ctx.write_data("served_by.dat", src_dat.str());
        r.report = "## netperf TCP_RR, 4 KiB requests and replies, by placement (zen3-5950x)\n\n" + md.str();
        const bool holds = tps["same-cpu"] > tps["smt"] && tps["same-cpu"] > tps["same-llc"] &&
                           tps["smt"] > tps["other-llc"] && tps["same-llc"] > tps["other-llc"] &&
                           other_l3["other-llc"] > 10 * std::max({other_l3["same-cpu"], other_l3["smt"],
                                                                   other_l3["same-llc"], 0.01});
        r.check = {"the pair is fastest stacked and slowest across LLCs, where its lines come from another L3",
                   "trans/s same CPU " + fixed(tps["same-cpu"], 0) + ", SMT " + fixed(tps["smt"], 0) + ", same LLC " +
                       fixed(tps["same-llc"], 0) + ", different LLCs " + fixed(tps["other-llc"], 0) +
                       "; accesses served by another L3 per transaction: " + fixed(other_l3["other-llc"], 1) +
                       " across LLCs vs " + fixed(other_l3["same-llc"], 1) + " within one",
                   holds};
        r.look_at = {"stacking.png, left: transactions per second; on one CPU the pair pays no wakeup IPI and no "
                     "idle exit, so it wins although the two share the CPU",
                     "right: beyond L1, where each transaction's accesses were served; SMT siblings share L2, two "
                     "cores of an LLC meet in the L3, and two LLCs pass the lines cache to cache",
                     "runs/*/report.txt: the wakeups, IPIs and idle exits of each placement"};
        std::string plot =
            "set multiplot layout 1,2 title 'netperf TCP\\_RR (4 KiB each way) on zen3-5950x, netperf and netserver "
            "pinned with -T'\nset style data histograms\nset style fill solid 0.8 border -1\nset boxwidth 0.7\n"
            "set grid ytics\nset title 'Transactions per second'\nset ylabel 'transactions/s'\nset yrange [0:*]\n"
            "set xrange [-0.6:3.6]\nplot 'transactions.dat' using 0:2:xtic(1) with boxes notitle lc rgb '#4477aa'\n"
            "set xrange [*:*]\n"
            "set style histogram rowstacked\nset title 'Accesses per transaction served beyond L1'\n"
            "set ylabel 'accesses per transaction'\nset key outside right top\n"
            "plot for [i=2:" + std::to_string(std::size(levels) + 1) +
            "] 'served_by.dat' using i:xtic(1) title columnheader(i)\nunset multiplot\n";
        r.figures.push_back({"stacking", plot, 1400, 600});
        return r;
    }

    std::vector<std::string> try_next() const override {
        return {"warmsched run --platform genoa-9654-2s -- netperf -t TCP_RR -l 0.01 -T 0,96 -- -r 4096,4096   # the other socket",
                "warmsched run --platform zen3-5950x -- netperf -t TCP_RR -l 0.05 -T 0,8 -- -r 65536,65536   # bigger messages",
                "warmsched run --platform zen3-5950x -- netperf -t TCP_RR -l 0.05 -- -r 4096,4096   # unpinned: where does the scheduler put them?"};
    }
};

} // namespace

const tutorial& stacking_tutorial() {
    static const stacking t;
    return t;
}

} // namespace warmsched::sim::tutorials
