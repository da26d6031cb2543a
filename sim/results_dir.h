// A run's results directory, written whole or not at all, and never at the cost of a user's other files.
//
// Before the run: the directory given with --out must be absent or empty, or -- `replace`, --force -- a
// results directory that warmsched wrote (it holds manifest.txt). --force never replaces `/`, the current
// directory or one of its ancestors, nor a directory that holds one of the run's inputs (the experiment,
// the platform, an include, an rt-app file, a policy: base::input_files_read()). A sibling
// DIR.partial-<pid> is created, which proves the place writable before any simulated second is spent on it
// (/proc/x, a path below a regular file, no permission: one line naming --out).
//
// Every file goes into the partial directory, each written checked (base/files/output_file.h). commit()
// writes manifest.txt last -- every file of the directory with its size -- and moves the partial directory
// into place under a lock on the parent directory: DIR must still be what it was when the run started (absent,
// or the same directory), so of two runs into one --out the second keeps its results in its partial
// directory and says so (exit 1), instead of replacing the first's or failing after deleting them. A
// replaced directory is renamed aside (DIR.replaced-<pid>) and deleted only once the new one is in place.
// Without commit(), the destructor removes the partial directory (a run that failed writes nothing); a
// commit that could not move the results keeps it and names it.
//
// The manifest is also what `--resume` and `compare` check a directory against (results_problem()).
// Left out: removing the partial directory of a process killed by a signal (its name says what it is;
// `run --repeat` cleans up after its children, repeated_runs.h); fsync (a power cut is not a full disk).
#pragma once

#include "base/files/output_file.h"

#include <sys/types.h>

#include <string>

namespace warmsched::sim {

// The file that marks a complete results directory and lists its files.
constexpr const char* results_manifest = "manifest.txt";

class results_dir {
public:
    // `option` names the flag in messages ("--out"). Throws config_error.
    results_dir(std::string dir, bool replace, std::string option = "--out");
    ~results_dir();
    results_dir(const results_dir&) = delete;
    results_dir& operator=(const results_dir&) = delete;

    const std::string& writing() const { return partial_; } // where the files go until commit()
    const std::string& final() const { return dir_; }
    // Writes the manifest and moves the directory into place. Throws base::write_error (the disk, or another
    // run took DIR: the partial directory is kept and named) or config_error (--force found one of the
    // run's inputs in DIR only now).
    void commit();
    // Runs `write` (the writers of the run's files) and turns a write error in the partial directory into one
    // told of DIR: "--out DIR: stats.json: No space left on device (nothing of this run was kept)".
    template <class F> void write_files(F&& write) {
        try {
            write();
        } catch (const base::write_error& e) {
            write_failed(e);
        }
    }

    // The checks alone (absent or empty, or `replace`: see above), for a caller that makes the directory
    // itself. Throws config_error.
    static void check_usable(const std::string& dir, bool replace, const std::string& option);

private:
    struct identity {
        bool exists = false;
        dev_t dev = 0;
        ino_t ino = 0;
        bool operator==(const identity& o) const {
            return exists == o.exists && (!exists || (dev == o.dev && ino == o.ino));
        }
    };
    static identity identity_of(const std::string& path);
    [[noreturn]] void keep_partial_and_fail(const std::string& why);
    [[noreturn]] void write_failed(const base::write_error& e) const;

    std::string dir_;     // as given (messages)
    std::string path_;    // absolute, its parent resolved (what is renamed)
    std::string partial_, option_;
    identity at_start_;
    bool replace_, committed_ = false, keep_partial_ = false;
};

// "DIR.partial-123": a results directory whose run did not finish writing it.
bool is_partial_results_name(const std::string& dir);

// Writes DIR/manifest.txt: every regular file below DIR with its size. Throws base::write_error.
void write_results_manifest(const std::string& dir);
// Whether DIR holds a manifest.txt that warmsched wrote (it may still be damaged: results_problem()).
bool has_results_manifest(const std::string& dir);
// "" when every file DIR's manifest lists is there with its size; else what is wrong, e.g. "stats.json is
// 16384 bytes, manifest.txt says 20480", "report.json is missing", "no manifest.txt".
std::string results_problem(const std::string& dir);

} // namespace warmsched::sim
