// Strict typed reader over a configuration map; see config_reader.h.
#include "platforms/config/config_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace warmsched::config {
namespace {
std::string number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}
} // namespace

config_reader::config_reader(const config_node* node, std::string key_path, error_list& errors,
                             config_node* resolved, origin fallback)
    : node_(node), path_(std::move(key_path)), errors_(&errors), resolved_(resolved),
      fallback_(std::move(fallback)) {
    if (node_ && !node_->is_map() && !node_->is_null()) {
        errors_->add(node_->where(), path_, "expected a map of keys");
        node_ = nullptr;
    }
    if (resolved_ && !resolved_->is_map()) *resolved_ = config_node::make_map({});
}

std::string config_reader::path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

origin config_reader::where(const std::string& key) const {
    if (node_ && node_->is_map())
        if (const auto* e = node_->find_entry(key)) return e->value.where();
    if (node_ && !node_->where().file.empty()) return node_->where();
    return fallback_;
}

void config_reader::error(const std::string& key, const std::string& what) const {
    errors_->add(where(key), path(key), what);
}

void config_reader::error_in(const std::string& section, const std::string& key,
                             const std::string& what) const {
    const config_node* sub = node_ && node_->is_map() ? node_->find(section) : nullptr;
    const config_node::entry* e = sub && sub->is_map() ? sub->find_entry(key) : nullptr;
    const origin where = e ? e->value.where() : sub ? sub->where() : this->where(section);
    errors_->add(where, path(section) + "." + key, what);
}

bool config_reader::has(const std::string& key) const {
    return node_ && node_->is_map() && node_->find(key);
}

const config_node* config_reader::raw(const std::string& key, bool required) {
    if (std::find(used_.begin(), used_.end(), key) == used_.end()) used_.push_back(key);
    const config_node* n = node_ && node_->is_map() ? node_->find(key) : nullptr;
    if (n && n->is_null()) n = nullptr;
    if (!n && required) error(key, "required key is missing");
    return n;
}

void config_reader::record(const std::string& key, const std::string& value) {
    if (resolved_) resolved_->set(key, config_node::make_scalar(value, {}));
}

std::string config_reader::text(const std::string& key, std::optional<std::string> def) {
    const config_node* n = raw(key, !def);
    if (!n) {
        if (def) record(key, *def);
        return def.value_or("");
    }
    if (!n->is_scalar()) {
        error(key, "expected a plain value, got a " + std::string(n->is_map() ? "map" : "list"));
        return def.value_or("");
    }
    record(key, n->scalar());
    return n->scalar();
}

std::string config_reader::choice(const std::string& key, const std::vector<std::string>& allowed,
                                  std::optional<std::string> def) {
    std::string v = text(key, def);
    if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
    if (!has(key) && !def) return v; // already reported as missing
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    error(key, "'" + v + "' is not one of: " + list);
    return def.value_or(allowed.front());
}

long long config_reader::integer(const std::string& key, std::optional<long long> def, long long min,
                                 long long max) {
    const config_node* n = raw(key, !def);
    if (!n) {
        if (def) record(key, std::to_string(*def));
        return def.value_or(min);
    }
    long long v = 0;
    std::size_t used = 0;
    bool too_large = false; // whole digits past 64 bits: a number, out of range
    try {
        v = n->is_scalar() ? std::stoll(n->scalar(), &used) : 0;
    } catch (const std::out_of_range&) {
        too_large = true;
    } catch (...) {
        used = 0;
    }
    if (too_large) {
        error(key, n->scalar() + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
        return def.value_or(min);
    }
    if (!n->is_scalar() || used != n->scalar().size() || n->scalar().empty()) {
        error(key, "expected a whole number, got '" +
                       (n->is_scalar() ? n->scalar() : std::string("a map or list")) + "'");
        return def.value_or(min);
    }
    if (v < min || v > max) {
        error(key, std::to_string(v) + " is out of range [" + std::to_string(min) + ", " +
                       std::to_string(max) + "]");
        return def.value_or(min);
    }
    record(key, n->scalar());
    return v;
}

double config_reader::number(const std::string& key, std::optional<double> def, double min, double max) {
    const config_node* n = raw(key, !def);
    if (!n) {
        if (def) record(key, number_text(*def));
        return def.value_or(min);
    }
    double v = 0;
    std::size_t used = 0;
    try {
        v = n->is_scalar() ? std::stod(n->scalar(), &used) : 0;
    } catch (...) {
        used = 0;
    }
    if (!n->is_scalar() || used != n->scalar().size() || !std::isfinite(v)) {
        error(key, "expected a number, got '" +
                       (n->is_scalar() ? n->scalar() : std::string("a map or list")) + "'");
        return def.value_or(min);
    }
    if (v < min || v > max) {
        error(key, n->scalar() + " is out of range [" + number_text(min) + ", " + number_text(max) + "]");
        return def.value_or(min);
    }
    record(key, n->scalar());
    return v;
}

bool config_reader::boolean(const std::string& key, std::optional<bool> def) {
    const config_node* n = raw(key, !def);
    if (!n) {
        if (def) record(key, *def ? "true" : "false");
        return def.value_or(false);
    }
    const std::string s = n->is_scalar() ? n->scalar() : "";
    if (s == "true" || s == "on" || s == "yes") return record(key, "true"), true;
    if (s == "false" || s == "off" || s == "no") return record(key, "false"), false;
    error(key, "expected true or false, got '" + s + "'");
    return def.value_or(false);
}

#define WARMSCHED_UNIT_READER(NAME, TYPE, PARSE, FORMAT)                                                     \
    TYPE config_reader::NAME(const std::string& key, std::optional<TYPE> def) {                              \
        const config_node* n = raw(key, !def);                                                               \
        if (!n) {                                                                                            \
            if (def) record(key, FORMAT(*def));                                                              \
            return def.value_or(TYPE{});                                                                     \
        }                                                                                                    \
        std::string why = "expected a plain value";                                                          \
        std::optional<TYPE> v = n->is_scalar() ? PARSE(n->scalar(), why) : std::nullopt;                     \
        if (!v) {                                                                                            \
            error(key, why);                                                                                 \
            return def.value_or(TYPE{});                                                                     \
        }                                                                                                    \
        record(key, n->scalar());                                                                            \
        return *v;                                                                                           \
    }

WARMSCHED_UNIT_READER(time_ps, double, parse_time_ps, format_time_ps)
WARMSCHED_UNIT_READER(latency, latency_value, parse_latency, format_latency)
WARMSCHED_UNIT_READER(frequency, double, parse_frequency, format_frequency)
WARMSCHED_UNIT_READER(bandwidth, double, parse_bandwidth, format_bandwidth)
#undef WARMSCHED_UNIT_READER

std::uint64_t config_reader::time_ns(const std::string& key, std::optional<std::uint64_t> def_ns) {
    const config_node* given = node_ && node_->is_map() ? node_->find(key) : nullptr;
    const double ps =
        time_ps(key, def_ns ? std::optional<double>(static_cast<double>(*def_ns) * 1000) : std::nullopt);
    if (given && given->is_scalar() && std::fmod(ps, 1000.0) != 0) {
        error(key, "'" + given->scalar() + "' is not a whole number of nanoseconds (the model's clock counts " +
                       "ns, as the kernel's does)");
        return def_ns.value_or(0);
    }
    return static_cast<std::uint64_t>(ps / 1000);
}

std::uint64_t config_reader::size(const std::string& key, std::optional<std::uint64_t> def,
                                  std::uint64_t min) {
    const config_node* n = raw(key, !def);
    if (!n) {
        if (def) record(key, format_size(*def));
        return def.value_or(0);
    }
    std::string why = "expected a plain value";
    std::optional<std::uint64_t> v = n->is_scalar() ? parse_size(n->scalar(), why) : std::nullopt;
    if (!v) {
        error(key, why);
        return def.value_or(0);
    }
    if (*v < min) {
        error(key, "'" + n->scalar() + "' is smaller than the minimum " + format_size(min));
        return def.value_or(0);
    }
    record(key, n->scalar());
    return *v;
}

std::vector<std::vector<double>> config_reader::matrix(const std::string& key) {
    std::vector<std::vector<double>> rows;
    const config_node* n = raw(key, false);
    if (!n) return rows;
    if (!n->is_sequence()) {
        error(key, "expected a list of rows");
        return rows;
    }
    config_node out = config_node::make_sequence({});
    for (const auto& row : n->items()) {
        if (!row.is_sequence()) {
            errors_->add(row.where(), path(key), "expected a row like [10, 32]");
            return {};
        }
        std::vector<double> r;
        config_node out_row = config_node::make_sequence({});
        for (const auto& cell : row.items()) {
            std::size_t used = 0;
            double v = 0;
            try {
                v = cell.is_scalar() ? std::stod(cell.scalar(), &used) : 0;
            } catch (...) {
                used = 0;
            }
            if (!cell.is_scalar() || used != cell.scalar().size()) {
                errors_->add(cell.where(), path(key), "expected a number in the table");
                return {};
            }
            r.push_back(v);
            out_row.push_back(config_node::make_scalar(cell.scalar(), {}));
        }
        rows.push_back(std::move(r));
        out.push_back(std::move(out_row));
    }
    if (resolved_) resolved_->set(key, std::move(out));
    return rows;
}

std::vector<std::string> config_reader::text_list(const std::string& key) {
    std::vector<std::string> out;
    const config_node* n = raw(key, false);
    if (!n) return out;
    if (n->is_scalar()) {
        out.push_back(n->scalar());
    } else if (n->is_sequence()) {
        for (const auto& item : n->items()) {
            if (!item.is_scalar()) {
                errors_->add(item.where(), path(key), "expected a list of plain values");
                return {};
            }
            out.push_back(item.scalar());
        }
    } else {
        error(key, "expected a list of plain values");
        return {};
    }
    if (resolved_) {
        config_node seq = config_node::make_sequence({});
        for (const auto& s : out) seq.push_back(config_node::make_scalar(s, {}));
        resolved_->set(key, std::move(seq));
    }
    return out;
}

config_reader config_reader::child(const std::string& key) {
    const config_node* n = raw(key, false);
    config_node* out = resolved_ ? &resolved_->set(key, config_node::make_map({})) : nullptr;
    return config_reader(n, path(key), *errors_, out, where(key));
}

std::vector<config_reader> config_reader::children(const std::string& key, bool required) {
    std::vector<config_reader> out;
    const config_node* n = raw(key, required);
    if (!n) return out;
    if (!n->is_sequence()) {
        error(key, "expected a list");
        return out;
    }
    config_node* seq = resolved_ ? &resolved_->set(key, config_node::make_sequence({})) : nullptr;
    for (std::size_t i = 0; i < n->items().size(); ++i) {
        config_node* slot = nullptr;
        if (seq) {
            seq->push_back(config_node::make_map({}));
            slot = &seq->items().back();
        }
        out.emplace_back(&n->items()[i], path(key) + "[" + std::to_string(i) + "]", *errors_, slot,
                         n->items()[i].where());
    }
    return out;
}

std::string nearest_spelling(const std::string& word, const std::vector<std::string>& candidates) {
    const auto lower = [](std::string s) {
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    const std::string w = lower(word);
    // A word the start of a key (base_slice for base_slice_ns): the shortest such key.
    std::string prefixed;
    if (w.size() >= 4)
        for (const auto& cand : candidates)
            if (lower(cand).rfind(w, 0) == 0 && (prefixed.empty() || cand.size() < prefixed.size())) prefixed = cand;
    if (!prefixed.empty()) return prefixed;
    const std::size_t allowed = w.size() >= 12 ? 3 : w.size() >= 5 ? 2 : 1;
    std::string best;
    std::size_t best_d = allowed + 1;
    for (const auto& cand : candidates) {
        const std::string c = lower(cand);
        // Optimal string alignment distance (Levenshtein with adjacent transpositions).
        std::vector<std::vector<std::size_t>> d(w.size() + 1, std::vector<std::size_t>(c.size() + 1));
        for (std::size_t i = 0; i <= w.size(); ++i) d[i][0] = i;
        for (std::size_t j = 0; j <= c.size(); ++j) d[0][j] = j;
        for (std::size_t i = 1; i <= w.size(); ++i)
            for (std::size_t j = 1; j <= c.size(); ++j) {
                d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (w[i - 1] != c[j - 1])});
                if (i > 1 && j > 1 && w[i - 1] == c[j - 2] && w[i - 2] == c[j - 1])
                    d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        if (d[w.size()][c.size()] < best_d) {
            best_d = d[w.size()][c.size()];
            best = cand;
        }
    }
    return best;
}

void config_reader::finish() {
    if (!node_ || !node_->is_map()) return;
    for (const auto& e : node_->entries()) {
        if (std::find(used_.begin(), used_.end(), e.key) != used_.end()) continue;
        std::string what = "unknown key";
        if (std::find(elsewhere_keys_.begin(), elsewhere_keys_.end(), e.key) != elsewhere_keys_.end())
            what += " here: it is a key of " + elsewhere_ + " (" + elsewhere_ + "." + e.key + ")";
        else if (const std::string near = nearest_spelling(e.key, used_); !near.empty())
            what += " (did you mean " + near + "?)";
        else if (!used_.empty() && used_.size() <= 64) { // a list one can read: name them
            std::vector<std::string> known = used_;
            std::sort(known.begin(), known.end());
            what += " (known here: ";
            for (std::size_t i = 0; i < known.size(); ++i) what += (i ? ", " : "") + known[i];
            what += ")";
        }
        errors_->add(e.key_where, path(e.key), what);
    }
}

} // namespace warmsched::config
