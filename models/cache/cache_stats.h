// Counters kept by every cache level (plain integers on the hot path; ratios are computed when stats are
// written). Names follow gem5's cache statistics where one exists.
#pragma once

#include "base/stats/stats_group.h"

#include <cstdint>

namespace warmsched::models {

struct cache_stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t upgrades = 0;      // writes to a line held shared
    std::uint64_t evictions = 0;     // lines replaced
    std::uint64_t writebacks = 0;    // dirty lines written to the level below
    std::uint64_t snoops = 0;        // snoops received
    std::uint64_t invalidations = 0; // lines removed by a snoop or a back-invalidation
    std::uint64_t peer_supplies = 0; // shared level: misses served by another core's private cache
    std::uint64_t victim_fills = 0;  // shared level: lines inserted by an eviction from above
};

// The counters into a cache's stats group (system.core3.l2, system.llc0), with hits + misses as
// `accesses`; the shared-level counters only for a shared level.
void add_stats(stats::group& g, const cache_stats& s, bool shared_level);

} // namespace warmsched::models
