// Running gnuplot; see gnuplot.h.
#include "sim/plots/gnuplot.h"

#include "platforms/config/config_error.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warmsched::sim {
namespace fs = std::filesystem;

namespace {
[[noreturn]] void fail(const std::string& why) {
    throw config::config_error(std::vector<std::string>{"plot: " + why});
}
} // namespace

std::string find_gnuplot() {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string d; std::getline(dirs, d, ':');) {
        const fs::path p = fs::path(d.empty() ? "." : d) / "gnuplot";
        if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
    return {};
}

std::string gnuplot_quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

void run_gnuplot(const std::string& dir, const std::string& script) {
    const std::string gnuplot = find_gnuplot();
    if (gnuplot.empty()) fail("gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox)");
    // gnuplot runs in `dir` (the script names its data and outputs relative to it), its stdout to
    // /dev/null and its messages to a log beside the script: a child with a working directory and two
    // redirections, no shell (a relative `dir` is then resolved once, from our own directory).
    const fs::path err = fs::absolute(fs::path(dir) / (script + ".log"));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    std::string prog = gnuplot, arg = script;
    char* argv[] = {prog.data(), arg.data(), nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) fail("cannot run " + gnuplot + ": " + std::strerror(spawned));
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        fs::remove(err);
        return;
    }
    std::ifstream in(err);
    std::string first, line;
    while (std::getline(in, line))
        if (!line.empty()) first = line; // gnuplot's last message names the problem
    fail("gnuplot failed on " + (fs::path(dir) / script).string() + ": " + first);
}

} // namespace warmsched::sim
