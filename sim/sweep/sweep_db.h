// SWEEPDIR/results.db: a sweep's runs, their parameters, provenance, stats and metrics in SQLite, one
// table per kind (schema in docs/outputs.md, "A sweep's database"):
//   sweep(key, value)                  the grid's canonical text ('grid'), the Slurm job in flight
//   runs(id, run_index, point, seed, status, dir, command_line, build_commit, host, pid, exit_status,
//        wall_s, started, finished, attempts, stats_rows, metrics_rows)
//                                      status: pending | running | complete | failed; *_rows: the rows
//                                      a complete run has in stats and metrics, to find deleted ones
//   params(run_id, key, value)         every override of the run (its axes, params:, seed)
//   stats(run_id, name, value)         every stat of the run's stats.json
//   metrics(run_id, name, value)       what `warmsched compare` reads (workload metrics, key counters)
// A run becomes complete in one transaction together with its stats and metrics, and only after its
// results directory was renamed into place: a row that says complete has everything, and nothing else
// is counted. WAL journal and a busy timeout let the runs of a pool or a job array write at once.
// Left out: stats' units and descriptions (they are in each run's stats.json), and the results' files.
#pragma once

#include "sim/compare/run_metrics.h"
#include "sim/sweep/sweep_spec.h"

#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace warmsched::sim::sweep {

struct run_row {
    std::string id;
    std::size_t index = 0, point = 0;
    std::uint64_t seed = 0;
    std::string status, host, dir;
    long pid = 0;
};

// What a finished run adds to its row.
struct run_result {
    run_metrics stats, metrics;
    double wall_s = 0;
    std::string finished; // UTC, ISO 8601
};

class sweep_db {
public:
    // Opens (creating) the database and its tables. Throws config_error naming the file on failure.
    explicit sweep_db(const std::string& path);
    ~sweep_db();
    sweep_db(const sweep_db&) = delete;
    sweep_db& operator=(const sweep_db&) = delete;

    // Stores the grid's text on first use; throws config_error (one line) when the database holds
    // another grid.
    void adopt_grid(const std::string& canonical_text, const std::string& sweep_dir);
    // Adds the runs not yet in the database as pending, with their params.
    void add_runs(const std::vector<sweep_run>& runs, const std::string& sweep_dir);

    // Marks a run running by this process (pid, host, command line, start time), unless it is complete:
    // then returns false and changes nothing.
    bool claim(const std::string& id, long pid, const std::string& host, const std::string& command_line,
               const std::string& build_commit, const std::string& started);
    void complete(const std::string& id, const run_result& r);
    void fail(const std::string& id, int exit_status, const std::string& finished);
    void reset_to_pending(const std::string& id);

    // Runs marked complete whose stats or metrics rows are not all there (deleted by hand, or a damaged
    // database): what is missing, e.g. "3 of its 412 stats rows are missing". redo() makes one pending
    // again, without its remaining rows.
    struct damaged_run {
        std::string id, what;
    };
    std::vector<damaged_run> damaged_runs();
    void redo(const std::string& id);

    std::vector<run_row> rows();
    std::optional<std::string> value(const std::string& key);
    void set_value(const std::string& key, const std::string& value);
    void erase_value(const std::string& key);

    // metric -> values of the complete runs of each point, points in order; `labels` gets each point's
    // axis values ("kernel.version=cfs hackbench_g=2").
    struct point_samples {
        std::size_t point = 0;
        std::string label;                                     // "kernel.version=cfs g=2"
        std::vector<std::pair<std::string, std::string>> axes; // the same, as keys and values
        std::vector<std::pair<std::string, std::vector<double>>> metrics; // first-seen order
    };
    std::vector<point_samples> complete_metrics();
    // How many runs the grid has, and how many are complete.
    std::pair<std::size_t, std::size_t> run_counts();
    // How many runs are pending, running, complete and failed (a Slurm array's progress).
    struct status_counts {
        std::size_t pending = 0, running = 0, complete = 0, failed = 0;
        bool operator==(const status_counts& o) const {
            return pending == o.pending && running == o.running && complete == o.complete && failed == o.failed;
        }
    };
    status_counts counts_by_status();

    // Runs `sql` with no result rows; throws config_error on failure.
    void exec(const std::string& sql);

private:
    sqlite3* db_ = nullptr;
    std::string path_;
};

// The current UTC time, ISO 8601 ("2026-12-03T13:40:00Z").
std::string utc_now();

} // namespace warmsched::sim::sweep
