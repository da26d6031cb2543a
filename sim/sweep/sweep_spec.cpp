// Reading a sweep file and expanding its grid; see sweep_spec.h.
#include "sim/sweep/sweep_spec.h"

#include "platforms/config/config_error.h"
#include "platforms/config/config_node.h"
#include "platforms/config/config_reader.h"
#include "platforms/platform_catalog.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace warmsched::sim::sweep {

std::string run_id(std::size_t point, std::uint64_t seed) {
    char b[32];
    std::snprintf(b, sizeof b, "p%04zu", point);
    return std::string(b) + "-s" + std::to_string(seed);
}

std::string describe_run(const sweep_spec& spec, const sweep_run& r) {
    std::string d = spec.file + ": run " + r.id + " (";
    for (const auto& [k, v] : r.axis) d += k + "=" + v + " ";
    return d + "seed=" + std::to_string(r.seed) + ")";
}

std::size_t sweep_spec::points() const {
    std::size_t n = 1;
    for (const auto& a : axes) n *= a.values.size();
    return n;
}

namespace {
std::vector<std::string> words_of(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> w;
    for (std::string s; in >> s;) w.push_back(s);
    return w;
}

std::string substitute(std::string text, const std::string& name, const std::string& value) {
    const std::string hole = "{" + name + "}";
    for (std::size_t at; (at = text.find(hole)) != std::string::npos;) text.replace(at, hole.size(), value);
    return text;
}
} // namespace

std::vector<sweep_run> sweep_spec::runs() const {
    std::vector<sweep_run> out;
    const std::size_t n = points();
    for (std::size_t p = 0; p < n; ++p) {
        // Mixed radix, the last axis fastest.
        std::vector<std::size_t> pick(axes.size());
        std::size_t rest = p;
        for (std::size_t a = axes.size(); a-- > 0;) {
            pick[a] = rest % axes[a].values.size();
            rest /= axes[a].values.size();
        }
        for (const std::uint64_t seed : seeds) {
            sweep_run r;
            r.index = out.size();
            r.point = p;
            r.seed = seed;
            r.id = run_id(p, seed);
            std::string cmd = command;
            for (const auto& [k, v] : params) r.overrides.push_back(k + "=" + v);
            for (std::size_t a = 0; a < axes.size(); ++a) {
                const std::string& v = axes[a].values[pick[a]];
                r.axis.emplace_back(axes[a].name, v);
                if (axes[a].placeholder)
                    cmd = substitute(cmd, axes[a].name, v);
                else
                    r.overrides.push_back(axes[a].name + "=" + v);
            }
            r.overrides.push_back("seed=" + std::to_string(seed));
            r.command = words_of(cmd);
            out.push_back(std::move(r));
        }
    }
    return out;
}

std::string sweep_spec::canonical_text() const {
    std::ostringstream t;
    t << "experiment: " << experiment << "\ncommand: " << command << "\n";
    for (const auto& [k, v] : params) t << "param: " << k << "=" << v << "\n";
    for (const auto& a : axes) {
        t << "axis: " << a.name << (a.placeholder ? " (placeholder)" : "") << ":";
        for (const auto& v : a.values) t << " [" << v << "]";
        t << "\n";
    }
    t << "seeds:";
    for (const auto s : seeds) t << " " << s;
    t << "\n";
    return t.str();
}

sweep_spec read_sweep_spec(const std::string& path, const std::string& out_override) {
    const config::config_node root = config::load_yaml_file(path);
    // Every key has a default, so an empty file would be one run of default.yaml: a wrong file, not a sweep.
    if (root.entries().empty())
        throw config::config_error(config::origin{path, 0, 0}, "",
                                   "the sweep file is empty (give axes:, and experiment: or command:; "
                                   "docs/outputs.md, \"A sweep of runs\")");
    config::error_list errors;
    sweep_spec s;
    s.file = fs::absolute(path).lexically_normal().string();
    const fs::path base = fs::path(s.file).parent_path();
    auto relative_to_file = [&](const std::string& p) {
        return (fs::path(p).is_absolute() ? fs::path(p) : base / p).lexically_normal().string();
    };
    config::config_reader r(&root, "", errors, nullptr, root.where());
    const std::string experiment = r.text("experiment", "");
    s.experiment = experiment.empty() ? platform::configs_dir() + "/experiments/default.yaml"
                                      : relative_to_file(experiment);
    s.command = r.text("command", "");
    const std::string out = r.text("out", "");
    r.text("description", "");

    if (const config::config_node* axes = r.consume("axes")) {
        if (!axes->is_map()) {
            r.error("axes", "expected a map of name: [values]");
        } else {
            for (const auto& e : axes->entries()) {
                sweep_axis a;
                a.name = e.key;
                if (e.value.is_sequence()) {
                    for (const auto& item : e.value.items()) {
                        if (!item.is_scalar())
                            errors.add(item.where(), "axes." + e.key, "expected a list of plain values");
                        else
                            a.values.push_back(item.scalar());
                    }
                } else if (e.value.is_scalar()) {
                    a.values.push_back(e.value.scalar());
                } else {
                    errors.add(e.key_where, "axes." + e.key, "expected a list of values");
                }
                if (e.value.is_sequence() && e.value.items().empty())
                    errors.add(e.key_where, "axes." + e.key, "an axis needs at least one value");
                if (a.name == "seed")
                    errors.add(e.key_where, "axes.seed", "the seeds are `seeds:`, not an axis");
                std::set<std::string> seen;
                for (const auto& v : a.values)
                    if (!seen.insert(v).second)
                        errors.add(e.key_where, "axes." + e.key, "the value '" + v + "' is given twice");
                a.placeholder = s.command.find("{" + a.name + "}") != std::string::npos;
                s.axes.push_back(std::move(a));
            }
        }
    }
    // Every `{name}` of the command needs an axis.
    for (std::size_t open = s.command.find('{'); open != std::string::npos; open = s.command.find('{', open + 1)) {
        const std::size_t close = s.command.find('}', open);
        if (close == std::string::npos) {
            r.error("command", "an unclosed '{' (placeholders are {axis-name})");
            break;
        }
        const std::string name = s.command.substr(open + 1, close - open - 1);
        bool known = false;
        for (const auto& a : s.axes) known = known || a.name == name;
        if (!known) r.error("command", "the placeholder {" + name + "} has no axis of that name");
    }

    if (const config::config_node* params = r.consume("params")) {
        if (!params->is_map()) {
            r.error("params", "expected a map of dotted.key: value");
        } else {
            for (const auto& e : params->entries()) {
                const bool is_axis = std::any_of(s.axes.begin(), s.axes.end(),
                                                 [&](const sweep_axis& a) { return a.name == e.key; });
                if (is_axis)
                    errors.add(e.key_where, "params." + e.key,
                               "is also an axis: a key is fixed (params:) or swept (axes:), not both");
                else if (!e.value.is_scalar())
                    errors.add(e.key_where, "params." + e.key, "expected a plain value");
                else
                    s.params.emplace_back(e.key, e.value.scalar());
            }
        }
    }

    if (const config::config_node* seeds = r.consume("seeds")) {
        auto seed_of = [&](const config::config_node& n) -> std::uint64_t {
            const std::string& t = n.scalar();
            char* end = nullptr;
            const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
            if (t.empty() || !end || *end || t[0] == '-' || v >= (1ull << 62)) {
                errors.add(n.where(), "seeds", "expected a seed from 0 to 2^62, got '" + t + "'");
                return 0;
            }
            return v;
        };
        s.seeds.clear();
        if (seeds->is_scalar()) {
            const std::size_t before = errors.lines().size();
            const std::uint64_t n = seed_of(*seeds);
            if (errors.lines().size() == before && (n < 1 || n > 10000))
                errors.add(seeds->where(), "seeds", "a count of seeds from 1 to 10000 (or a list of seeds)");
            for (std::uint64_t i = 1; i <= n && n <= 10000; ++i) s.seeds.push_back(i);
        } else if (seeds->is_sequence() && !seeds->items().empty()) {
            std::set<std::uint64_t> seen;
            for (const auto& item : seeds->items()) {
                if (!item.is_scalar()) {
                    errors.add(item.where(), "seeds", "expected a list of seeds");
                    continue;
                }
                const std::uint64_t v = seed_of(item);
                if (!seen.insert(v).second) errors.add(item.where(), "seeds", "seed " + item.scalar() + " twice");
                s.seeds.push_back(v);
            }
        } else {
            r.error("seeds", "expected a count (seeds 1..N) or a list of seeds");
        }
    }
    r.finish();
    errors.throw_if_any();
    // The grid is counted before it is expanded: 10^9 runs were expanded in memory until bad_alloc.
    std::uint64_t runs = s.seeds.size();
    bool past_2_64 = false;
    for (const auto& a : s.axes) past_2_64 = past_2_64 || __builtin_mul_overflow(runs, a.values.size(), &runs);
    if (past_2_64 || runs > max_sweep_runs) {
        std::string shape;
        for (const auto& a : s.axes) shape += std::to_string(a.values.size()) + " x ";
        r.error(s.axes.empty() ? "seeds" : "axes",
                "the grid has " + (past_2_64 ? std::string("more than 2^64") : std::to_string(runs)) + " runs (" +
                    shape + std::to_string(s.seeds.size()) + (s.seeds.size() == 1 ? " seed" : " seeds") +
                    "); a sweep has at most " +
                    std::to_string(max_sweep_runs) +
                    " runs (each is checked and listed in results.db before the first starts)");
        errors.throw_if_any();
    }

    if (!out_override.empty())
        s.out = fs::absolute(out_override).lexically_normal().string();
    else if (!out.empty())
        s.out = relative_to_file(out);
    else
        s.out = (fs::current_path() / "sweeps" / fs::path(s.file).stem()).lexically_normal().string();
    return s;
}

} // namespace warmsched::sim::sweep
