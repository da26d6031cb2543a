// How much host-side work the hardware model did, for the benchmarks (bench/, docs/performance.md):
// the simulated accesses that entered the hierarchy and the host structures they visited, by kind.
// Counted always (one add per visit) and never part of a run's stats: the figures describe the
// simulator, not the simulated machine. machine::visits() sums them over every model.
#pragma once

#include <cstdint>
#include <string>

namespace warmsched::models {

struct host_visits {
    std::uint64_t accesses = 0;       // simulated accesses sent into a core (set sampling's skipped ones not)
    std::uint64_t l1_misses = 0;      // of those, the ones L1 did not serve alone
    std::uint64_t tag_sets = 0;       // set scans of a tag array (a lookup, an insert, an invalidation)
    std::uint64_t line_records = 0;   // lookups in a per-line table (snoop filter, directory, page map)
    std::uint64_t link_buckets = 0;   // bandwidth reservations on a fabric link or a memory channel
    std::uint64_t observer_calls = 0; // calls into the access observer (the migration-cost tracker)

    host_visits since(const host_visits& before) const {
        return {accesses - before.accesses,         l1_misses - before.l1_misses,
                tag_sets - before.tag_sets,         line_records - before.line_records,
                link_buckets - before.link_buckets, observer_calls - before.observer_calls};
    }
    // "per simulated access: 1.25 tag sets, 0.50 line records, 0.00 link buckets, 0.25 observer calls
    // ; 0.25 left L1"
    std::string per_access() const;
};

} // namespace warmsched::models
