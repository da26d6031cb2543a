// Plots with gnuplot, as PNG (pngcairo) and SVG, with their gnuplot scripts and data files in
// DIR/plots/ so that users can restyle them.
// Of one run (`warmsched run --plot`, or `warmsched plot DIR` afterwards):
//   timeline        who ran on which CPU when, a colour per process (needs --plot's timeline.dat)
//   migrations      migrations per time bin by distance (needs migrations.dat)
//   miss_rates      per CPU and overall, the local miss rate of L1d, L2 and L3 (from stats.json)
//   latency         the latency percentiles the workload printed (schbench's Wakeup and Request
//                   Latencies, fio's clat percentiles; from report.txt), when there are any
//   latency_histogram  cyclictest -h's histogram, one line per thread (from report.txt)
// Of a sweep (`warmsched plot --sweep VARIANT:X:DIR...`): a workload metric or counter (as `warmsched
// compare` names it) against the swept parameter X, one line per variant, Amean over the directory's
// seeds with the sample stddev as error bars.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

// The latency percentiles a workload printed: schbench's "<Name> percentiles (usec)" blocks (the last
// of each name: schbench prints one per interval, then the run's) and fio's "clat percentiles".
struct latency_series {
    std::string title;                              // "Wakeup Latencies (usec)"
    std::vector<std::pair<double, double>> points; // percentile, latency
};
std::vector<latency_series> latency_percentiles(const std::string& report);

// Writes the plots of the run in `dir` into dir/plots/ and lists them on `out`. Throws config_error
// when `dir` is not a results directory or gnuplot is missing or fails.
void plot_run(const std::string& dir, std::ostream& out);

struct sweep_point {
    std::string variant; // a line of the plot (no spaces)
    double x = 0;        // the swept parameter's value
    std::string dir;     // a results directory or a --repeat directory
};
// "VARIANT:X:DIR" -> sweep_point; throws config_error naming --sweep when it is not that.
sweep_point parse_sweep_point(const std::string& text);

// Writes sweep.dat, sweep.gp, sweep.png and sweep.svg into out_dir. `metric` empty: the first metric
// of the first point's first run.
void plot_sweep(const std::vector<sweep_point>& points, const std::string& metric, const std::string& x_label,
                const std::string& out_dir, std::ostream& out);

// The same plot of samples gathered elsewhere (a sweep's database, sim/sweep/sweep_compare.h).
struct sweep_samples {
    std::string variant;
    double x = 0;
    std::vector<double> values; // the metric over the point's seeds
};
void plot_sweep_samples(const std::vector<sweep_samples>& points, const std::string& metric,
                        const std::string& x_label, const std::string& out_dir, std::ostream& out);

} // namespace warmsched::sim
