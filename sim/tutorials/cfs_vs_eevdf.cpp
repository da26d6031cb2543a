// Tutorial 5, "cfs-vs-eevdf": the latency of the fair class under CFS (Linux v5.15) and EEVDF (v6.12),
// and what a custom slice does. Two experiments on haswell-i7-4790 (4 cores, 8 CPUs):
//   schbench -m 2 -t 6 (12 workers on 8 CPUs, overloaded): its wakeup and request latency percentiles
//     under each kernel, as schbench prints them;
//   rt-app configs/tutorials/slice-probe.json: a 0.2 ms task every 5 ms on a CPU with three hogs, under
//     CFS, EEVDF, and EEVDF with a 0.1 ms custom slice (rt-app's dl-runtime on a SCHED_OTHER thread, v6.12's
//     sched_attr.sched_runtime); its wakeup latency per period (rt-app's wu_lat) from its log.
// What it shows: CFS places a waking sleeper up to half of sched_latency behind min_vruntime
// (GENTLE_FAIR_SLEEPERS), so the short task preempts a hog at once; EEVDF keeps the task's lag instead
// (PLACE_LAG: no sleeper credit), so it waits until a hog's slice ends (RUN_TO_PARITY) -- the regression
// that custom slices answer. Its deadline is its eligible time plus its slice, so a 0.1 ms slice is
// picked sooner and, with PREEMPT_SHORT, preempts the hog inside the hog's slice.
#include "sim/tutorials/tutorial.h"

#include "sim/plots/run_plots.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace {

const char* const platform = "haswell-i7-4790";


struct probe_variant {
    const char* step;
    const char* kernel;
    const char* file;
    const char* label;
};
const probe_variant probes[] = {
    {"probe-cfs", "cfs", "slice-probe.json", "CFS"},
    {"probe-eevdf", "eevdf", "slice-probe.json", "EEVDF"},
    {"probe-eevdf-slice", "eevdf", "slice-probe-custom-slice.json", "EEVDF, 0.1 ms custom slice"},
};

// The probe thread's wu_lat column (us), one value per period, from its rt-app log.
std::vector<double> wakeup_latencies(const tutorial_context& ctx, const std::string& step) {
    std::istringstream in(ctx.step_file(step, "rt-app-probe-3.log"));
    std::vector<double> v;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream f(line);
        std::vector<double> cols;
        for (double x; f >> x;) cols.push_back(x);
        if (cols.size() >= 11) v.push_back(cols[10]);
    }
    return v;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p / 100 * static_cast<double>(v.size())))];
}

class cfs_vs_eevdf final : public tutorial {
public:
    std::string name() const override { return "cfs-vs-eevdf"; }
    std::string title() const override { return "CFS vs EEVDF latency"; }
    std::string teaches() const override {
        return "EEVDF picks by virtual deadline, so latency follows the slice: schbench's percentiles under CFS "
               "and EEVDF, and a short task beside CPU hogs with and without a custom slice.";
    }
    std::vector<tutorial_step> steps(const tutorial_options& o) const override {
        std::vector<tutorial_step> s;
        for (const char* k : {"cfs", "eevdf"})
            s.push_back({std::string("schbench-") + k,
                         {"run", "--platform", platform, "--kernel", k, "--", "schbench", "-m", "2", "-t", "6", "-n",
                          "1", "-r", o.quick ? "0.05" : "0.3"}});
        for (const auto& p : probes)
            s.push_back({p.step,
                         {"run", "--platform", platform, "--kernel", p.kernel, "-p",
                          o.quick ? "duration=0.3s" : "duration=2s", "--", "rt-app", tutorial_input(p.file)}});
        return s;
    }

    tutorial_outcome analyse(const tutorial_context& ctx, const tutorial_options&) const override {
        tutorial_outcome r;
        std::ostringstream md;
        md << "## schbench -m 2 -t 6 -n 1 on " << platform << " (12 workers, 8 CPUs)\n\n"
           << "| latency (us) | kernel | p50 | p90 | p99 | p99.9 |\n|---|---|---|---|---|---|\n";
        std::map<std::string, std::map<std::string, std::map<double, double>>> sb; // kernel -> series -> pct -> us
        for (const char* k : {"cfs", "eevdf"}) {
            const std::string step = std::string("schbench-") + k;
            const auto series = latency_percentiles(ctx.step_file(step, "report.txt"));
            std::ostringstream dat;
            dat << "# percentile wakeup_us request_us (schbench, " << k << ")\n";
            for (const auto& s : series)
                for (const auto& [pct, us] : s.points) sb[k][s.title][pct] = us;
            for (const auto& [pct, us] : sb[k]["Wakeup Latencies (usec)"])
                dat << pct << " " << us << " " << sb[k]["Request Latencies (usec)"][pct] << "\n";
            ctx.write_data("schbench-" + std::string(k) + ".dat", dat.str());
            for (const char* title : {"Wakeup Latencies (usec)", "Request Latencies (usec)"}) {
                auto& p = sb[k][title];
                if (p.empty()) analysis_error("runs/" + step + "/report.txt: schbench printed no " + title);
                md << "| " << std::string(title).substr(0, std::string(title).find(' ')) << " | " << k << " | "
                   << p[50] << " | " << p[90] << " | " << p[99] << " | " << p[99.9] << " |\n";
                r.figures_data["schbench"][k][title] = {{"p50", p[50]}, {"p90", p[90]}, {"p99", p[99]}, {"p99.9", p[99.9]}};
            }
        }

        md << "\n## A 0.2 ms task every 5 ms beside three hogs on one CPU (rt-app configs/tutorials/slice-probe.json)\n\n"
           << "| kernel | periods | wakeup latency mean us | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|---|\n";
        std::map<std::string, double> mean, p99;
        for (const auto& p : probes) {
            const auto v = wakeup_latencies(ctx, p.step);
            if (v.empty()) analysis_error("runs/" + std::string(p.step) + ": the probe thread logged no periods");
            double sum = 0;
            for (double x : v) sum += x;
            mean[p.step] = sum / static_cast<double>(v.size());
            p99[p.step] = percentile(v, 99);
            md << "| " << p.label << " | " << v.size() << " | " << fixed(mean[p.step], 1) << " | " << percentile(v, 50)
               << " | " << percentile(v, 90) << " | " << p99[p.step] << " | " << *std::max_element(v.begin(), v.end())
               << " |\n";
            std::vector<double> sorted = v;
            std::sort(sorted.begin(), sorted.end());
            std::ostringstream cdf;
            cdf << "# wu_lat_us fraction_of_periods (" << p.label << ")\n";
            for (std::size_t i = 0; i < sorted.size(); ++i)
                cdf << std::max(sorted[i], 1.0) << " " << static_cast<double>(i + 1) / static_cast<double>(sorted.size())
                    << "\n";
            ctx.write_data(std::string(p.step) + ".dat", cdf.str());
            r.figures_data["slice_probe"][p.step] = {{"periods", v.size()}, {"mean_us", mean[p.step]}, {"p99_us", p99[p.step]}};
        }
        r.report = md.str();
        const double cfs99 = sb["cfs"]["Wakeup Latencies (usec)"][99], eevdf99 = sb["eevdf"]["Wakeup Latencies (usec)"][99];
        const bool holds = mean["probe-eevdf-slice"] < 0.5 * mean["probe-eevdf"] &&
                           p99["probe-eevdf-slice"] < p99["probe-eevdf"] && mean["probe-cfs"] < mean["probe-eevdf"];
        r.check = {"beside the hogs, the short task waits longer under EEVDF than under CFS (no sleeper credit), and "
                   "a custom slice shortens its wait",
                   "mean wakeup latency " + fixed(mean["probe-eevdf"], 1) + " us (EEVDF) -> " +
                       fixed(mean["probe-eevdf-slice"], 1) + " us (0.1 ms slice), p99 " + fixed(p99["probe-eevdf"], 0) +
                       " -> " + fixed(p99["probe-eevdf-slice"], 0) + " us; CFS " + fixed(mean["probe-cfs"], 1) +
                       " us; schbench p99 wakeup latency CFS " + fixed(cfs99, 0) + " us, EEVDF " + fixed(eevdf99, 0) + " us",
                   holds};
        r.look_at = {"cfs_vs_eevdf.png, left: schbench's percentiles; the tail is where the two kernels differ",
                     "right: the short task's wakeup latency per period. CFS gives a waking sleeper credit "
                     "(GENTLE_FAIR_SLEEPERS), so it preempts a hog at once; EEVDF keeps its lag, so it waits for "
                     "the hog's slice to end; with a 0.1 ms slice its virtual deadline comes first and it "
                     "preempts (PREEMPT_SHORT)",
                     "runs/probe-*/rt-app-probe-3.log: rt-app's own log, one line per period (wu_lat is the last "
                     "column)"};
        r.figures.push_back(
            {"cfs_vs_eevdf",
             "set multiplot layout 1,2 title 'CFS (v5.15) vs EEVDF (v6.12) on haswell-i7-4790'\nset grid\n"
             "set logscale y\nset title 'schbench -m 2 -t 6 -n 1: latency percentiles'\nset xlabel 'percentile'\n"
             "set ylabel 'us'\nset key top left\nset xrange [45:100]\n"
             "plot 'schbench-cfs.dat' using 1:2 with linespoints lw 2 title 'wakeup, CFS', \\\n"
             "     'schbench-eevdf.dat' using 1:2 with linespoints lw 2 title 'wakeup, EEVDF', \\\n"
             "     'schbench-cfs.dat' using 1:3 with linespoints lw 2 dt 2 title 'request, CFS', \\\n"
             "     'schbench-eevdf.dat' using 1:3 with linespoints lw 2 dt 2 title 'request, EEVDF'\n"
             "unset logscale y\nset logscale x\nset xrange [*:*]\nset yrange [0:1]\n"
             "set title 'A 0.2 ms task every 5 ms beside 3 hogs: wakeup latency (CDF)'\n"
             "set xlabel 'wakeup latency us (rt-app wu\\_lat)'\nset ylabel 'fraction of periods'\nset key bottom right\n"
             "plot 'probe-cfs.dat' using 1:2 with steps lw 2 title 'CFS', \\\n"
             "     'probe-eevdf.dat' using 1:2 with steps lw 2 title 'EEVDF', \\\n"
             "     'probe-eevdf-slice.dat' using 1:2 with steps lw 2 title 'EEVDF, 0.1 ms custom slice'\n"
             "unset multiplot\n",
             1400, 600});
        return r;
    }

    std::vector<std::string> try_next() const override {
        return {"warmsched run --platform haswell-i7-4790 --feature PREEMPT_SHORT=off -- rt-app configs/tutorials/slice-probe-custom-slice.json",
                "warmsched run --platform haswell-i7-4790 --sysctl base_slice_ns=750000 -- rt-app configs/tutorials/slice-probe.json",
                "warmsched run --platform haswell-i7-4790 --feature RUN_TO_PARITY=off -- schbench -m 2 -t 6 -n 1 -r 0.3"};
    }

};

} // namespace

const tutorial& cfs_vs_eevdf_tutorial() {
    static const cfs_vs_eevdf t;
    return t;
}

} // namespace warmsched::sim::tutorials
