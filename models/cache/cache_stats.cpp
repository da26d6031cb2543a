// A cache level's stats group; see cache_stats.h.
#include "models/cache/cache_stats.h"

namespace warmsched::models {

void add_stats(stats::group& g, const cache_stats& s, bool shared_level) {
    using stats::unit;
    g.add("accesses", s.hits + s.misses, unit::count, "lookups (hits and misses)");
    g.add("hits", s.hits, unit::count, "lookups that found the line");
    g.add("misses", s.misses, unit::count, "lookups that went to the level below");
    g.add("upgrades", s.upgrades, unit::count, "writes to a line held shared (an upgrade request)");
    g.add("evictions", s.evictions, unit::count, "lines replaced for room");
    g.add("writebacks", s.writebacks, unit::count, "dirty lines written to the level below");
    g.add("snoops", s.snoops, unit::count, "snoops received");
    g.add("invalidations", s.invalidations, unit::count, "lines removed by a snoop or a back-invalidation");
    if (shared_level) {
        g.add("peerSupplies", s.peer_supplies, unit::count, "misses served by another core's private cache");
        g.add("victimFills", s.victim_fills, unit::count, "lines inserted by an eviction from above");
    }
}

} // namespace warmsched::models
