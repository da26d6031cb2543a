// The cost-of-migration report, printed after the run summary of every workload run and written to
// report.txt and stats.txt: per class of migration (cause x distance) the count and the refill that
// followed -- the lines the task had in its previous CPU's caches and fetched again, by where they came
// from, and their latency -- and the cost of stacking (lines a co-scheduled task evicted, fetched
// again). The counts come from workloads/kernel/migration_cost, which tracks line ownership in the model.
#pragma once

#include "workloads/kernel/migration_cost.h"

#include <ostream>

namespace warmsched::sim {

// Deterministic: the same configuration and seed print the same bytes.
void print_migration_report(std::ostream& out, const workloads::migration_cost& c);
// gem5-style lines (kernel.migrationCost.<cause>.<distance>.*, kernel.stacking.*), for stats.txt.
void write_migration_stats(std::ostream& out, const workloads::migration_cost& c);

} // namespace warmsched::sim
