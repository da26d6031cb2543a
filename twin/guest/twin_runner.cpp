// twin_runner: runs one workload command inside the twin's guest and keeps what /proc loses when the
// command's processes are reaped. Built static (it runs in the guest's busybox initramfs).
//
//   twin_runner OUTDIR [--cgroup PATH] [--duration-ns N] [--cwd DIR] -- COMMAND [ARGS...]
//
// The command runs in its own process group, in cgroup PATH of the guest's cgroup2 mount when given, and in
// directory DIR when given (the native twin gives OUTDIR: what a tool writes to its working directory,
// rt-app's logs, lands with the run's results, never in the user's directory).
// When it exits (or, with --duration-ns, when that much time has passed and it is killed, as the model
// stops a run at its duration), OUTDIR gets:
//   rusage          the command's wait4() rusage: its own and its reaped descendants' (what getrusage
//                   RUSAGE_CHILDREN gives the parent): voluntary and involuntary switches, user and system time
//   tasks/<pid>/    /proc/<pid>/{sched,schedstat,status} of every task of the process group still there at
//                   the end, read before it is reaped (the command itself through waitid WNOWAIT)
//   exit            the exit status (or "signal N")
//   pid             the command's pid (the root of its tasks in the trace)
// What it leaves out: tasks of the command that were reaped earlier (hackbench's children) have no
// tasks/ entry; their switches are in rusage, and everything else about them is in the ftrace trace.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "twin_runner: %s: %s\n", what.c_str(), std::strerror(errno));
    std::exit(127);
}

void write_file(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) die("cannot write " + path);
    std::fputs(text.c_str(), f);
    std::fclose(f);
}

bool copy_file(const std::string& from, const std::string& to) {
    FILE* in = std::fopen(from.c_str(), "r");
    if (!in) return false;
    FILE* out = std::fopen(to.c_str(), "w");
    if (!out) {
        std::fclose(in);
        return false;
    }
    char buf[8192];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) std::fwrite(buf, 1, n, out);
    std::fclose(in);
    std::fclose(out);
    return true;
}

// Every thread of every process of process group `pgid`, as /proc/<tgid>/task/<tid>.
std::vector<std::string> group_tasks(pid_t pgid) {
    std::vector<std::string> v;
    DIR* proc = opendir("/proc");
    if (!proc) return v;
    while (dirent* e = readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
        if (pid <= 0 || getpgid(pid) != pgid) continue;
        const std::string tdir = std::string("/proc/") + e->d_name + "/task";
        if (DIR* t = opendir(tdir.c_str())) {
            while (dirent* te = readdir(t))
                if (te->d_name[0] != '.') v.push_back(tdir + "/" + te->d_name);
            closedir(t);
        }
    }
    closedir(proc);
    return v;
}

void snapshot_tasks(pid_t pgid, const std::string& out) {
    const std::string dir = out + "/tasks";
    mkdir(dir.c_str(), 0755);
    for (const auto& t : group_tasks(pgid)) {
        const std::string tid = t.substr(t.rfind('/') + 1);
        const std::string d = dir + "/" + tid;
        mkdir(d.c_str(), 0755);
        for (const char* f : {"sched", "schedstat", "status"}) copy_file(t + "/" + f, d + "/" + f);
    }
}

// SIGTERM (the native twin stopped by a signal) ends the command's whole process group with it.
volatile pid_t command_group = 0;
void on_term(int) {
    if (command_group > 0) kill(-command_group, SIGKILL);
    _exit(143);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: twin_runner OUTDIR [--cgroup PATH] [--duration-ns N] [--cwd DIR] -- COMMAND...\n");
        return 2;
    }
    const std::string out = argv[1];
    std::string cgroup, cwd;
    unsigned long long duration_ns = 0;
    int i = 2;
    for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        if (!std::strcmp(argv[i], "--cgroup") && i + 1 < argc)
            cgroup = argv[++i];
        else if (!std::strcmp(argv[i], "--duration-ns") && i + 1 < argc)
            duration_ns = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--cwd") && i + 1 < argc)
            cwd = argv[++i];
        else {
            std::fprintf(stderr, "twin_runner: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (i + 1 >= argc) {
        std::fprintf(stderr, "twin_runner: no command after --\n");
        return 2;
    }
    mkdir(out.c_str(), 0755);

    const pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        setpgid(0, 0);
        if (!cgroup.empty()) {
            const std::string procs = "/sys/fs/cgroup" + cgroup + "/cgroup.procs";
            FILE* f = std::fopen(procs.c_str(), "w");
            if (!f || std::fputs("0", f) < 0 || std::fclose(f) != 0) die("cannot join " + procs);
        }
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) die("cannot enter " + cwd);
        execvp(argv[i + 1], argv + i + 1);
        die(std::string("cannot run ") + argv[i + 1]);
    }
    setpgid(child, child);
    command_group = child;
    signal(SIGTERM, on_term);
    write_file(out + "/pid", std::to_string(child) + "\n");

    siginfo_t info{};
    bool snapshot_taken = false;
    if (duration_ns) {
        timespec start{}, now{};
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
            info = siginfo_t{};
            if (waitid(P_PID, child, &info, WEXITED | WNOWAIT | WNOHANG) == 0 && info.si_pid == child) break;
            clock_gettime(CLOCK_MONOTONIC, &now);
            const unsigned long long el = static_cast<unsigned long long>(now.tv_sec - start.tv_sec) *
                                              1000000000ull +
                                          static_cast<unsigned long long>(now.tv_nsec) -
                                          static_cast<unsigned long long>(start.tv_nsec);
            if (el >= duration_ns) {
                kill(-child, SIGSTOP); // freeze the group, read it, then end it
                snapshot_tasks(child, out);
                snapshot_taken = true;
                kill(-child, SIGKILL);
                kill(-child, SIGCONT);
                break;
            }
            timespec tick{0, 1000000}; // 1 ms
            nanosleep(&tick, nullptr);
        }
    }
    info = siginfo_t{};
    while (waitid(P_PID, child, &info, WEXITED | WNOWAIT) != 0)
        if (errno != EINTR) die("waitid");
    if (!snapshot_taken) snapshot_tasks(child, out); // the command's zombie and what of its group still runs
    int status = 0;
    rusage ru{};
    while (wait4(child, &status, 0, &ru) < 0)
        if (errno != EINTR) die("wait4");
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "nvcsw %ld\nnivcsw %ld\nutime_us %lld\nstime_us %lld\nminflt %ld\nmajflt %ld\n", ru.ru_nvcsw,
                  ru.ru_nivcsw,
                  static_cast<long long>(ru.ru_utime.tv_sec) * 1000000 + ru.ru_utime.tv_usec,
                  static_cast<long long>(ru.ru_stime.tv_sec) * 1000000 + ru.ru_stime.tv_usec, ru.ru_minflt,
                  ru.ru_majflt);
    write_file(out + "/rusage", buf);
    if (WIFEXITED(status))
        std::snprintf(buf, sizeof buf, "%d\n", WEXITSTATUS(status));
    else
        std::snprintf(buf, sizeof buf, "signal %d\n", WTERMSIG(status));
    write_file(out + "/exit", buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
