// The local process pool; see local_executor.h.
#include "sim/sweep/local_executor.h"

#include "platforms/config/config_error.h"
#include "sim/child_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>

namespace fs = std::filesystem;

namespace warmsched::sim::sweep {


int run_local(sweep_session& session, unsigned jobs, std::ostream& out) {
    const sweep_spec& spec = session.spec();
    if (const auto job = session.db().value("slurm_job"))
        throw config::config_error(std::vector<std::string>{
            "sweep: Slurm job " + *job + " of this sweep may still be running; resume it with --executor slurm"});
    session.recover(); // the children of a killed start died with it
    const std::vector<sweep_run> todo = session.pending();
    const std::string binary = self_binary();
    const fs::path logs = fs::path(spec.out) / "logs";
    std::error_code ec;
    fs::create_directories(logs, ec);
    if (ec) throw config::config_error(std::vector<std::string>{"sweep: " + logs.string() + ": cannot be written"});
    out << "sweep " << spec.out << ": " << todo.size() << " of " << session.runs().size() << " runs to do, "
        << jobs << " at a time\n";
    out.flush();

    const stop_signals signals;
    const pid_t parent = ::getpid();

    std::map<pid_t, const sweep_run*> running;
    auto start = [&](const sweep_run& r) {
        const std::string log = (logs / (r.id + ".txt")).string();
        const std::string index = std::to_string(r.index);
        out.flush();
        const pid_t pid = ::fork();
        if (pid < 0) throw config::config_error(std::vector<std::string>{"sweep: fork failed"});
        if (pid == 0) {
            become_child(parent);
            const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0) ::_exit(2);
            ::dup2(fd, STDOUT_FILENO);
            ::dup2(fd, STDERR_FILENO);
            ::close(fd);
            ::execl(binary.c_str(), "warmsched", "sweep", spec.file.c_str(), "--out", spec.out.c_str(),
                    "--run-index", index.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        running[pid] = &r;
    };

    std::size_t next = 0;
    while (next < todo.size() || !running.empty()) {
        while (!signals.caught() && next < todo.size() && running.size() < jobs) start(todo[next++]);
        if (signals.caught()) break;
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        const auto it = running.find(pid);
        if (it == running.end()) continue;
        const sweep_run& r = *it->second;
        running.erase(it);
        const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        out << r.id;
        for (const auto& [k, v] : r.axis) out << " " << k << "=" << v;
        out << " seed=" << r.seed << ": "
            << (rc == 0 ? "complete" : "failed (exit " + std::to_string(rc) + "), see " +
                                           (logs / (r.id + ".txt")).string())
            << "\n";
        out.flush();
    }
    int result = -1;
    if (signals.caught()) {
        for (const auto& [pid, r] : running) ::kill(pid, SIGTERM);
        for (const auto& [pid, r] : running) {
            int st = 0;
            while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
            session.db().reset_to_pending(r->id);
        }
        session.recover();
        std::cerr << "warmsched: sweep stopped by signal " << signals.caught()
                  << "; run the same command again to resume\n";
        result = 130;
    }
    if (result >= 0) return result;
    return session.summary(out);
}

} // namespace warmsched::sim::sweep
