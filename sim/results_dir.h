// A run's results directory, written whole or not at all. Before the run: the directory given with --out
// must be absent or empty (or `replace`: --force, then its old contents go at the end), and a sibling
// DIR.partial-<pid> is created, which proves the place writable before any simulated second is spent on
// it (/proc/x, a path below a regular file, no permission: one line naming --out). Every file goes into
// the partial directory; commit() renames it to DIR, so a run killed while writing leaves only a
// DIR.partial-<pid> that compare and plot refuse, never a DIR that looks complete. Without commit(),
// the destructor removes the partial directory (a run that failed writes nothing).
// Left out: removing the partial directory of a process killed by a signal (its name says what it is;
// `run --repeat` cleans up after its children, repeated_runs.h).
#pragma once

#include <string>

namespace warmsched::sim {

class results_dir {
public:
    // `option` names the flag in messages ("--out"). Throws config_error.
    results_dir(std::string dir, bool replace, std::string option = "--out");
    ~results_dir();
    results_dir(const results_dir&) = delete;
    results_dir& operator=(const results_dir&) = delete;

    const std::string& writing() const { return partial_; } // where the files go until commit()
    const std::string& final() const { return dir_; }
    void commit(); // throws config_error when the rename fails

    // The checks alone (absent or empty, or `replace`), for a caller that makes the directory itself.
    static void check_usable(const std::string& dir, bool replace, const std::string& option);

private:
    std::string dir_, partial_, option_;
    bool replace_, committed_ = false;
};

// "DIR.partial-123": a results directory whose run did not finish writing it.
bool is_partial_results_name(const std::string& dir);

} // namespace warmsched::sim
