// Child processes of the twin; see child_process.h.
#include "twin/child_process.h"

#include "twin/qemu_guest.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

extern char** environ;

namespace warmsched::twin {

pid_t spawn(const std::vector<std::string>& argv, const std::string& log_file) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw twin_failure("cannot start " + argv[0] + ": " + std::strerror(rc));
    return pid;
}

int run_to_end(const std::vector<std::string>& argv, const std::string& log_file) {
    const pid_t pid = spawn(argv, log_file);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string last_line_of(const std::string& path) {
    std::ifstream f(path);
    std::string line, last;
    while (std::getline(f, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (!line.empty()) last = line;
    }
    return last;
}

std::string self_exe() {
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return "warmsched";
    exe[n] = '\0';
    return exe;
}

} // namespace warmsched::twin
