// A sweep file (`warmsched sweep SWEEP.yaml`): the experiment every run starts from, the workload
// command line (with `{name}` placeholders filled from axes), the axes of the grid (each a list of
// values for an override key -- platform, kernel.version, kernel.features.X, any dotted key -- or for a
// placeholder of the command), fixed overrides, the seeds, and the sweep directory. The grid is the
// cartesian product of the axes, the first axis varying slowest; each point runs once per seed. Run
// `p0003-s2` is point 3 with seed 2, written to SWEEPDIR/runs/p0003-s2/.
// Left out: axes that vary together (zip), conditional points and quoting inside `command:` (words are
// split at blanks).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warmsched::sim::sweep {

struct sweep_axis {
    std::string name;                // an override key, or a placeholder of `command`
    std::vector<std::string> values; // in file order
    bool placeholder = false;        // `{name}` appears in command: substituted there, not an override
};

// One run of the grid: a point and a seed.
struct sweep_run {
    std::size_t index = 0; // 0..runs-1: the Slurm array index and `--run-index`
    std::size_t point = 0;
    std::uint64_t seed = 1;
    std::string id;                                        // "p0003-s2"
    std::vector<std::pair<std::string, std::string>> axis; // this point's value of each axis
    std::vector<std::string> overrides;                    // -p key=value, seed included
    std::vector<std::string> command;                      // workload words (empty: the experiment's)
};

// The most runs (points x seeds) a sweep may have. Before the first run starts, the grid is expanded in
// memory (about 0.9 KB a run: a million took 9 s and 900 MB) and every run's configuration is read
// (about 5 ms each), so 100,000 runs are 90 MB and some 8 minutes of checks; each then gets a row of
// results.db and a directory under runs/. A grid of 10^9 runs was expanded until bad_alloc.
constexpr std::uint64_t max_sweep_runs = 100'000;

struct sweep_spec {
    std::string file;       // the sweep file, absolute
    std::string experiment; // absolute path
    std::string command;    // "" = the experiment's workloads
    std::vector<sweep_axis> axes;
    std::vector<std::pair<std::string, std::string>> params; // fixed overrides of every run
    std::vector<std::uint64_t> seeds{1};
    std::string out; // the sweep directory, absolute

    std::size_t points() const;
    std::vector<sweep_run> runs() const; // points() * seeds.size() runs, index order
    // The grid as text, one fact per line: equal text, equal runs. Stored in the database so that a
    // different sweep is refused in the same directory.
    std::string canonical_text() const;
};

// Reads and checks the file with the project's strict reader: an unknown key, a wrong type, an empty
// axis, a placeholder of `command` without an axis, or `seed` as an axis is a config_error (one line
// each). `out_override` (the command line's --out) replaces `out:`; without either, the sweep
// directory is the file's name without .yaml next to it.
sweep_spec read_sweep_spec(const std::string& path, const std::string& out_override = "");

// "p0003-s2".
std::string run_id(std::size_t point, std::uint64_t seed);

// What an error about one run starts with: the sweep file and the point,
// "/x/sweep.yaml: run p0001-s1 (g=x seed=1)".
std::string describe_run(const sweep_spec& spec, const sweep_run& r);

} // namespace warmsched::sim::sweep
