// gnuplot plots of a run and of a sweep; see run_plots.h.
#include "sim/plots/run_plots.h"
#include "base/files/output_file.h"

#include "platforms/config/config_error.h"
#include "sim/compare/run_metrics.h"
#include "sim/compare/sample_stats.h"
#include "sim/file_text.h"
#include "sim/plots/gnuplot.h"
#include "sim/results_dir.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace warmsched::sim {
namespace fs = std::filesystem;

namespace {
[[noreturn]] void fail(const std::string& why) {
    throw config::config_error(std::vector<std::string>{"plot: " + why});
}

} // namespace

std::vector<latency_series> latency_percentiles(const std::string& report) {
    static const std::regex schbench_head(R"(^(.+) percentiles \(usec\) runtime .*$)");
    static const std::regex schbench_line(R"(^\t(?:\* |  )\s*([0-9.]+)th: (\d+).*$)");
    static const std::regex fio_head(R"(^\s*clat percentiles \((\w+)\):\s*$)");
    static const std::regex fio_pair(R"(([0-9.]+)th=\[\s*(\d+)\])");
    std::vector<latency_series> out;
    std::map<std::string, std::size_t> by_name;
    std::istringstream in(report);
    latency_series* cur = nullptr;
    bool fio = false;
    int fio_blocks = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.size() > 4096) continue; // not a line of the tools' output; std::regex recurses per character
        std::smatch m;
        if (std::regex_match(line, m, schbench_head)) {
            const std::string name = m[1].str() + " (usec)";
            if (!by_name.count(name)) {
                by_name[name] = out.size();
                out.push_back({name, {}});
            }
            cur = &out[by_name[name]];
            cur->points.clear();
            fio = false;
            continue;
        }
        if (std::regex_match(line, m, fio_head)) {
            out.push_back({"fio clat #" + std::to_string(++fio_blocks) + " (" + m[1].str() + ")", {}});
            cur = &out.back();
            fio = true;
            continue;
        }
        if (!cur) continue;
        if (!fio && std::regex_match(line, m, schbench_line)) {
            cur->points.emplace_back(std::strtod(m[1].str().c_str(), nullptr), std::strtod(m[2].str().c_str(), nullptr));
        } else if (fio && line.find("th=[") != std::string::npos) {
            for (auto it = std::sregex_iterator(line.begin(), line.end(), fio_pair);
                 it != std::sregex_iterator(); ++it)
                cur->points.emplace_back(std::strtod((*it)[1].str().c_str(), nullptr), std::strtod((*it)[2].str().c_str(), nullptr));
        } else {
            cur = nullptr;
        }
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const latency_series& s) { return s.points.empty(); }),
              out.end());
    return out;
}

namespace {

// cyclictest -h's histogram: after "# Histogram", one line per microsecond: "%06d" then each thread's
// count ("%06lu", tab-separated). Rows: latency (us), then one count per thread.
std::vector<std::vector<double>> cyclictest_histogram(const std::string& report) {
    static const std::regex row(R"(^(\d{6}) (\d+(?:\t\d+)*)$)");
    std::vector<std::vector<double>> rows;
    std::istringstream in(report);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (line.size() > 4096) continue; // not a line of the tools' output; std::regex recurses per character
        if (line == "# Histogram") {
            inside = true;
            rows.clear();
            continue;
        }
        std::smatch m;
        if (!inside || !std::regex_match(line, m, row)) {
            inside = false;
            continue;
        }
        std::vector<double> r{std::strtod(m[1].str().c_str(), nullptr)};
        std::istringstream counts(m[2].str());
        for (double c; counts >> c;) r.push_back(c);
        rows.push_back(std::move(r));
    }
    return rows;
}

// Makes the directory the plots go to; one that cannot be made or written (read-only, no permission) is
// refused in one line, exit 2, as --out of a run is.
void plots_dir_of(const std::string& dir) {
    try {
        base::make_directories(dir);
    } catch (const base::write_error& e) {
        fail(std::string(e.what()) + " (the plots cannot be written there)");
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        fail(dir + ": " + std::strerror(errno) + " (the plots cannot be written there)");
}

double value_of(const run_metrics& m, const std::string& name) {
    for (const auto& [k, v] : m)
        if (k == name) return v;
    return 0;
}
} // namespace

void plot_run(const std::string& dir, std::ostream& out) {
    if (is_partial_results_name(dir))
        fail(dir + ": an incomplete run (its process stopped while writing the results)");
    std::error_code ec;
    if (!fs::is_regular_file(fs::path(dir) / "stats.json", ec)) // a symlink loop too: not an exception
        fail(dir + ": not a results directory (no stats.json" + (ec ? ": " + ec.message() : std::string()) + ")");
    if (find_gnuplot().empty())
        fail("gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox)");
    const fs::path plots = fs::path(dir) / "plots";
    plots_dir_of(plots.string());
    std::vector<std::string> drawn;
    const std::string plots_dir = plots.string();

    if (fs::exists(plots / "timeline.dat")) {
        // Every CPU of the machine (stats.json has each one's counters), idle ones included.
        std::size_t cpus = 1;
        static const std::regex cpu_stat(R"(^system\.cpu(\d{1,4})\.contextSwitches$)");
        for (const auto& [name, v] : read_stats_json((fs::path(dir) / "stats.json").string())) {
            std::smatch m;
            if (std::regex_match(name, m, cpu_stat))
                cpus = std::max<std::size_t>(cpus, std::stoul(m[1].str()) + 1);
        }
        write_gnuplot_script(
            plots, "timeline",
            "set title 'Who ran where (one colour per process; white: idle)'\n"
            "set xlabel 'simulated time (ms)'\nset ylabel 'CPU'\n"
            "set yrange [-0.5:" +
                std::to_string(cpus) +
                "-0.5]\nunset key\n"
                "set style fill solid 1.0 noborder\n"
                "plot 'timeline.dat' using (($2+$3)/2):1:(($3-$2)/2):(0.4):(hsv2rgb($6, 0.65, 0.9)) skip 1 "
                "with boxxyerror lc rgb variable\n",
            1400, std::max(400, static_cast<int>(std::min<std::size_t>(cpus, 400)) * 6 + 150));
        run_gnuplot(plots_dir, "timeline.gp");
        drawn.push_back("timeline");
    }
    if (fs::exists(plots / "migrations.dat")) {
        write_gnuplot_script(plots, "migrations",
                     "set title 'Migrations by distance (per 1/100 of the run)'\n"
                     "set xlabel 'simulated time (ms)'\nset ylabel 'migrations'\nset key top right\n"
                     "set key autotitle columnhead\n"
                     "plot 'migrations.dat' using 1:2 with linespoints pt 7 ps 0.5 lc rgb " +
                         category_colour("SMT sibling") + ", '' using 1:3 with linespoints pt 7 ps 0.5 lc rgb " +
                         category_colour("same LLC") + ", '' using 1:4 with linespoints pt 7 ps 0.5 lc rgb " +
                         category_colour("other LLC") + ", '' using 1:5 with linespoints pt 7 ps 0.5 lc rgb " +
                         category_colour("other node") + "\n");
        run_gnuplot(plots_dir, "migrations.gp");
        drawn.push_back("migrations");
    }
    {
        const run_metrics stats = read_stats_json((fs::path(dir) / "stats.json").string());
        static const std::regex access(R"(^system\.cpu(\d{1,4})\.accesses::(\w+)$)");
        std::map<unsigned, std::map<std::string, double>> cpu;
        for (const auto& [name, v] : stats) {
            std::smatch m;
            if (std::regex_match(name, m, access)) cpu[std::stoul(m[1].str())][m[2].str()] = v;
        }
        base::output_file dat((plots / "miss_rates.dat").string());
        dat << "cpu \"L1d\" \"L2\" \"L3\"\n";
        std::map<std::string, double> all;
        auto row = [&](const std::string& label, std::map<std::string, double>& a) {
            const double total = a["total"], l1 = a["l1"], l2 = a["l2"];
            const double l3_miss =
                a["remote_llc"] + a["remote_socket"] + a["local_memory"] + a["remote_memory"];
            auto rate = [](double miss, double ref) { return ref > 0 ? 100 * miss / ref : 0.0; };
            char b[160];
            std::snprintf(b, sizeof b, "%s %.4f %.4f %.4f\n", label.c_str(), rate(total - l1, total),
                          rate(total - l1 - l2, total - l1), rate(l3_miss, total - l1 - l2));
            dat << b;
        };
        for (auto& [c, a] : cpu) {
            row(std::to_string(c), a);
            for (const auto& [k, v] : a) all[k] += v;
        }
        row("all", all);
        dat.close();
        const std::size_t every = std::max<std::size_t>(1, (cpu.size() + 1) / 32);
        write_gnuplot_script(
            plots, "miss_rates",
            "set title 'Miss rate per cache level (misses / accesses reaching the level)'\n"
            "set ylabel 'miss rate (%)'\nset xlabel 'CPU'\nset yrange [0:100]\n"
            "set style data histograms\nset style histogram clustered gap 1\n"
            "set style fill solid 0.9 noborder\nset key outside right top autotitle columnhead\n"
            "set xtics rotate by -90\n"
            "plot 'miss_rates.dat' using 2:xtic((int($0) % " +
                std::to_string(every) +
                " == 0 || (stringcolumn(1) eq 'all')) ? stringcolumn(1) : ''), '' using 3, '' using 4\n");
        run_gnuplot(plots_dir, "miss_rates.gp");
        drawn.push_back("miss_rates");
    }
    const auto latencies = latency_percentiles(file_text(fs::path(dir) / "report.txt"));
    if (!latencies.empty()) {
        // The x axis counts nines (50th: 0.3, 90th: 1, 99th: 2, 99.9th: 3), so that the tail's percentiles
        // are as far apart as the others instead of crowding the right edge; the 100th goes one past the
        // last of the others. Each percentile present is a labelled tick.
        std::map<double, double> at; // percentile -> x
        for (const auto& s : latencies)
            for (const auto& pt : s.points)
                if (pt.first < 100) at[pt.first] = -std::log10(1 - pt.first / 100);
        double last = 0;
        for (const auto& [p, x] : at) last = std::max(last, x);
        for (const auto& s : latencies)
            for (const auto& pt : s.points)
                if (pt.first >= 100) at[pt.first] = last + 1;
        // The unit, when every series gives the same one ("Wakeup Latencies (usec)").
        const auto unit_of = [](const std::string& title) {
            const auto open = title.rfind('(');
            return open == std::string::npos ? std::string() : title.substr(open + 1, title.size() - open - 2);
        };
        std::string unit = unit_of(latencies.front().title);
        for (const auto& s : latencies)
            if (unit_of(s.title) != unit) unit.clear();
        base::output_file dat((plots / "latency.dat").string());
        for (const auto& s : latencies) {
            dat << "# " << s.title << "\npercentile latency x\n"; // x: where the percentile is drawn
            for (const auto& [p, v] : s.points) dat << p << " " << v << " " << at[p] << "\n";
            dat << "\n\n";
        }
        dat.close();
        // A label where it has room: at least a 20th of the axis after the last one (fio's 1st, 5th, 10th,
        // 20th ... 40th sit within 0.2 nines of each other).
        const double span = at.empty() ? 1 : at.rbegin()->second - at.begin()->second;
        std::string tics = "set xtics (";
        double labelled = -1e9;
        for (const auto& [p, x] : at) {
            if (x - labelled < span / 20) continue;
            labelled = x;
            std::ostringstream label;
            label << p;
            tics += std::string(tics.back() == '(' ? "" : ", ") + gnuplot_quoted(label.str()) + " " + std::to_string(x);
        }
        tics += ")\n";
        std::string plot = "plot ";
        for (std::size_t i = 0; i < latencies.size(); ++i)
            plot += std::string(i ? ", " : "") + "'latency.dat' index " + std::to_string(i) +
                    " using 3:2 skip 1 with linespoints pt 7 title " + gnuplot_quoted(latencies[i].title);
        write_gnuplot_script(plots, "latency",
                     "set title 'Latency percentiles the workload printed'\nset xlabel 'percentile (spaced by "
                     "nines: 90, 99, 99.9 equally apart)'\n" + tics + "set offsets 0.2, 0.2, 0, 0\n"
                     "set ylabel " + gnuplot_quoted(unit.empty() ? "latency" : "latency (" + unit + ")") +
                     "\nset logscale y\nset key below\n" + plot + "\n");
        run_gnuplot(plots_dir, "latency.gp");
        drawn.push_back("latency");
    }
    const auto hist = cyclictest_histogram(file_text(fs::path(dir) / "report.txt"));
    if (!hist.empty()) {
        base::output_file dat((plots / "latency_histogram.dat").string());
        const std::size_t threads = hist.front().size() - 1;
        dat << "us";
        for (std::size_t t = 0; t < threads; ++t) dat << " \"T:" << t << "\"";
        dat << "\n";
        for (const auto& r : hist) {
            for (std::size_t i = 0; i < r.size(); ++i) dat << (i ? " " : "") << r[i];
            dat << "\n";
        }
        dat.close();
        write_gnuplot_script(plots, "latency_histogram",
                     "set title 'cyclictest latency histogram (-h)'\nset xlabel 'latency (us)'\n"
                     "set ylabel 'samples'\nset logscale y\nset key top right autotitle columnhead\n"
                     "plot for [i=2:" +
                         std::to_string(threads + 1) + "] 'latency_histogram.dat' using 1:i with steps\n");
        run_gnuplot(plots_dir, "latency_histogram.gp");
        drawn.push_back("latency_histogram");
    }
    out << "plots: " << plots_dir << " (";
    for (std::size_t i = 0; i < drawn.size(); ++i) out << (i ? ", " : "") << drawn[i];
    out << ": .png, .svg, .gp)\n";
}

sweep_point parse_sweep_point(const std::string& text) {
    const auto a = text.find(':');
    const auto b = a == std::string::npos ? a : text.find(':', a + 1);
    sweep_point p;
    char* end = nullptr;
    if (b != std::string::npos) {
        p.variant = text.substr(0, a);
        const std::string x = text.substr(a + 1, b - a - 1);
        p.x = std::strtod(x.c_str(), &end);
        if (x.empty() || end != x.c_str() + x.size()) end = nullptr;
        p.dir = text.substr(b + 1);
    }
    if (b == std::string::npos || p.variant.empty() || !end || p.dir.empty() ||
        p.variant.find_first_of(" \t'\"") != std::string::npos)
        throw config::config_error(std::vector<std::string>{
            "--sweep: expected VARIANT:X:DIR (a variant name without spaces, a number, a results directory), "
            "got '" +
            text + "'"});
    return p;
}

void plot_sweep(const std::vector<sweep_point>& points, const std::string& metric_in,
                const std::string& x_label, const std::string& out_dir, std::ostream& out) {
    if (points.empty()) fail("--sweep needs at least one VARIANT:X:DIR");
    std::string metric = metric_in;
    std::vector<sweep_samples> samples;
    for (const auto& p : points) {
        sweep_samples s{p.variant, p.x, {}};
        for (const auto& run : runs_of(p.dir)) {
            const run_metrics m = read_run_metrics(run);
            if (metric.empty() && !m.empty()) metric = m.front().first;
            if (std::none_of(m.begin(), m.end(), [&](const auto& kv) { return kv.first == metric; }))
                fail(run + ": no metric '" + metric + "' (names as `warmsched compare` prints them)");
            s.values.push_back(value_of(m, metric));
        }
        samples.push_back(std::move(s));
    }
    plot_sweep_samples(samples, metric, x_label, out_dir, out);
}

void plot_sweep_samples(const std::vector<sweep_samples>& points, const std::string& metric,
                        const std::string& x_label, const std::string& out_dir, std::ostream& out) {
    if (points.empty()) fail("--sweep: no points to plot");
    if (find_gnuplot().empty())
        fail("gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox)");
    std::vector<std::string> variants;
    std::map<std::string, std::vector<std::pair<double, sample_summary>>> lines;
    for (const auto& p : points) {
        if (std::find(variants.begin(), variants.end(), p.variant) == variants.end())
            variants.push_back(p.variant);
        lines[p.variant].emplace_back(p.x, summarize(p.values));
    }
    plots_dir_of(out_dir);
    {
        base::output_file dat((fs::path(out_dir) / "sweep.dat").string());
        for (const auto& name : variants) {
            auto& l = lines[name];
            std::sort(l.begin(), l.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            dat << "# " << name << "\nx amean stddev\n";
            for (const auto& [x, s] : l) dat << x << " " << s.amean << " " << s.stddev << "\n";
            dat << "\n\n";
        }
        dat.close();
    }
    std::string plot = "plot ";
    for (std::size_t i = 0; i < variants.size(); ++i)
        plot += std::string(i ? ", " : "") + "'sweep.dat' index " + std::to_string(i) +
                " using 1:2:3 skip 1 with yerrorlines pt 7 title " + gnuplot_quoted(variants[i]);
    // Whole-number x values (group counts, CPUs, loops): a tick at each value swept, not gnuplot's 1.5, 2.5.
    std::set<double> xs;
    bool whole = true;
    for (const auto& p : points) {
        xs.insert(p.x);
        whole = whole && p.x == std::floor(p.x);
    }
    std::string tics;
    if (whole && xs.size() <= 30) {
        tics = "set xtics (";
        for (const double x : xs) tics += std::string(tics.back() == '(' ? "" : ", ") + std::to_string(static_cast<long long>(x));
        tics += ")\nset offsets 0.5, 0.5, 0, 0\n";
    }
    write_gnuplot_script(fs::path(out_dir), "sweep",
                 "set title " + gnuplot_quoted(metric + " (Amean over seeds, error bars: Stddev)") +
                     "\nset xlabel " + gnuplot_quoted(x_label) + "\nset ylabel " + gnuplot_quoted(metric) +
                     "\n" + tics + "set key top left\n" + plot + "\n",
                 900, 600);
    run_gnuplot(out_dir, "sweep.gp");
    out << "plots: " << out_dir << " (sweep: .png, .svg, .gp; " << metric << " against " << x_label << ", "
        << variants.size() << " variant" << (variants.size() == 1 ? "" : "s") << ")\n";
}

} // namespace warmsched::sim
