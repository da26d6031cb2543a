// What every start of `warmsched sweep` does before and after its executor runs the grid: it takes
// SWEEPDIR/sweep.lock (one sweep process per directory; the kernel drops the lock of a killed process),
// checks every run's configuration (all errors before any run starts), opens results.db, refuses a
// directory that holds another grid, adds the grid's runs as pending, and recovers what a killed start
// left: `running` rows whose process is gone and `failed` rows go back to pending, and partial results
// directories (runs/<id>.partial-<pid>) are removed. At the end it prints how many runs are complete.
// Left out: locking across hosts (flock on a network file system is only as good as the file system's).
#pragma once

#include "sim/sweep/sweep_db.h"
#include "sim/sweep/sweep_spec.h"

#include <memory>
#include <ostream>
#include <vector>

namespace warmsched::sim::sweep {

class sweep_session {
public:
    // Throws config_error (one line) for a bad configuration, another grid, or a directory in use.
    explicit sweep_session(const sweep_spec& spec);
    ~sweep_session();
    sweep_session(const sweep_session&) = delete;
    sweep_session& operator=(const sweep_session&) = delete;

    // Rows `running` with no live process (waits a few seconds for the children of a killed start to
    // die), `failed` rows, and `complete` rows whose stats or metrics rows are missing in results.db
    // (said on stderr) become pending; partial directories go. Call once no run of an earlier
    // start can still be in flight (the local pool's children die with it; a Slurm job is waited for).
    void recover();
    // The runs still to do (pending), index order.
    std::vector<sweep_run> pending();
    // "sweep DIR: 8 runs, 8 complete" (and the failed and missing ones); returns 0 when all are complete.
    int summary(std::ostream& out);

    sweep_db& db() { return *db_; }
    const sweep_spec& spec() const { return spec_; }
    const std::vector<sweep_run>& runs() const { return runs_; }

private:
    sweep_spec spec_;
    std::vector<sweep_run> runs_;
    int lock_fd_ = -1;
    std::unique_ptr<sweep_db> db_;
};

} // namespace warmsched::sim::sweep
