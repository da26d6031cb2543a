// compare and plot --sweep of a sweep's database; see sweep_compare.h.
#include "sim/sweep/sweep_compare.h"

#include "platforms/config/config_error.h"
#include "sim/compare/compare_table.h"
#include "sim/plots/run_plots.h"
#include "sim/sweep/sweep_db.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace warmsched::sim::sweep {

namespace {
[[noreturn]] void fail(const std::string& what) {
    throw config::config_error(std::vector<std::string>{what});
}

// A run marked complete must have every row it completed with: a deleted row would pass a partial run off
// as complete. The sweep command redoes such a run (sweep_session::recover).
void refuse_damaged(sweep_db& db, const std::string& file, const std::string& command) {
    const auto damaged = db.damaged_runs();
    if (damaged.empty()) return;
    fail(command + ": " + file + ": run " + damaged.front().id + " is marked complete but " + damaged.front().what +
         (damaged.size() > 1 ? " (and " + std::to_string(damaged.size() - 1) + " more runs)" : "") +
         "; start the sweep again (warmsched sweep SWEEP.yaml) to run it again");
}

// A point's column of compare's table: its complete runs' samples of each metric; metrics not yet in
// `order` are appended to it (first-seen order).
compare_column column_of(const sweep_db::point_samples& p, std::string name, std::vector<std::string>& order) {
    compare_column c;
    c.name = std::move(name);
    for (const auto& [metric, values] : p.metrics) {
        if (std::find(order.begin(), order.end(), metric) == order.end()) order.push_back(metric);
        c.samples[metric] = values;
    }
    return c;
}

std::string point_name(std::size_t point) {
    char b[24];
    std::snprintf(b, sizeof b, "p%04zu", point);
    return b;
}
} // namespace

std::string sweep_database_of(const std::string& arg) {
    std::error_code ec;
    if (fs::is_regular_file(arg, ec) && fs::path(arg).extension() == ".db") return arg;
    if (fs::is_directory(arg, ec) && fs::is_regular_file(fs::path(arg) / "results.db", ec) &&
        !fs::exists(fs::path(arg) / "stats.json", ec))
        return (fs::path(arg) / "results.db").string();
    return "";
}

int compare_sweeps(std::ostream& out, const std::vector<std::string>& databases, bool wide) {
    std::vector<compare_column> cols;
    std::vector<std::string> order, legend, incomplete;
    for (const auto& file : databases) {
        sweep_db db(file);
        refuse_damaged(db, file, "compare");
        if (const auto [runs, complete] = db.run_counts(); complete < runs)
            incomplete.push_back(file + ": " + std::to_string(complete) + " of " + std::to_string(runs) +
                                 " runs complete");
        const std::string prefix =
            databases.size() > 1 ? fs::path(file).parent_path().filename().string() + "/" : std::string();
        for (const auto& p : db.complete_metrics()) {
            cols.push_back(column_of(p, prefix + point_name(p.point), order));
            legend.push_back(cols.back().name + ": " + (p.label.empty() ? "(the one point)" : p.label));
        }
    }
    if (cols.empty()) fail("compare: no complete run in " + databases.front());
    const int rc = wide ? print_comparison_wide(out, cols, order) : print_comparison(out, cols, order);
    out << "points:\n";
    for (const auto& l : legend) out << "  " << l << "\n";
    // A sweep still running or killed: say so, the table counts only its complete runs.
    for (const auto& l : incomplete) out << "incomplete sweep: " << l << " (only those are counted)\n";
    return rc;
}

int compare_sweep_by(std::ostream& out, const std::string& database, const std::string& axis, bool wide) {
    sweep_db db(database);
    refuse_damaged(db, database, "compare");
    const auto points = db.complete_metrics();
    if (points.empty()) fail("compare: no complete run in " + database);
    std::vector<std::string> axes;
    for (const auto& [k, v] : points.front().axes) axes.push_back(k);
    if (std::find(axes.begin(), axes.end(), axis) == axes.end()) {
        std::string list;
        for (const auto& a : axes) list += (list.empty() ? "" : ", ") + a;
        fail("compare --by " + axis + ": not an axis of " + database + " (its axes: " +
             (list.empty() ? "none, one point" : list) + ")");
    }
    // The groups: the other axes' values, in the sweep's order.
    std::vector<std::string> groups;
    std::map<std::string, std::vector<compare_column>> columns;
    std::vector<std::string> order;
    for (const auto& p : points) {
        std::string group, value;
        for (const auto& [k, v] : p.axes) {
            if (k == axis)
                value = v;
            else
                group += (group.empty() ? "" : " ") + k + "=" + v;
        }
        if (!columns.count(group)) groups.push_back(group);
        columns[group].push_back(column_of(p, value, order));
    }
    int rc = 0;
    for (const auto& g : groups) {
        out << "== " << axis << " at " << (g.empty() ? "the one point of the other axes" : g) << "\n";
        rc = std::max(rc, wide ? print_comparison_wide(out, columns[g], order) : print_comparison(out, columns[g], order));
        out << "\n";
    }
    if (const auto [runs, complete] = db.run_counts(); complete < runs)
        out << "incomplete sweep: " << database << ": " << complete << " of " << runs
            << " runs complete (only those are counted)\n";
    return rc;
}

void plot_sweep_database(const std::string& database, const std::string& x_axis, const std::string& metric_in,
                         const std::string& out_dir, std::ostream& out) {
    sweep_db db(database);
    refuse_damaged(db, database, "plot --sweep");
    std::string metric = metric_in;
    std::vector<sweep_samples> points;
    for (const auto& p : db.complete_metrics()) {
        sweep_samples s;
        bool have_x = false;
        for (const auto& [k, v] : p.axes) {
            if (k == x_axis) {
                char* end = nullptr;
                s.x = std::strtod(v.c_str(), &end);
                if (!end || *end || v.empty())
                    fail("plot --sweep: axis " + x_axis + " has the value '" + v + "', not a number");
                have_x = true;
            } else {
                s.variant += (s.variant.empty() ? "" : ",") + k + "=" + v;
            }
        }
        if (!have_x) fail("plot --sweep: " + database + " has no axis '" + x_axis + "' (give --x AXIS)");
        if (s.variant.empty()) s.variant = "all";
        if (metric.empty() && !p.metrics.empty()) metric = p.metrics.front().first;
        const auto it = std::find_if(p.metrics.begin(), p.metrics.end(), [&](const auto& m) { return m.first == metric; });
        if (it == p.metrics.end())
            fail("plot --sweep: point " + point_name(p.point) + " has no metric '" + metric +
                 "' (names as `warmsched compare` prints them)");
        s.values = it->second;
        points.push_back(std::move(s));
    }
    if (points.empty()) fail("plot --sweep: no complete run in " + database);
    plot_sweep_samples(points, metric, x_axis, out_dir, out);
}

} // namespace warmsched::sim::sweep
