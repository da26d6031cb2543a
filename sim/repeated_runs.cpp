// Repeated seeds of one configuration, forked children, several at a time; see repeated_runs.h.
#include "sim/repeated_runs.h"

#include "platforms/config/config_error.h"
#include "sim/experiment.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

namespace fs = std::filesystem;

namespace warmsched::sim {

unsigned host_cpus() {
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1u;
}

namespace {
// A run in flight: its child, and (several jobs) the unnamed files holding its stdout and stderr.
struct child_run {
    std::size_t index = 0;
    int out_fd = -1, err_fd = -1;
    int status = -1; // exit status once reaped
};

int unnamed_file() {
    std::FILE* f = std::tmpfile();
    if (!f) throw config::config_error(std::vector<std::string>{"--repeat: cannot create a temporary file"});
    const int fd = ::dup(::fileno(f));
    std::fclose(f);
    return fd;
}

// Copies the whole of `fd` (from its start) to `to`, then closes it.
void drain(int fd, std::ostream& to) {
    if (fd < 0) return;
    ::lseek(fd, 0, SEEK_SET);
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) to.write(buf, n);
    to.flush();
    ::close(fd);
}

int exit_status_of(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
} // namespace

int run_repeated(const std::string& file, const std::vector<std::string>& overrides,
                 const command_workload& command, std::uint64_t first_seed, unsigned repeat, unsigned jobs,
                 const std::string& out_dir, std::ostream& out) {
    std::vector<experiment> runs;
    for (unsigned i = 0; i < repeat; ++i) {
        std::vector<std::string> o = overrides;
        o.push_back("seed=" + std::to_string(first_seed + i));
        runs.push_back(read_experiment(file, o, command));
    }
    jobs = std::max(1u, std::min(jobs, repeat));
    const bool buffered = jobs > 1;
    std::map<pid_t, child_run> running;
    std::vector<child_run> done(runs.size()); // a run has finished once its status is set
    std::size_t next_start = 0, next_print = 0;
    int worst = 0;

    auto start = [&](std::size_t i) {
        const experiment& e = runs[i];
        child_run c;
        c.index = i;
        if (buffered) {
            c.out_fd = unnamed_file();
            c.err_fd = unnamed_file();
        } else {
            out << "=== seed " << e.seed << " ===\n";
        }
        out.flush();
        std::cerr.flush();
        const pid_t pid = ::fork();
        if (pid < 0) throw config::config_error(std::vector<std::string>{"--repeat: fork failed"});
        if (pid == 0) {
            if (buffered) {
                ::dup2(c.out_fd, STDOUT_FILENO);
                ::dup2(c.err_fd, STDERR_FILENO);
            }
            int rc = 1;
            try {
                rc =
                    run_experiment(e, (fs::path(out_dir) / ("seed-" + std::to_string(e.seed))).string(), out);
            } catch (const std::exception& x) {
                std::cerr << "error: " << x.what() << "\n";
                rc = 2;
            }
            out.flush();
            std::cerr.flush();
            ::_exit(rc);
        }
        running[pid] = c;
    };
    // Prints, in seed order, every finished run whose predecessors have been printed.
    auto print_ready = [&] {
        for (; next_print < runs.size() && done[next_print].status >= 0; ++next_print) {
            child_run& c = done[next_print];
            if (buffered) {
                out << "=== seed " << runs[next_print].seed << " ===\n";
                drain(c.out_fd, out);
                drain(c.err_fd, std::cerr);
            }
        }
    };

    while (next_print < runs.size()) {
        while (next_start < runs.size() && running.size() < jobs) start(next_start++);
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            return std::max(worst, 1); // no children left with runs pending: never report success
        }
        const auto it = running.find(pid);
        if (it == running.end()) continue;
        child_run c = it->second;
        running.erase(it);
        c.status = exit_status_of(status);
        worst = std::max(worst, c.status);
        done[c.index] = c;
        print_ready();
    }
    return worst;
}

} // namespace warmsched::sim
