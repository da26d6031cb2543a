// stats.txt and stats.json from the registry; see stats_writers.h.
#include "base/stats/stats_writers.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace warmsched::stats {

void write_text(std::ostream& out, const group& root) {
    out << "\n---------- Begin Simulation Statistics ----------\n";
    char b[1024];
    for (const auto& [name, s] : root.flatten()) {
        const std::string desc = s->description + " (" + to_string(s->u) + ")";
        if (const auto* i = std::get_if<std::uint64_t>(&s->value))
            std::snprintf(b, sizeof b, "%-40s %14llu   # %s\n", name.c_str(),
                          static_cast<unsigned long long>(*i), desc.c_str());
        else
            std::snprintf(b, sizeof b, "%-40s %14.6g   # %s\n", name.c_str(), std::get<double>(s->value),
                          desc.c_str());
        out << b;
    }
    out << "\n---------- End Simulation Statistics   ----------\n";
}

void write_json(std::ostream& out, const group& root, const nlohmann::ordered_json& run) {
    // One stat a line (grep finds a stat with its value), each value and string dumped by nlohmann::json:
    // integers exact, doubles at full round-trip precision, strings escaped.
    using nlohmann::json;
    const auto all = root.flatten();
    out << "{\n";
    if (!run.is_null()) out << "  \"run\": " << run.dump() << ",\n";
    out << "  \"simulation\": [\n   {\n";
    for (std::size_t i = 0; i < all.size(); ++i) {
        const scalar& s = *all[i].stat;
        json v; // null unless finite
        if (const auto* n = std::get_if<std::uint64_t>(&s.value))
            v = *n;
        else if (std::isfinite(std::get<double>(s.value)))
            v = std::get<double>(s.value);
        out << "    " << json(all[i].full_name).dump() << ": {\"value\": " << v.dump()
            << ", \"description\": " << json(s.description).dump()
            << ", \"unit\": " << json(to_string(s.u)).dump() << "}" << (i + 1 < all.size() ? ",\n" : "\n");
    }
    out << "   }\n  ]\n}\n";
}

} // namespace warmsched::stats
