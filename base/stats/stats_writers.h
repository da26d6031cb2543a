// The writers of the stats registry: stats.txt in gem5's text layout (one block between the Begin/End
// markers, `name value # description (Unit)`, the name padded to 40 columns; integers printed exactly,
// real values with 6 significant digits) and stats.json with the same stats in the same order, values as
// JSON numbers at full precision (integers exact; NaN and infinities, which JSON cannot spell, as null).
// stats.json: {"simulation": [{"<full name>": {"value": v, "description": "...", "unit": "Count"}, ...}]},
// one stat a line.
#pragma once

#include "base/stats/stats_group.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace warmsched::stats {

void write_text(std::ostream& out, const group& root);
// `run`, when not null, goes first as {"run": {...}, "simulation": [...]}: the run's provenance.
void write_json(std::ostream& out, const group& root, const nlohmann::ordered_json& run = nullptr);

} // namespace warmsched::stats
