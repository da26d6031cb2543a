// stats.json: the content of stats.txt (gem5's text layout: `name value # description (Unit)`) as JSON,
// for scripts that would rather not parse text. One object per simulation block, keyed by the full
// dotted stat name in file order, each {"value", "description", "unit"}; gem5's own JSON stats
// nest groups, which is left out (the dotted name carries the hierarchy).
#pragma once

#include <ostream>
#include <string>

namespace warmsched::sim {

// Converts the text of a stats.txt file; lines that are not stats (block markers, blanks) are skipped.
void write_stats_json(std::ostream& out, const std::string& stats_txt);

} // namespace warmsched::sim
