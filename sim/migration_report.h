// The cost-of-migration report, printed after the run summary of every workload run and written to
// report.txt, stats.txt and migration_report.json: per class of migration (cause x distance) the count and
// the refill that followed -- the lines the task had in its previous CPU's caches and fetched again, by where
// they came from, and their latency -- and the cost of stacking (lines a co-scheduled task evicted, fetched
// again). The counts come from workloads/kernel/migration_cost, which tracks line ownership in the model.
#pragma once

#include "base/stats/stats_group.h"
#include "workloads/kernel/migration_cost.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace warmsched::sim {

// The tracker's stats, into the kernel's group: kernel.migrationCost.<cause>.<distance>.* (the classes
// with a migration or a refill), kernel.stacking.*.
void add_migration_stats(stats::group& kernel, const workloads::migration_cost& c);
// The report, read from those stats (`kernel` is the registry's kernel group). Deterministic: the same
// configuration and seed print the same bytes.
void print_migration_report(std::ostream& out, const stats::group& kernel);
// The same report as JSON (migration_report.json): the classes the text prints, each with its count and
// refill misses by origin and stall (us), the total, the unattributed misses and the stacking cost.
void write_migration_report_json(std::ostream& out, const stats::group& kernel,
                                 const nlohmann::ordered_json& run = nullptr); // run: the provenance, first

} // namespace warmsched::sim
