// The stats time series; see stats_series.h.
#include "base/stats/stats_series.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace warmsched::stats {

void series::add_row(double start_s, double end_s, const group& period) {
    row r{start_s, end_s, {}};
    r.values.resize(columns_.size());
    for (const auto& [name, s] : period.flatten()) {
        auto [it, added] = column_of_.emplace(name, columns_.size());
        if (added) {
            columns_.push_back({name, s->k});
            r.values.emplace_back();
        }
        r.values[it->second] = s->value;
    }
    rows_.push_back(std::move(r));
}

namespace {
// A CSV field: the name quoted only where CSV needs it.
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}
std::string number(double v) {
    if (!std::isfinite(v)) return ""; // NaN or infinity: no value, as stats.json's null
    return nlohmann::json(v).dump();  // shortest text that reads back as the same double
}
} // namespace

void series::write_csv(std::ostream& out) const {
    out << "start_s,end_s";
    for (const column& c : columns_) out << ',' << csv_field(c.name);
    out << '\n';
    for (const row& r : rows_) {
        out << number(r.start_s) << ',' << number(r.end_s);
        for (std::size_t i = 0; i < columns_.size(); ++i) {
            out << ',';
            if (i >= r.values.size() || !r.values[i]) { // the stat did not exist in this period
                if (columns_[i].k == kind::total) out << '0';
            } else if (const auto* n = std::get_if<std::uint64_t>(&*r.values[i])) {
                out << *n;
            } else {
                out << number(std::get<double>(*r.values[i]));
            }
        }
        out << '\n';
    }
}

} // namespace warmsched::stats
