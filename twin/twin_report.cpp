// The twin's side-by-side table; see twin_report.h.
#include "twin/twin_report.h"
#include "base/files/output_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

namespace warmsched::twin {
namespace {

const char* idle_name(int t) { return t == lb_idle ? "idle" : t == lb_busy ? "busy" : "newidle"; }

double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

const domain_level_counters* find_level(const schedstat_counters& s, const std::string& name) {
    for (const auto& l : s.levels)
        if (l.name == name) return &l;
    return nullptr;
}

// CPU-time shares of the workload's tasks (percent of the workload's CPU time), sorted.
std::vector<double> shares(const trace_counters& t) {
    const double total = static_cast<double>(t.total().runtime_ns);
    std::vector<double> v;
    for (const auto& [pid, c] : t.tasks) v.push_back(pct(static_cast<double>(c.runtime_ns), total));
    std::sort(v.begin(), v.end());
    return v;
}

double quantile(const std::vector<double>& v, double q) {
    if (v.empty()) return 0;
    return v[static_cast<std::size_t>(std::lround(q * static_cast<double>(v.size() - 1)))];
}

} // namespace

namespace {

// The rows with real = the first side and model = the second.
std::vector<twin_row> pair_rows(const side_counters& real, const side_counters& model) {
    std::vector<twin_row> rows;
    auto add = [&](std::string name, double r, double m, row_kind k = row_kind::count) {
        rows.push_back({std::move(name), r, m, k, 0});
    };
    const task_counters rt = real.trace.total(), mt = model.trace.total();
    auto d = [](std::uint64_t v) { return static_cast<double>(v); };
    add("workload tasks", d(real.trace.tasks.size()), d(model.trace.tasks.size()));
    add("context switches", d(rt.nvcsw + rt.nivcsw), d(mt.nvcsw + mt.nivcsw));
    add("  voluntary", d(rt.nvcsw), d(mt.nvcsw));
    add("  involuntary", d(rt.nivcsw), d(mt.nivcsw));
    add("  involuntary share %", pct(d(rt.nivcsw), d(rt.nvcsw + rt.nivcsw)), pct(d(mt.nivcsw), d(mt.nvcsw + mt.nivcsw)),
        row_kind::share);
    add("    on wakeup (by a task woken there)", d(rt.nivcsw_wakeup), d(mt.nivcsw_wakeup));
    add("    other (tick, balance, higher class)", d(rt.nivcsw - rt.nivcsw_wakeup), d(mt.nivcsw - mt.nivcsw_wakeup));
    add("migrations", d(rt.migrations), d(mt.migrations));
    add("wakeups", d(rt.wakeups), d(mt.wakeups));
    add("  onto another CPU than the waker's", d(rt.wakeups_remote), d(mt.wakeups_remote));
    add("  remote share %", pct(d(rt.wakeups_remote), d(rt.wakeups)), pct(d(mt.wakeups_remote), d(mt.wakeups)),
        row_kind::share);
    add("  onto an idle CPU", d(rt.wakeups_idle), d(mt.wakeups_idle));
    add("  preempting the task running there", d(rt.wakeup_preempts), d(mt.wakeup_preempts));
    add("  from a CPU other than the task's last", d(rt.wakeups_away), d(mt.wakeups_away));
    add("    placed on the waker's CPU", d(rt.away_to_waker), d(mt.away_to_waker));
    add("    left on its last CPU", d(rt.away_to_prev), d(mt.away_to_prev));
    add("    share left on its last CPU %", pct(d(rt.away_to_prev), d(rt.wakeups_away)),
        pct(d(mt.away_to_prev), d(mt.wakeups_away)), row_kind::share);
    // RT tasks beside the fair ones (cyclictest beside a load): each class's own counters.
    if (real.trace.has_rt() || model.trace.has_rt())
        for (const bool rt_class : {true, false}) {
            const task_counters r = real.trace.total_of(rt_class), m = model.trace.total_of(rt_class);
            auto count = [&](const trace_counters& t) {
                return d(static_cast<std::uint64_t>(std::count_if(t.tasks.begin(), t.tasks.end(), [&](const auto& e) {
                    return e.second.rt() == rt_class;
                })));
            };
            const std::string c = rt_class ? "RT tasks: " : "fair tasks: ";
            add(c + "tasks", count(real.trace), count(model.trace));
            add(c + "switches voluntary", d(r.nvcsw), d(m.nvcsw));
            add(c + "switches involuntary", d(r.nivcsw), d(m.nivcsw));
            add(c + "  on wakeup", d(r.nivcsw_wakeup), d(m.nivcsw_wakeup));
            add(c + "migrations", d(r.migrations), d(m.migrations));
            add(c + "wakeups", d(r.wakeups), d(m.wakeups));
            add(c + "  onto another CPU than the waker's", d(r.wakeups_remote), d(m.wakeups_remote));
            add(c + "  onto an idle CPU", d(r.wakeups_idle), d(m.wakeups_idle));
            add(c + "  preempting the task running there", d(r.wakeup_preempts), d(m.wakeup_preempts));
            add(c + "share of the workload's CPU time %", pct(d(r.runtime_ns), d(rt.runtime_ns)),
                pct(d(m.runtime_ns), d(mt.runtime_ns)), row_kind::share);
        }
    if (real.user_s >= 0 && model.user_s >= 0) {
        add("user CPU time s", real.user_s, model.user_s, row_kind::time);
        add("system CPU time s", real.system_s, model.system_s, row_kind::time);
    }
    if (real.has_schedstat) {
    add("schedstat ttwu_count (all tasks)", d(real.sched.ttwu_count), d(model.sched.ttwu_count));
    add("schedstat ttwu_local", d(real.sched.ttwu_local), d(model.sched.ttwu_local));
    add("schedstat sched_count", d(real.sched.sched_count), d(model.sched.sched_count));
    // Levels: the union of both sides' names, in the real kernel's order, then the model's extra ones.
    std::vector<std::string> names;
    for (const auto& l : real.sched.levels) names.push_back(l.name);
    for (const auto& l : model.sched.levels)
        if (std::find(names.begin(), names.end(), l.name) == names.end()) names.push_back(l.name);
    const domain_level_counters none;
    for (const auto& n : names) {
        const auto* r = find_level(real.sched, n);
        const auto* m = find_level(model.sched, n);
        if (!r) r = &none;
        if (!m) m = &none;
        add(n + " ttwu_wake_remote", d(r->ttwu_wake_remote), d(m->ttwu_wake_remote));
        add(n + " ttwu_move_affine", d(r->ttwu_move_affine), d(m->ttwu_move_affine));
        for (int t : {lb_idle, lb_busy, lb_newidle}) {
            add(n + " load_balance " + idle_name(t) + " runs", d(r->lb_count[t]), d(m->lb_count[t]));
            add(n + " load_balance " + idle_name(t) + " tasks pulled", d(r->lb_gained[t]), d(m->lb_gained[t]));
        }
        add(n + " active balance pushes", d(r->alb_pushed), d(m->alb_pushed));
    }
    }
    add("workload CPU time s", d(rt.runtime_ns) / 1e9, d(mt.runtime_ns) / 1e9, row_kind::time);
    const auto rs = shares(real.trace), ms = shares(model.trace);
    if (rs.size() <= 8 && rs.size() == ms.size()) {
        // Few tasks: each one, in pid order (both sides fork in the same order).
        std::vector<std::pair<long, const task_counters*>> rv, mv;
        for (const auto& [p, c] : real.trace.tasks) rv.emplace_back(p, &c);
        for (const auto& [p, c] : model.trace.tasks) mv.emplace_back(p, &c);
        for (std::size_t i = 0; i < rv.size(); ++i)
            add("CPU-time share % task " + std::to_string(i) + " (" + rv[i].second->comm + ")",
                pct(d(rv[i].second->runtime_ns), d(rt.runtime_ns)), pct(d(mv[i].second->runtime_ns), d(mt.runtime_ns)),
                row_kind::share);
    } else {
        add("CPU-time share % per task: min", quantile(rs, 0), quantile(ms, 0), row_kind::share);
        add("CPU-time share % per task: median", quantile(rs, 0.5), quantile(ms, 0.5), row_kind::share);
        add("CPU-time share % per task: max", quantile(rs, 1), quantile(ms, 1), row_kind::share);
    }
    // Per workload (with more than one): its tasks' share of the workloads' CPU time.
    if (real.roots.size() > 1 && real.roots.size() == model.roots.size()) {
        auto share = [&](const side_counters& side, long root) {
            std::uint64_t mine = 0;
            for (const auto& [pid, c] : side.trace.tasks)
                if (c.root == root) mine += c.runtime_ns;
            return pct(d(mine), d(side.trace.total().runtime_ns));
        };
        for (std::size_t i = 0; i < real.roots.size(); ++i)
            add("CPU-time share % workload " + (i < real.workload_names.size() ? real.workload_names[i] : std::to_string(i)),
                share(real, real.roots[i]), share(model, model.roots[i]), row_kind::share);
    }
    const auto rh = find_headline(real.tool_output), mh = find_headline(model.tool_output);
    if (rh && mh && rh->name == mh->name) add(rh->name, rh->value, mh->value, rh->kind);
    return rows;
}

} // namespace

std::vector<twin_row> make_rows(const side_counters& real, const side_counters& model,
                                const side_counters* dilated) {
    std::vector<twin_row> rows = pair_rows(real, model);
    if (!dilated) return rows;
    const std::vector<twin_row> d = pair_rows(real, *dilated);
    for (auto& r : rows)
        for (const auto& x : d)
            if (x.name == r.name) r.dilated = x.model;
    return rows;
}

std::vector<twin_row> make_repeat_rows(const std::vector<side_counters>& real_runs, const side_counters& model) {
    std::vector<std::vector<twin_row>> per_run;
    for (const auto& r : real_runs) per_run.push_back(pair_rows(r, model));
    if (per_run.empty()) return {};
    std::vector<twin_row> rows = per_run.front();
    for (auto& row : rows) {
        std::vector<double> v;
        for (const auto& run : per_run)
            for (const auto& x : run)
                if (x.name == row.name) v.push_back(x.real);
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        row.real = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
        row.real_min = v.front();
        row.real_max = v.back();
        row.repeats = static_cast<unsigned>(v.size());
    }
    return rows;
}

std::optional<headline> find_headline(const std::string& text) {
    std::smatch m;
    double max_lat = -1;
    const std::regex cyc(R"(T:\s*\d+ \(\s*\d+\) P:\s*\d+ I:\s*\d+ C:\s*\d+ Min:\s*\d+ Act:\s*\d+ Avg:\s*\d+ Max:\s*(\d+))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), cyc); it != std::sregex_iterator(); ++it)
        max_lat = std::max(max_lat, std::stod((*it)[1]));
    if (max_lat >= 0) return headline{"cyclictest max latency us", max_lat, row_kind::time};
    if (std::regex_search(text, m, std::regex(R"(([0-9.]+) usecs/op)")))
        return headline{"perf bench sched pipe usecs/op", std::stod(m[1]), row_kind::time};
    if (std::regex_search(text, m, std::regex(R"(Total time: ([0-9.]+) \[sec\])")))
        return headline{"perf bench Total time s", std::stod(m[1]), row_kind::time};
    if (std::regex_search(text, m, std::regex(R"((?:^|\n)Time: ([0-9.]+))")))
        return headline{"hackbench Time s", std::stod(m[1]), row_kind::time};
    if (std::regex_search(text, m, std::regex(R"(Throughput ([0-9.]+) MB/sec)")))
        return headline{"tbench Throughput MB/s", std::stod(m[1]), row_kind::time};
    if (std::regex_search(text, m, std::regex(R"(IOPS=([0-9.]+)(k?))")))
        return headline{"fio IOPS", std::stod(m[1]) * (m[2] == "k" ? 1000 : 1), row_kind::time};
    return std::nullopt;
}

namespace {

std::string compare_cell(const twin_row& r, double model) {
    char c[64];
    if (r.kind == row_kind::share) {
        std::snprintf(c, sizeof c, "%+.1f pts", model - r.real);
        return c;
    }
    if (r.real > 0) {
        std::snprintf(c, sizeof c, "%.2f%s", model / r.real, r.kind == row_kind::time ? " (t)" : "");
        return c;
    }
    return model > 0 ? "(real 0)" : "-";
}

std::string number_cell(const twin_row& r, double v) {
    char b[32];
    if (r.kind == row_kind::count) std::snprintf(b, sizeof b, "%.0f", v);
    else
        std::snprintf(b, sizeof b, "%.3f", v);
    return b;
}

} // namespace

void print_rows(std::ostream& out, const std::vector<twin_row>& rows, double dilation) {
    char buf[320];
    char dil[32];
    std::snprintf(dil, sizeof dil, "model x%.0f", dilation);
    const bool spread = std::any_of(rows.begin(), rows.end(), [](const twin_row& r) { return r.repeats > 1; });
    if (spread) { // a native twin's repeats: the median, then min-max
        std::snprintf(buf, sizeof buf, "%-44s %12s %25s %12s %11s\n", "", "real median", "real min - max", "model",
                      "model/real");
        out << buf;
        for (const auto& r : rows) {
            const std::string range = number_cell(r, r.real_min) + " - " + number_cell(r, r.real_max);
            std::snprintf(buf, sizeof buf, "%-44s %12s %25s %12s %11s\n", r.name.c_str(), number_cell(r, r.real).c_str(),
                          range.c_str(), number_cell(r, r.model).c_str(), compare_cell(r, r.model).c_str());
            out << buf;
        }
        return;
    }
    if (dilation > 0)
        std::snprintf(buf, sizeof buf, "%-44s %12s %12s %11s %12s %11s\n", "", "real", "model", "/real", dil, "/real");
    else
        std::snprintf(buf, sizeof buf, "%-44s %12s %12s %11s\n", "", "real", "model", "model/real");
    out << buf;
    for (const auto& r : rows) {
        if (dilation > 0)
            std::snprintf(buf, sizeof buf, "%-44s %12s %12s %11s %12s %11s\n", r.name.c_str(), number_cell(r, r.real).c_str(),
                          number_cell(r, r.model).c_str(), compare_cell(r, r.model).c_str(),
                          number_cell(r, r.dilated).c_str(), compare_cell(r, r.dilated).c_str());
        else
            std::snprintf(buf, sizeof buf, "%-44s %12s %12s %11s\n", r.name.c_str(), number_cell(r, r.real).c_str(),
                          number_cell(r, r.model).c_str(), compare_cell(r, r.model).c_str());
        out << buf;
    }
}

void write_rows_json(const std::string& path, const std::vector<twin_row>& rows, double dilation,
                     const std::vector<std::string>& notes) {
    nlohmann::json j;
    j["dilation"] = dilation;
    j["rows"] = nlohmann::json::array();
    for (const auto& r : rows) {
        nlohmann::json x{{"name", r.name}, {"real", r.real}, {"model", r.model},
                         {"kind", r.kind == row_kind::count ? "count" : r.kind == row_kind::share ? "share" : "time"}};
        if (r.repeats > 1) {
            x["real_min"] = r.real_min;
            x["real_max"] = r.real_max;
            x["repeats"] = r.repeats;
        }
        if (r.kind == row_kind::share) x["difference"] = r.model - r.real;
        else if (r.real > 0)
            x["ratio"] = r.model / r.real;
        if (dilation > 0) {
            x["dilated"] = r.dilated;
            if (r.kind == row_kind::share) x["dilated_difference"] = r.dilated - r.real;
            else if (r.real > 0)
                x["dilated_ratio"] = r.dilated / r.real;
        }
        j["rows"].push_back(x);
    }
    j["notes"] = notes;
    base::write_file(path, j.dump(2) + "\n");
}

} // namespace warmsched::twin
