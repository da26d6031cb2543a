// The comparison table; see compare_table.h.
#include "sim/compare/compare_table.h"

#include "sim/compare/run_metrics.h"
#include "sim/compare/sample_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace warmsched::sim {

namespace {

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string pad(const std::string& s, std::size_t w) {
    return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

std::string percent(double base, double v) {
    if (base == 0) return "(    n/a)";
    return "(" + fmt("%8.2f", 100 * (v - base) / std::fabs(base)) + "%)";
}

} // namespace

std::string percent_cell(double base_mean, double mean, double p_value) {
    std::string cell = percent(base_mean, mean);
    if (base_mean != 0 && !std::isnan(p_value) && p_value < 0.05) {
        cell.front() = '*';
        cell.back() = '*';
    }
    return cell;
}

namespace {
std::vector<compare_column> read_columns(const std::vector<std::string>& dirs, std::vector<std::string>& order) {
    std::vector<compare_column> cols;
    for (const auto& d : dirs) {
        compare_column c;
        c.name = fs::path(d).lexically_normal().filename().string();
        if (c.name.empty()) c.name = fs::path(d).lexically_normal().parent_path().filename().string();
        for (const auto& run : runs_of(d))
            for (const auto& [metric, v] : read_run_metrics(run)) {
                if (std::find(order.begin(), order.end(), metric) == order.end()) order.push_back(metric);
                c.samples[metric].push_back(v);
            }
        cols.push_back(std::move(c));
    }
    return cols;
}
// The closing line: how many runs each column has, and how to read the table.
void print_runs(std::ostream& out, const std::vector<compare_column>& cols, const char* legend) {
    out << "\nruns:";
    for (const auto& c : cols) {
        std::size_t n = 0;
        for (const auto& [m, v] : c.samples) n = std::max(n, v.size());
        out << " " << c.name << "=" << n;
    }
    out << " (" << legend << ")\n";
}
} // namespace

std::string metric_token(const std::string& name) {
    std::string t;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '(' || c == ')') continue;
        if (c == '%') {
            t += "pct";
        } else if (c == ' ') {
            if (i + 1 < name.size() && name[i + 1] == '#') continue; // "x #2" -> "x#2"
            if (!t.empty() && t.back() != '-') t += '-';
        } else {
            t += c;
        }
    }
    while (!t.empty() && t.back() == '-') t.pop_back();
    return t;
}

bool higher_is_better(const std::string& name) {
    for (const char* m : {"Trans/s", "rps", "MB/s"})
        if (name.find(m) != std::string::npos) return true;
    return false;
}

std::string gain_cell(double base, double v, bool higher_better, bool significant) {
    if (base == 0) return "(    n/a)";
    const double gain = 100 * (higher_better ? v - base : base - v) / std::fabs(base);
    const std::string num = fmt("%7.2f", gain) + "%";
    return significant ? "*" + num + "*" : "(" + num + ")";
}

int print_comparison(std::ostream& out, const std::vector<std::string>& dirs) {
    std::vector<std::string> order;
    const std::vector<compare_column> cols = read_columns(dirs, order);
    return print_comparison(out, cols, order);
}

int print_comparison(std::ostream& out, const std::vector<compare_column>& cols,
                     const std::vector<std::string>& order) {
    std::size_t label = 0;
    for (const auto& m : order) label = std::max(label, metric_token(m).size());
    const std::size_t width = 24; // "%13.4f" and the 10-character change
    out << std::string(10 + label, ' ');
    for (const auto& c : cols) out << "  " << pad(c.name, width - 2); // a long name pushes the rest right
    out << "\n";
    auto values = [&](std::size_t i, const std::string& m) -> const std::vector<double>& {
        static const std::vector<double> none;
        const auto it = cols[i].samples.find(m);
        return it == cols[i].samples.end() ? none : it->second;
    };
    // mmtests' blocks: Min, the mean (Hmean for a throughput, Amean otherwise; `*` where Welch's t-test
    // gives p < 0.05 against the first column), Stddev, CoeffVar, Max. Every change is a gain: positive
    // when the column is better than the first (higher throughput, lower time, fewer events).
    enum class stat { min, mean, stddev, coeffvar, max };
    const std::pair<stat, const char*> blocks[] = {{stat::min, "Min"},
                                                   {stat::mean, ""},
                                                   {stat::stddev, "Stddev"},
                                                   {stat::coeffvar, "CoeffVar"},
                                                   {stat::max, "Max"}};
    bool first_block = true;
    for (const auto& block : blocks) {
        const stat which = block.first; // names, not structured bindings: the lambda below captures it
        const char* const title = block.second;
        if (!first_block) out << "\n";
        first_block = false;
        for (const auto& m : order) {
            const bool higher = higher_is_better(m);
            const std::string name = which == stat::mean ? (higher ? "Hmean" : "Amean") : title;
            out << name << std::string(10 - name.size(), ' ') << metric_token(m)
                << std::string(label - metric_token(m).size(), ' ');
            const auto pick = [&](const sample_summary& s) {
                switch (which) {
                case stat::min:
                    return s.min;
                case stat::mean:
                    return higher ? s.hmean : s.amean;
                case stat::stddev:
                    return s.stddev;
                case stat::coeffvar:
                    return s.coeffvar;
                case stat::max:
                    break;
                }
                return s.max;
            };
            const bool better_high =
                higher && (which == stat::min || which == stat::mean || which == stat::max);
            const auto& base = values(0, m);
            for (std::size_t i = 0; i < cols.size(); ++i) {
                const auto& v = values(i, m);
                if (v.empty() || base.empty()) {
                    out << pad("-", width);
                    continue;
                }
                const double x = pick(summarize(v)), b = pick(summarize(base));
                const bool significant = i > 0 && which == stat::mean &&
                                         !std::isnan(welch_p_value(base, v)) && welch_p_value(base, v) < 0.05;
                out << pad(fmt("%13.4f", x) + " " + gain_cell(b, x, better_high, significant), width);
            }
            out << "\n";
        }
    }
    print_runs(out, cols, "gain against the first column; * : Welch's t-test p < 0.05");
    return 0;
}

int print_comparison_wide(std::ostream& out, const std::vector<std::string>& dirs) {
    std::vector<std::string> order; // metrics in first-seen order
    const std::vector<compare_column> cols = read_columns(dirs, order);
    return print_comparison_wide(out, cols, order);
}

int print_comparison_wide(std::ostream& out, const std::vector<compare_column>& cols,
                          const std::vector<std::string>& order) {
    std::size_t label = 0;
    for (const auto& m : order) label = std::max(label, m.size());
    label += 10; // the statistic's name ("CoeffVar  ")
    const std::size_t width = 37;
    out << std::string(label, ' ');
    for (const auto& c : cols) out << "  " << pad(c.name, width);
    out << "\n";
    auto row = [&](const char* stat, const std::string& metric, auto cell) {
        std::string l = std::string(stat) + std::string(10 - std::string(stat).size(), ' ') + metric;
        out << l << std::string(label - l.size(), ' ');
        for (std::size_t i = 0; i < cols.size(); ++i) out << "  " << pad(cell(i), width);
        out << "\n";
    };
    auto values = [&](std::size_t i, const std::string& m) -> const std::vector<double>& {
        static const std::vector<double> none;
        const auto it = cols[i].samples.find(m);
        return it == cols[i].samples.end() ? none : it->second;
    };
    // Amean (Stddev), change against the first column, * when Welch's t-test gives p < 0.05.
    for (const auto& m : order)
        row("Amean", m, [&](std::size_t i) {
            const auto& v = values(i, m);
            if (v.empty()) return std::string("-");
            const sample_summary s = summarize(v);
            std::string cell = fmt("%12.6g", s.amean) + " (" + fmt("%10.4g", s.stddev) + ")";
            const auto& base = values(0, m);
            if (i > 0 && !base.empty())
                cell += " " + percent_cell(summarize(base).amean, s.amean, welch_p_value(base, v));
            return cell;
        });
    // mmtests' other rows: the statistic, then its change against the first column in brackets.
    const std::pair<const char*, double sample_summary::*> others[] = {
        {"Min", &sample_summary::min},
        {"Hmean", &sample_summary::hmean},
        {"Stddev", &sample_summary::stddev},
        {"CoeffVar", &sample_summary::coeffvar},
        {"Max", &sample_summary::max}};
    for (const auto& [stat, field] : others) {
        out << "\n";
        for (const auto& m : order)
            row(stat, m, [&, field = field](std::size_t i) {
                const auto& v = values(i, m);
                if (v.empty()) return std::string("-");
                const auto& base = values(0, m);
                const double x = summarize(v).*field;
                return fmt("%12.6g", x) + " " + percent(base.empty() ? 0 : summarize(base).*field, x);
            });
    }
    print_runs(out, cols, "Amean (Stddev) over seeds; * : Welch's t-test p < 0.05 against the first column");
    return 0;
}

} // namespace warmsched::sim
