// Repeated seeds of one configuration, forked children, several at a time; see repeated_runs.h.
#include "sim/repeated_runs.h"

#include "base/files/input_file.h"
#include "base/files/output_file.h"
#include "platforms/config/config_error.h"
#include "sim/experiment.h"
#include "sim/file_text.h"
#include "sim/results_dir.h"
#include "sim/child_process.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

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

namespace {

std::string seed_dir_name(std::uint64_t seed) {
    return "seed-" + std::to_string(seed);
}

// config.yaml without its header comments and its `repeat:` (a resumed run may ask for more seeds): the
// resolved configuration of the one run.
std::string resolved_part(const std::string& config_yaml) {
    std::istringstream in(config_yaml);
    std::string out;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("#", 0) != 0 && line.rfind("repeat:", 0) != 0) out += line + "\n";
    return out;
}

std::string seed_list(const std::vector<std::uint64_t>& seeds) {
    std::string s;
    for (std::size_t i = 0; i < seeds.size(); ++i) s += (i ? ", " : "") + std::to_string(seeds[i]);
    return s;
}

[[noreturn]] void fail(const std::string& what) {
    throw config::config_error(std::vector<std::string>{what});
}

// Makes DIR ready: absent or empty, replaced (--force: the old one renamed aside to `aside`, which the
// caller deletes once the runs are done), or kept (--resume: each kept seed checked against this
// configuration, and its files against its manifest; an incomplete one is run again). Removes what killed
// runs left (seed-<s>.partial-<pid>). Returns the runs to skip.
std::vector<bool> prepare_dir(const std::string& dir, const std::vector<experiment>& runs,
                              const repeat_options& o, std::string& aside, std::ostream& out) {
    std::vector<bool> keep(runs.size(), false);
    std::error_code ec;
    if (o.resume && fs::is_directory(dir, ec)) {
        std::set<std::string> ours;
        for (const auto& e : runs) ours.insert(seed_dir_name(e.seed));
        for (const auto& entry : fs::directory_iterator(dir)) {
            const std::string name = entry.path().filename().string();
            if (is_partial_results_name(name)) {
                fs::remove_all(entry.path(), ec);
                continue;
            }
            if (name != "repeat.yaml" && name != results_manifest && !ours.count(name))
                fail("--resume: " + entry.path().string() + " is not one of this run's seeds (" +
                     seed_list([&] {
                         std::vector<std::uint64_t> v;
                         for (const auto& e : runs) v.push_back(e.seed);
                         return v;
                     }()) +
                     "); resume into the directory of the same --repeat");
        }
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const fs::path seed = fs::path(dir) / seed_dir_name(runs[i].seed);
            if (!fs::exists(seed)) continue;
            const std::string was = resolved_part(file_text(seed / "config.yaml"));
            const std::string now = resolved_part(runs[i].resolved.to_yaml());
            if (was != now) {
                std::istringstream a(was), b(now);
                std::string la, lb;
                while (std::getline(a, la) && std::getline(b, lb) && la == lb) {
                }
                fail("--resume: " + seed.string() + " was run with another configuration (its config.yaml has '" +
                     la + "' where this run has '" + lb + "'); use --force to start again");
            }
            if (const std::string problem = results_problem(seed.string()); !problem.empty()) {
                out << "=== seed " << runs[i].seed << " === incomplete in " << seed.string() << " (" << problem
                    << "): run again\n";
                fs::remove_all(seed, ec);
                if (ec) fail("--resume: " + seed.string() + " cannot be removed: " + ec.message());
                continue;
            }
            keep[i] = true;
        }
    } else {
        results_dir::check_usable(dir, o.replace, "--out");
        if (o.replace && fs::is_directory(dir, ec) && !fs::is_empty(dir, ec)) {
            // The old runs stay until the new ones are done (results_dir.h).
            aside = dir + ".replaced-" + std::to_string(::getpid());
            fs::remove_all(aside, ec);
            fs::rename(dir, aside, ec);
            if (ec) fail("--out " + dir + ": cannot be moved aside to be replaced: " + ec.message());
        }
    }
    base::make_directories(dir);
    std::vector<std::uint64_t> seeds;
    for (const auto& e : runs) seeds.push_back(e.seed);
    {
        const fs::path tmp = fs::path(dir) / ".repeat.yaml.tmp";
        base::write_file(tmp.string(), "# warmsched run --repeat: the seeds this directory holds once every run is "
                                       "complete\nseeds: [" + seed_list(seeds) + "]\n");
        fs::rename(tmp, fs::path(dir) / "repeat.yaml", ec);
        if (ec) throw base::write_error(dir + "/repeat.yaml", ec.value());
    }
    // A manifest from the start marks the directory as warmsched's (--force may replace it, even
    // unfinished); once every seed is complete it lists them all.
    write_results_manifest(dir);
    return keep;
}
} // namespace

namespace {
// The seeds of a `seeds: [1, 2, 3]` line, or nullopt when `line` is not one (the list holds digits,
// commas and blanks only). Parsed by hand: std::regex recursed once per character and overflowed the
// stack on the 60 kB line of a --repeat 10000 directory.
std::optional<std::vector<std::uint64_t>> seeds_of_line(const std::string& line, const std::string& file) {
    static const std::string head = "seeds: [";
    if (line.compare(0, head.size(), head) != 0) return std::nullopt;
    std::size_t close = line.find_last_not_of(" \t\r");
    if (close == std::string::npos || close < head.size() || line[close] != ']') return std::nullopt;
    std::vector<std::uint64_t> seeds;
    for (std::size_t i = head.size(); i < close;) {
        const char c = line[i];
        if (c == ',' || c == ' ') {
            ++i;
            continue;
        }
        if (c < '0' || c > '9') return std::nullopt;
        const std::size_t start = i;
        while (i < close && line[i] >= '0' && line[i] <= '9') ++i;
        const std::string digits = line.substr(start, i - start);
        // A seed is < 2^62 (experiment.cpp), so it has at most 19 digits.
        const unsigned long long v = digits.size() <= 19 ? std::strtoull(digits.c_str(), nullptr, 10) : ~0ull;
        if (v > (1ull << 62))
            fail(file + ": seed " + digits + " is beyond 2^62 (not written by warmsched run --repeat)");
        seeds.push_back(v);
    }
    return seeds;
}
} // namespace

std::vector<std::uint64_t> repeat_seeds(const std::string& dir) {
    const fs::path file = fs::path(dir) / "repeat.yaml";
    std::error_code ec;
    if (!fs::exists(file, ec) && !ec) return {}; // a symlink loop or no permission: named below
    std::string why;
    const std::optional<std::string> text = base::read_input_file(file.string(), why);
    if (!text) fail(file.string() + ": " + why);
    std::istringstream in(*text);
    for (std::string l; std::getline(in, l);)
        if (auto seeds = seeds_of_line(l, file.string())) return *seeds;
    fail(file.string() + ": no 'seeds: [...]' line (not written by warmsched run --repeat)");
}

int run_repeated(const std::string& file, const std::vector<std::string>& overrides,
                 const command_workload& command, const repeat_options& o, const std::string& out_dir,
                 std::ostream& out) {
    std::vector<experiment> runs;
    for (unsigned i = 0; i < o.repeat; ++i) {
        std::vector<std::string> ov = overrides;
        ov.push_back("seed=" + std::to_string(o.first_seed + i));
        runs.push_back(read_experiment(file, ov, command));
    }
    std::string aside;
    const std::vector<bool> keep = prepare_dir(out_dir, runs, o, aside, out);
    const unsigned jobs = std::max(1u, std::min(o.jobs, o.repeat));
    const bool buffered = jobs > 1;
    std::map<pid_t, child_run> running;
    std::vector<child_run> done(runs.size()); // a run has finished once its status is set
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (keep[i]) done[i].status = 0;
    std::size_t next_start = 0, next_print = 0;
    int worst = 0;

    // Stop signals interrupt waitpid; the loop below then stops the children.
    const stop_signals signals;
    const pid_t parent = ::getpid();

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
            become_child(parent);
            if (buffered) {
                ::dup2(c.out_fd, STDOUT_FILENO);
                ::dup2(c.err_fd, STDERR_FILENO);
            }
            int rc = 1;
            try {
                rc = run_experiment(e, (fs::path(out_dir) / seed_dir_name(e.seed)).string(), out);
            } catch (const config::config_error& x) {
                for (const auto& line : x.lines()) std::cerr << "error: " << line << "\n";
                rc = 2;
            } catch (const base::write_error& x) {
                std::cerr << "error: " << x.what() << "\n";
                rc = 1;
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
            if (keep[next_print]) {
                out << "=== seed " << runs[next_print].seed << " === complete in "
                    << (fs::path(out_dir) / seed_dir_name(runs[next_print].seed)).string()
                    << ", kept (--resume)\n";
            } else if (buffered) {
                out << "=== seed " << runs[next_print].seed << " ===\n";
                drain(c.out_fd, out);
                drain(c.err_fd, std::cerr);
            }
        }
    };
    // After a stop signal: ends the running children, removes their partial directories, says what is left.
    auto stop = [&]() -> int {
        for (const auto& [pid, c] : running) ::kill(pid, SIGTERM);
        for (const auto& [pid, c] : running) {
            int st = 0;
            while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
            std::error_code ec;
            fs::remove_all(fs::path(out_dir) / (seed_dir_name(runs[c.index].seed) + ".partial-" +
                                                std::to_string(pid)), ec);
            if (c.out_fd >= 0) ::close(c.out_fd);
            if (c.err_fd >= 0) ::close(c.err_fd);
        }
        std::vector<std::uint64_t> complete, left;
        for (std::size_t i = 0; i < runs.size(); ++i)
            (done[i].status == 0 ? complete : left).push_back(runs[i].seed);
        out.flush();
        std::cerr << "warmsched: stopped by signal " << signals.caught() << "; complete seeds: "
                  << (complete.empty() ? "none" : seed_list(complete)) << "; not run or stopped: "
                  << seed_list(left) << " (run the same command with --resume to finish)\n";
        return 130;
    };

    int rc = -1;
    while (rc < 0 && next_print < runs.size()) {
        print_ready();
        if (next_print >= runs.size()) break;
        while (!signals.caught() && next_start < runs.size() && running.size() < jobs)
            if (!keep[next_start]) start(next_start++);
            else ++next_start;
        if (signals.caught()) {
            rc = stop();
            break;
        }
        if (running.empty()) continue; // only kept seeds were left to print
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            rc = std::max(worst, 1); // no children left with runs pending: never report success
            break;
        }
        const auto it = running.find(pid);
        if (it == running.end()) continue;
        child_run c = it->second;
        running.erase(it);
        c.status = exit_status_of(status);
        worst = std::max(worst, c.status);
        done[c.index] = c;
    }
    if (rc < 0) {
        print_ready();
        rc = worst;
    }
    if (rc == 0) write_results_manifest(out_dir); // every seed complete: the manifest lists them all
    if (!aside.empty()) {
        std::error_code ec;
        fs::remove_all(aside, ec); // the replaced runs, now that the new ones are in place
    }
    return rc;
}

} // namespace warmsched::sim
