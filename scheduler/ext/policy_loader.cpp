// Loading a policy plug-in; see policy_loader.h.
#include "scheduler/ext/policy_loader.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace warmsched::scheduler {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t name_max = 127;         // SCX_OPS_NAME_LEN (128) with its terminating NUL
constexpr rlim_t trial_cpu_seconds = 2;       // the trial load's CPU time (a real policy takes milliseconds)
constexpr unsigned trial_wall_seconds = 10;   // and wall time (one that blocks)
constexpr std::size_t output_kept = 4096;     // the tail of what the trial printed, for the message

using version_fn = unsigned (*)();
using create_fn = ext::policy* (*)();
using destroy_fn = void (*)(ext::policy*);

// The text of a string for a message: printable ASCII as is, the rest as \xNN, at most `max` characters.
std::string shown(const char* s, std::size_t len, std::size_t max = 40) {
    std::string out;
    for (std::size_t i = 0; i < len && i < max; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            out += static_cast<char>(c);
        } else {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            out += b;
        }
    }
    return len > max ? out + "..." : out;
}

const char* signal_name(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return "";
    }
}

// What the policy's code does while loading, checked; "" if it loaded well. Runs in the trial child and,
// once that passed, in warmsched (keeping the object loaded: *keep receives the handle and functions).
struct loaded {
    void* handle = nullptr;
    create_fn create = nullptr;
    destroy_fn destroy = nullptr;
};
std::string open_policy(const std::string& path, loaded& l) {
    l.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!l.handle) {
        const char* e = dlerror();
        return e ? e : path + ": dlopen failed";
    }
    auto version = reinterpret_cast<version_fn>(dlsym(l.handle, "warmsched_policy_api_version"));
    l.create = reinterpret_cast<create_fn>(dlsym(l.handle, "warmsched_policy_create"));
    l.destroy = reinterpret_cast<destroy_fn>(dlsym(l.handle, "warmsched_policy_destroy"));
    if (!version || !l.create || !l.destroy)
        return path + ": not a warmsched policy (no WARMSCHED_POLICY(...) in it)";
    if (const unsigned v = version(); v != ext::api_version)
        return path + ": built against policy API " + std::to_string(v) + ", this warmsched has " +
               std::to_string(ext::api_version);
    return "";
}

std::string check_name(const std::string& path, const ext::policy& p) {
    const std::string why = policy_name_problem(p.name());
    return why.empty() ? "" : path + ": " + why;
}

// The trial in the child: everything the policy's own code does while loading, then unloading.
std::string trial(const std::string& path) {
    loaded l;
    if (std::string why = open_policy(path, l); !why.empty()) return why;
    ext::policy* p = l.create();
    if (!p) return path + ": warmsched_policy_create returned no policy";
    if (std::string why = check_name(path, *p); !why.empty()) return why;
    l.destroy(p);
    dlclose(l.handle); // its static destructors run here
    return "";
}

void write_all(int fd, const std::string& s) {
    for (std::size_t done = 0; done < s.size();) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

// The last non-empty line of what the trial printed, for a message ("" if none).
std::string last_line(const std::string& out) {
    std::size_t end = out.find_last_not_of(" \t\r\n");
    if (end == std::string::npos) return "";
    std::size_t begin = out.rfind('\n', end);
    begin = begin == std::string::npos ? 0 : begin + 1;
    return shown(out.data() + begin, end + 1 - begin, 160);
}

// Loads the policy in a child process first; throws policy_load_error if the child does not come back
// with "ok". Returns quietly if no child can be made (the load then happens in-process only).
void trial_load(const std::string& path) {
    int report[2], output[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return;
    if (::pipe2(output, O_CLOEXEC) != 0) {
        ::close(report[0]), ::close(report[1]);
        return;
    }
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        for (int fd : {report[0], report[1], output[0], output[1]}) ::close(fd);
        return;
    }
    if (pid == 0) {
        // Die by the signal itself, not through a handler inherited from the parent (a sanitizer's).
        for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGALRM}) ::signal(sig, SIG_DFL);
        const rlimit cpu{trial_cpu_seconds, trial_cpu_seconds + 1};
        ::setrlimit(RLIMIT_CPU, &cpu);
        ::alarm(trial_wall_seconds);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
        ::dup2(output[1], STDOUT_FILENO);
        ::dup2(output[1], STDERR_FILENO);
        std::setvbuf(stdout, nullptr, _IONBF, 0);
        ::close(report[0]);
        ::close(output[0]);
        const std::string why = trial(path);
        write_all(report[1], why.empty() ? std::string("ok") : "error: " + why);
        ::_exit(0);
    }
    ::close(report[1]);
    ::close(output[1]);
    std::string answer, printed;
    pollfd fds[2] = {{report[0], POLLIN, 0}, {output[0], POLLIN, 0}};
    for (int open = 2; open > 0;) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (pollfd& f : fds) {
            if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char b[4096];
            const ssize_t n = ::read(f.fd, b, sizeof b);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                ::close(f.fd);
                f.fd = -1;
                --open;
                continue;
            }
            std::string& to = f.fd == report[0] ? answer : printed;
            to.append(b, static_cast<std::size_t>(n));
            if (to.size() > 2 * output_kept) to.erase(0, to.size() - output_kept);
        }
    }
    for (pollfd& f : fds)
        if (f.fd >= 0) ::close(f.fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (answer == "ok" && WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    if (answer.rfind("error: ", 0) == 0) throw policy_load_error(answer.substr(7));
    const std::string said = last_line(printed);
    const std::string tail = said.empty() ? "" : " (its last output: \"" + said + "\")";
    const std::string code =
        "its static constructors, warmsched_policy_create, name(), its destructor or its static destructors";
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        throw policy_load_error(path + ": loading it took more than " + std::to_string(trial_cpu_seconds) +
                                " s of CPU time (" + code + " do not return; a policy loads in milliseconds)" +
                                tail);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        throw policy_load_error(path + ": loading it did not finish within " + std::to_string(trial_wall_seconds) +
                                " s (" + code + " wait for something)" + tail);
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const std::string name = signal_name(sig);
        throw policy_load_error(path + ": loading it crashed with signal " + std::to_string(sig) +
                                (name.empty() ? "" : " (" + name + ")") + " in " + code + tail);
    }
    throw policy_load_error(path + ": loading it ended the process with exit status " +
                            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + " (" + code +
                            " called exit)" + tail);
}

} // namespace

std::string policy_path(const std::string& spec) {
    if (spec.find('/') != std::string::npos || (spec.size() > 3 && spec.compare(spec.size() - 3, 3, ".so") == 0))
        return spec;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ((ec ? fs::path(".") : exe.parent_path()) / "policies" / (spec + ".so")).string();
}

std::string policy_name_problem(const char* name) {
    const std::string rule = "a policy's name is 1 to " + std::to_string(name_max) +
                             " letters, digits, '_' or '.' (sched_ext's ops.name, SCX_OPS_NAME_LEN)";
    if (!name) return "name() returned a null pointer: " + rule;
    const std::size_t len = ::strnlen(name, name_max + 1);
    if (len == 0) return "name() returned an empty name: " + rule;
    if (len > name_max) return "name() returned a name of more than " + std::to_string(name_max) + " characters (\"" +
                               shown(name, len) + "\"): " + rule;
    for (std::size_t i = 0; i < len; ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.';
        if (!ok) return "name() returned \"" + shown(name, len) + "\": " + rule;
    }
    return "";
}

std::shared_ptr<ext::policy> load_policy(const std::string& spec) {
    const std::string path = policy_path(spec);
    std::error_code ec;
    if (!fs::exists(path, ec)) // a symlink loop is an error code here, not an exception
        throw policy_load_error(path + (ec ? ": " + ec.message() : std::string(": no such file")) +
                                (path != spec ? " (the in-tree examples are simple_fifo, llc_rr, llc_sticky)" : ""));
    trial_load(path);
    loaded l;
    if (std::string why = open_policy(path, l); !why.empty()) {
        if (l.handle) dlclose(l.handle);
        throw policy_load_error(why);
    }
    ext::policy* p = nullptr;
    try {
        p = l.create();
    } catch (...) {
        p = nullptr;
    }
    if (!p) {
        dlclose(l.handle);
        throw policy_load_error(path + ": warmsched_policy_create returned no policy");
    }
    if (std::string why = check_name(path, *p); !why.empty()) {
        l.destroy(p);
        dlclose(l.handle);
        throw policy_load_error(why);
    }
    return std::shared_ptr<ext::policy>(p, [h = l.handle, destroy = l.destroy](ext::policy* q) {
        destroy(q);
        dlclose(h);
    });
}

} // namespace warmsched::scheduler
