// The start and end of every `warmsched sweep`; see sweep_session.h.
#include "sim/sweep/sweep_session.h"

#include "platforms/config/config_error.h"
#include "sim/experiment.h"
#include "sim/results_dir.h"
#include "sim/sweep/run_one.h"
#include "workloads/cli/option_parser.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

namespace fs = std::filesystem;

namespace warmsched::sim::sweep {

namespace {
[[noreturn]] void fail(const std::string& what) {
    throw config::config_error(std::vector<std::string>{what});
}

std::string this_host() {
    char b[256] = {};
    if (::gethostname(b, sizeof b - 1) != 0) return "unknown";
    return b;
}

// Alive and not a zombie (an orphan's zombie stays until init reaps it, in a container perhaps never).
bool process_alive(long pid) {
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)) return false;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    const std::size_t close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() || text[close + 2] != 'Z';
}
} // namespace

sweep_session::sweep_session(const sweep_spec& spec) : spec_(spec), runs_(spec.runs()) {
    // Every run's configuration is read before anything is written: errors come all at once.
    config::error_list errors;
    // Each line names the sweep file and the point (its axis values), then what the run's reader says.
    auto point_of = [&](const sweep_run& r) { return describe_run(spec_, r) + ": "; };
    for (const auto& r : runs_) {
        try {
            command_workload command;
            command.words = r.command;
            read_experiment(spec_.experiment, r.overrides, command);
        } catch (const config::config_error& e) {
            for (const auto& line : e.lines()) errors.add_line(point_of(r) + line);
            break; // one run's errors are usually every run's
        } catch (const workloads::usage_error& e) { // the tool's own message: its first line
            const std::string what = e.what();
            errors.add_line(point_of(r) + what.substr(0, what.find('\n')));
            break;
        }
    }
    errors.throw_if_any();
    std::error_code ec;
    fs::create_directories(fs::path(spec_.out) / "runs", ec);
    if (ec) fail("sweep: " + spec_.out + ": cannot be written: " + ec.message());
    const std::string lock = (fs::path(spec_.out) / "sweep.lock").string();
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) fail("sweep: " + lock + ": cannot be opened");
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0)
        fail("sweep: another warmsched sweep is running in " + spec_.out + " (it holds sweep.lock)");
    db_ = std::make_unique<sweep_db>(database_path(spec_));
    db_->adopt_grid(spec_.canonical_text(), spec_.out);
    db_->add_runs(runs_, spec_.out);
}

sweep_session::~sweep_session() {
    db_.reset();
    if (lock_fd_ >= 0) ::close(lock_fd_);
}

void sweep_session::recover() {
    // A run marked complete whose stats rows are gone is run again, and the user is told.
    for (const auto& d : db_->damaged_runs()) {
        std::cerr << "warning: sweep: " << database_path(spec_) << ": run " << d.id << " is marked complete but "
                  << d.what << ": running it again\n";
        db_->redo(d.id);
    }
    const std::string here = this_host();
    for (int attempt = 0;; ++attempt) {
        bool waiting = false;
        for (const auto& row : db_->rows()) {
            if (row.status == "failed") db_->reset_to_pending(row.id);
            if (row.status != "running") continue;
            // A pool child of a killed start dies with it (PR_SET_PDEATHSIG), a moment later.
            if (row.host == here && process_alive(row.pid) && attempt < 50) {
                waiting = true;
                continue;
            }
            db_->reset_to_pending(row.id);
        }
        if (!waiting) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(spec_.out) / "runs", ec))
        if (is_partial_results_name(entry.path().filename().string())) fs::remove_all(entry.path(), ec);
}

std::vector<sweep_run> sweep_session::pending() {
    std::map<std::string, std::string> status;
    for (const auto& row : db_->rows()) status[row.id] = row.status;
    std::vector<sweep_run> out;
    for (const auto& r : runs_)
        if (status[r.id] == "pending") out.push_back(r);
    return out;
}

int sweep_session::summary(std::ostream& out) {
    std::map<std::string, std::vector<std::string>> by_status;
    for (const auto& row : db_->rows()) by_status[row.status].push_back(row.id);
    const std::size_t complete = by_status["complete"].size();
    const auto n = [](std::size_t k, const char* word) { return std::to_string(k) + " " + word + (k == 1 ? "" : "s"); };
    out << "sweep " << spec_.out << ": " << n(runs_.size(), "run") << " (" << n(spec_.points(), "point") << " x "
        << n(spec_.seeds.size(), "seed") << "), " << complete << " complete";
    for (const char* s : {"failed", "running", "pending"}) {
        const auto& ids = by_status[s];
        if (ids.empty()) continue;
        out << ", " << ids.size() << " " << s << " (";
        for (std::size_t i = 0; i < ids.size() && i < 8; ++i) out << (i ? " " : "") << ids[i];
        out << (ids.size() > 8 ? " ..." : "") << ")";
    }
    out << "; database " << database_path(spec_) << "\n";
    return complete == runs_.size() ? 0 : 1;
}

} // namespace warmsched::sim::sweep
