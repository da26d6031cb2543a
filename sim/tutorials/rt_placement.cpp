// Tutorial 6, "rt-placement": where the RT class puts a waking RT task, with cpupri and without it.
// configs/tutorials/rt-placement.yaml: cyclictest's eight priority-80 threads beside eight priority-95
// rt-app threads (configs/tutorials/rt-load.json) on clovertown-e5335-2s, once with RT_CPUPRI on (v6.12:
// find_lowest_rq reads cpupri's per-priority masks) and once off (a linear scan that reads every allowed
// run queue's rt.highest_prio, as v2.6.25's find_lowest_cpus did). The RT class's counters say where each
// RT wakeup landed, how many tasks were pushed, and how many run queues placement read; the reads go
// through the caches of the model, so what a scan costs is its misses.
#include "sim/tutorials/tutorial.h"


#include <map>
#include <regex>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace {


struct variant {
    const char* step;
    const char* feature;
    const char* label;
    const char* short_label; // the figure's
};
const variant variants[] = {
    {"cpupri-on", "RT_CPUPRI=on", "cpupri (v6.12)", "cpupri"},
    {"cpupri-off", "RT_CPUPRI=off", "linear scan (v2.6.25)", "linear scan"},
};
const std::pair<const char*, const char*> landings[] = {
    {"sameCpu", "same CPU"}, {"smtSibling", "SMT sibling"}, {"sameLlc", "same LLC"},
    {"sameSocket", "same socket"}, {"otherSocket", "other socket"}};

struct thread_latency {
    unsigned thread = 0;
    double avg = 0, max = 0;
};
// cyclictest's "T: 0 (    3) P:80 I:200 C:    478 Min:      2 Act:    2 Avg:  230 Max:    1489" lines.
std::vector<thread_latency> cyclictest_threads(const std::string& report) {
    static const std::regex line(R"(^T:\s*(\d+) \(\s*\d+\) P:\s*\d+ I:\s*\d+ C:\s*\d+ Min:\s*\d+ Act:\s*\d+ Avg:\s*(\d+) Max:\s*(\d+).*$)");
    std::vector<thread_latency> out;
    std::istringstream in(report);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (l.size() < 200 && std::regex_match(l, m, line))
            out.push_back({static_cast<unsigned>(std::stoul(m[1].str())), std::stod(m[2].str()), std::stod(m[3].str())});
    }
    return out;
}

class rt_placement final : public tutorial {
public:
    std::string name() const override { return "rt-placement"; }
    std::string title() const override { return "RT placement"; }
    std::string teaches() const override {
        return "A waking RT task that cannot preempt its CPU goes to the lowest-priority CPU; cpupri finds it "
               "without reading every run queue. cyclictest beside a higher-priority RT load, cpupri on and off.";
    }
    std::vector<tutorial_step> steps(const tutorial_options& o) const override {
        std::vector<tutorial_step> s;
        for (const auto& v : variants)
            s.push_back({v.step,
                         {"run", tutorial_input("rt-placement.yaml"), "--feature", v.feature, "-p",
                          "workloads.1=rt-app " + tutorial_input("rt-load.json"), "-p",
                          o.quick ? "duration=0.1s" : "duration=0.2s"}});
        return s;
    }

    tutorial_outcome analyse(const tutorial_context& ctx, const tutorial_options&) const override {
        tutorial_outcome r;
        std::ostringstream md, land_dat, reads_dat, lat_dat;
        md << "| find_lowest_rq | RT wakeups | landed on: same CPU / SMT / same LLC / same socket / other socket | "
              "pushes (to another LLC) | push IPIs | run queues read | per RT wakeup |\n|---|---|---|---|---|---|---|\n";
        land_dat << "variant";
        for (const auto& [stat, label] : landings) land_dat << " \"" << label << "\"";
        land_dat << "\n";
        reads_dat << "# variant rq_reads_per_wakeup\n";
        std::map<std::string, double> reads, wakeups, pushes;
        std::map<std::string, std::vector<thread_latency>> lat;
        for (const auto& v : variants) {
            wakeups[v.step] = ctx.stat(v.step, "kernel.rt.wakeups");
            reads[v.step] = ctx.stat(v.step, "kernel.rt.rqReads");
            pushes[v.step] = ctx.stat(v.step, "kernel.rt.pushes");
            md << "| " << v.label << " | " << fixed(wakeups[v.step], 0) << " | ";
            land_dat << "\"" << v.short_label << "\"";
            std::string sep;
            for (const auto& [stat, label] : landings) {
                const double n = ctx.stat(v.step, std::string("kernel.rt.wokeOnto::") + stat);
                md << sep << fixed(n, 0);
                sep = " / ";
                land_dat << " " << n;
                r.figures_data[v.step]["woke_onto"][label] = n;
            }
            const double per = reads[v.step] / std::max(wakeups[v.step], 1.0);
            md << " | " << fixed(pushes[v.step], 0) << " (" << fixed(ctx.stat(v.step, "kernel.rt.pushesOtherLlc"), 0)
               << ") | " << fixed(ctx.stat(v.step, "kernel.rt.pushIpis"), 0) << " | " << fixed(reads[v.step], 0) << " | "
               << fixed(per, 2) << " |\n";
            land_dat << "\n";
            reads_dat << "\"" << v.short_label << "\" " << per << "\n";
            lat[v.step] = cyclictest_threads(ctx.step_file(v.step, "report.txt"));
            if (lat[v.step].empty()) analysis_error("runs/" + std::string(v.step) + "/report.txt: no cyclictest T: lines");
            r.figures_data[v.step]["rt_wakeups"] = wakeups[v.step];
            r.figures_data[v.step]["rq_reads"] = reads[v.step];
            r.figures_data[v.step]["pushes"] = pushes[v.step];
        }
        md << "\n## cyclictest per thread (us)\n\n| thread | cpupri Avg | cpupri Max | linear scan Avg | linear scan Max |\n"
              "|---|---|---|---|---|\n";
        lat_dat << "thread on_avg on_max off_avg off_max\n";
        for (std::size_t i = 0; i < lat["cpupri-on"].size() && i < lat["cpupri-off"].size(); ++i) {
            const auto& a = lat["cpupri-on"][i];
            const auto& b = lat["cpupri-off"][i];
            md << "| " << a.thread << " | " << a.avg << " | " << a.max << " | " << b.avg << " | " << b.max << " |\n";
            lat_dat << a.thread << " " << a.avg << " " << a.max << " " << b.avg << " " << b.max << "\n";
        }
        ctx.write_data("landed.dat", land_dat.str());
        ctx.write_data("rq_reads.dat", reads_dat.str());
        ctx.write_data("cyclictest.dat", lat_dat.str());
        r.report = "## cyclictest -p 80 -t 8 beside eight priority-95 RT threads on clovertown-e5335-2s\n\n" + md.str();
        const bool holds = pushes["cpupri-on"] > 0 && reads["cpupri-off"] > 10 * std::max(reads["cpupri-on"], 1.0);
        r.check = {"the higher-priority load makes the RT class push tasks between CPUs, and without cpupri it reads "
                   "many times more run queues to decide where",
                   "pushes " + fixed(pushes["cpupri-on"], 0) + "; run queues read " + fixed(reads["cpupri-on"], 0) +
                       " with cpupri vs " + fixed(reads["cpupri-off"], 0) + " with the linear scan (" +
                       fixed(reads["cpupri-on"] / std::max(wakeups["cpupri-on"], 1.0), 2) + " vs " +
                       fixed(reads["cpupri-off"] / std::max(wakeups["cpupri-off"], 1.0), 2) + " per RT wakeup)",
                   holds};
        r.look_at = {"rt_placement.png, left: where each RT wakeup landed, by distance from the CPU it woke on",
                     "middle: run queues read per RT wakeup: the linear scan reads every CPU's rt.highest_prio "
                     "line until it finds one without RT work; cpupri reads its masks",
                     "right: cyclictest's latency per thread: the priority-95 load, not the placement, sets it "
                     "here; on 8 CPUs a scan is cheap, on a large machine each read is a remote miss"};
        r.figures.push_back(
            {"rt_placement",
             "set multiplot layout 1,3 title 'cyclictest -p 80 -t 8 beside 8 priority-95 RT threads, "
             "clovertown-e5335-2s'\nset style data histograms\nset style fill solid 0.8 border -1\n"
             "set boxwidth 0.7\nset grid ytics\nset yrange [0:*]\nset xtics scale 0\n"
             "set style histogram rowstacked\nset title 'Where RT wakeups landed'\nset ylabel 'RT wakeups'\n"
             "set key outside right top vertical\nplot for [i=2:6] 'landed.dat' using i:xtic(1) title columnheader(i)\n"
             "set title 'Run queues read per RT wakeup'\nset ylabel 'reads'\nset xrange [-0.6:1.6]\n"
             "plot 'rq_reads.dat' using 0:2:xtic(1) with boxes notitle lc rgb '#4477aa'\nset xrange [*:*]\n"
             "set style data linespoints\nset title 'cyclictest latency per thread'\nset ylabel 'us'\n"
             "set xlabel 'thread'\nset key center right\n"
             "plot 'cyclictest.dat' using 1:2 lw 2 title 'Avg, cpupri', '' using 1:3 lw 2 title 'Max, cpupri', \\\n"
             "     '' using 1:4 lw 2 dt 2 title 'Avg, linear scan', '' using 1:5 lw 2 dt 2 title 'Max, linear scan'\n"
             "unset multiplot\n",
             1500, 600});
        return r;
    }

    std::vector<std::string> try_next() const override {
        return {"warmsched run configs/tutorials/rt-placement.yaml --feature RT_TOPOLOGY_PREF=off   # the first lowest CPU, not the nearest",
                "warmsched run configs/tutorials/rt-placement.yaml --feature RT_PUSH_IPI=off   # pull by reading the overloaded CPUs",
                "warmsched run configs/tutorials/rt-placement.yaml -p platform=zen3-5950x   # 32 CPUs for 16 RT threads: no overload"};
    }
};

} // namespace

const tutorial& rt_placement_tutorial() {
    static const rt_placement t;
    return t;
}

} // namespace warmsched::sim::tutorials
