// One run of a sweep; see run_one.h.
#include "sim/sweep/run_one.h"

#include "platforms/config/config_error.h"
#include "sim/compare/run_metrics.h"
#include "sim/experiment.h"
#include "sim/results_dir.h"
#include "sim/sweep/sweep_db.h"
#include "workloads/cli/option_parser.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "sim/build_commit.h" // in the build directory: WARMSCHED_BUILD_COMMIT (sim/build_commit.cmake)

namespace fs = std::filesystem;

namespace warmsched::sim::sweep {

std::string build_commit() {
    return WARMSCHED_BUILD_COMMIT;
}

std::string database_path(const sweep_spec& spec) {
    return (fs::path(spec.out) / "results.db").string();
}

namespace {
std::string quoted(const std::string& w) {
    if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                          "-_./=:,+@%") == std::string::npos)
        return w;
    std::string q = "'";
    for (const char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string host_name() {
    char b[256] = {};
    if (::gethostname(b, sizeof b - 1) != 0) return "unknown";
    return b;
}
} // namespace

std::string equivalent_run_command(const sweep_spec& spec, const sweep_run& r) {
    std::string line = "warmsched run " + quoted(spec.experiment);
    for (const auto& o : r.overrides) line += " -p " + quoted(o);
    line += " --out " + quoted((fs::path(spec.out) / "runs" / r.id).string());
    if (!r.command.empty()) {
        line += " --";
        for (const auto& w : r.command) line += " " + quoted(w);
    }
    return line;
}

int run_one(const sweep_spec& spec, std::size_t index, std::ostream& out) {
    const std::vector<sweep_run> runs = spec.runs();
    if (index >= runs.size())
        throw config::config_error(std::vector<std::string>{
            "sweep: --run-index " + std::to_string(index) + " is outside the grid (0-" +
            std::to_string(runs.size() - 1) + ")"});
    const sweep_run& r = runs[index];
    const std::string db_file = database_path(spec);
    if (!fs::exists(db_file))
        throw config::config_error(std::vector<std::string>{
            "sweep: " + db_file + " does not exist; start the sweep with warmsched sweep " + spec.file});
    sweep_db db(db_file);
    // The file may have changed since the sweep started (a queued array task reads it when it starts).
    if (db.value("grid") != spec.canonical_text())
        throw config::config_error(std::vector<std::string>{
            "sweep: " + spec.file + " is not the grid " + db_file + " was started with; start it again with "
            "warmsched sweep (which says what differs)"});
    const std::string dir = (fs::path(spec.out) / "runs" / r.id).string();
    if (!db.claim(r.id, static_cast<long>(::getpid()), host_name(), equivalent_run_command(spec, r), build_commit(),
                  utc_now())) {
        out << r.id << ": already complete in " << dir << "\n";
        return 0;
    }
    std::error_code ec;
    fs::remove_all(dir, ec); // complete on disk but not in the database: its process died before the commit
    const auto t0 = std::chrono::steady_clock::now();
    int rc = 2;
    try {
        command_workload command;
        command.words = r.command;
        const experiment e = read_experiment(spec.experiment, r.overrides, command);
        rc = run_experiment(e, dir, out);
        out.flush();
        if (rc == 0) {
            run_result result;
            result.stats = read_stats_json((fs::path(dir) / "stats.json").string());
            result.metrics = read_run_metrics(dir);
            result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            result.finished = utc_now();
            db.complete(r.id, result);
            return 0;
        }
    } catch (const config::config_error& e) { // in the run's log: which run of which sweep
        db.fail(r.id, 2, utc_now());
        std::vector<std::string> lines;
        for (const auto& line : e.lines()) lines.push_back(describe_run(spec, r) + ": " + line);
        throw config::config_error(lines);
    } catch (const workloads::usage_error& e) {
        db.fail(r.id, 2, utc_now());
        const std::string what = e.what();
        throw config::config_error(std::vector<std::string>{describe_run(spec, r) + ": " + what.substr(0, what.find('\n'))});
    }
    db.fail(r.id, rc, utc_now());
    return rc;
}

} // namespace warmsched::sim::sweep
