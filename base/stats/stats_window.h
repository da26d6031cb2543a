// The stats of a measurement window, as gem5's `m5 resetstats` gives them but without resetting anything:
// the registry is filled twice, when the window opens (after a run's warm-up) and when the run ends, and
// the window's registry is the difference. A total (stats_group.h's kind) is end minus start; a stat or
// group that did not exist yet when the window opened (a CPU's first migration of a kind, a group added
// later) counts from 0; a level keeps its value at the end. What existed only at the start is left out.
// Integers stay exact. A total that went down is our bug (std::logic_error): every total is a counter.
#pragma once

#include "base/stats/stats_group.h"

namespace warmsched::stats {

// `end` minus `start` into `out` (empty, or a group the caller adds to), in end's order.
void add_window(group& out, const group& end, const group& start);

} // namespace warmsched::stats
