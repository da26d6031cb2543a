// The Slurm job-array executor; see slurm_executor.h.
#include "sim/sweep/slurm_executor.h"

#include "platforms/config/config_error.h"
#include "sim/child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

namespace fs = std::filesystem;

namespace warmsched::sim::sweep {

namespace {
[[noreturn]] void fail(const std::string& what) {
    throw config::config_error(std::vector<std::string>{what});
}

std::string quoted(const std::string& w) {
    std::string q = "'";
    for (const char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs a shell command line; returns its exit status and stdout.
std::pair<int, std::string> capture(const std::string& cmd) {
    std::string text;
    FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return {127, ""};
    std::array<char, 4096> buf;
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) text.append(buf.data(), n);
    const int st = ::pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : 128, text};
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

// A tool's messages on one line (errors are one line each).
std::string one_line(const std::string& text) {
    std::string s = trimmed(text);
    for (std::size_t at; (at = s.find('\n')) != std::string::npos;) s.replace(at, 1, "; ");
    return s;
}

// True while the job (or any task of its array) is in squeue. squeue failing for another reason than
// an unknown job (the controller restarting, a timeout) is asked again: taking the job for gone would
// let the next start resubmit runs the job may still be making.
bool job_in_queue(const std::string& job) {
    for (int attempt = 0;; ++attempt) {
        const auto [rc, text] = capture("squeue -h -j " + job + " -o %i");
        if (rc == 0) return !trimmed(text).empty();
        if (text.find("Invalid job id") != std::string::npos) return false; // left the controller's memory
        if (attempt >= 60 || text.find("fatal:") != std::string::npos) // no cluster configuration
            fail("sweep: squeue keeps failing for job " + job + ": " + one_line(text));
        std::this_thread::sleep_for(std::chrono::seconds(5));
    }
}

// Waits while the job is in the queue. With a database, prints the array's progress as its runs report
// it (pending / running / complete / failed) each time it changes.
void wait_for(const std::string& job, double poll_s, sweep_db* db = nullptr, std::ostream* out = nullptr) {
    sweep_db::status_counts shown{~std::size_t{0}, 0, 0, 0};
    while (job_in_queue(job)) {
        if (db && out) {
            const sweep_db::status_counts c = db->counts_by_status();
            if (!(c == shown)) {
                *out << "job " << job << ": " << c.pending << " pending, " << c.running << " running, " << c.complete
                     << " complete, " << c.failed << " failed\n";
                out->flush();
                shown = c;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long>(poll_s * 1000)));
    }
}
} // namespace

std::string array_ranges(const std::vector<std::size_t>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
        s += (s.empty() ? "" : ",") + std::to_string(v[i]) + (j > i ? "-" + std::to_string(v[j]) : "");
        i = j + 1;
    }
    return s;
}

int run_slurm(sweep_session& session, const slurm_options& o, std::ostream& out) {
    const sweep_spec& spec = session.spec();
    sweep_db& db = session.db();
    if (const auto earlier = db.value("slurm_job")) {
        if (job_in_queue(*earlier)) {
            out << "sweep " << spec.out << ": job " << *earlier
                << " of an earlier start is still in the queue; waiting for it\n";
            out.flush();
            wait_for(*earlier, o.poll_s);
        }
        db.erase_value("slurm_job");
    }
    session.recover(); // no task of ours is in flight any more: a row still `running` lost its process
    const std::vector<sweep_run> todo = session.pending();
    if (todo.empty()) return session.summary(out);

    const fs::path slurm_dir = fs::path(spec.out) / "slurm";
    std::error_code ec;
    fs::create_directories(slurm_dir, ec);
    if (ec) fail("sweep: " + slurm_dir.string() + ": cannot be written: " + ec.message());
    std::vector<std::size_t> indices;
    for (const auto& r : todo) indices.push_back(r.index);
    const fs::path script = slurm_dir / "job.sh";
    {
        std::ofstream f(script);
        f << "#!/bin/sh\n"
          << "# warmsched sweep " << spec.file << ": the runs not yet complete, one array task each\n"
          << "#SBATCH --job-name=warmsched-sweep\n"
          << "#SBATCH --array=" << array_ranges(indices) << "\n"
          << "#SBATCH --ntasks=1\n"
          << "#SBATCH --cpus-per-task=1\n"
          << "#SBATCH --output=" << (slurm_dir / "%A_%a.out").string() << "\n"
          << "#SBATCH --chdir=" << spec.out << "\n";
        for (const auto& a : o.sbatch_args) f << "#SBATCH " << a << "\n";
        f << "exec " << quoted(self_binary()) << " sweep " << quoted(spec.file) << " --out " << quoted(spec.out)
          << " --run-index \"$SLURM_ARRAY_TASK_ID\"\n";
        f.close();
        if (!f) fail("sweep: " + script.string() + ": cannot be written");
    }
    fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read, ec);
    const auto [rc, text] = capture("sbatch --parsable " + quoted(script.string()));
    const std::string job = trimmed(text).substr(0, trimmed(text).find(';'));
    if (rc != 0 || job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
        fail("sweep: sbatch failed (exit " + std::to_string(rc) + "): " + one_line(text));
    db.set_value("slurm_job", job);
    out << "sweep " << spec.out << ": submitted job " << job << " (" << todo.size() << " of "
        << session.runs().size() << " runs, array " << array_ranges(indices) << "), script " << script.string()
        << "\n";
    out.flush();
    if (!o.wait) return 0;
    wait_for(job, o.poll_s, &db, &out);
    db.erase_value("slurm_job");
    return session.summary(out);
}

} // namespace warmsched::sim::sweep
