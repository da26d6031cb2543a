// The host's tracefs for native twin runs; see tracefs_session.h.
#include "twin/tracefs_session.h"

#include "base/files/output_file.h"
#include "platforms/config/config_error.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace warmsched::twin {
namespace {

constexpr const char* tracefs_root = "/sys/kernel/tracing";

[[noreturn]] void refuse(const std::string& what) {
    throw config::config_error(config::origin{"<command line>", 0, 0}, "--native", what);
}

std::string read_small(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

// Writes `text` into a tracefs control file; false (errno kept) when the kernel refuses it.
bool write_control(const std::string& path, const std::string& text, bool truncate = false) {
    const int fd = ::open(path.c_str(), O_WRONLY | (truncate ? O_TRUNC : 0) | O_CLOEXEC);
    if (fd < 0) return false;
    const ssize_t n = ::write(fd, text.data(), text.size());
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return n == static_cast<ssize_t>(text.size());
}

// Per-CPU "entries", "overrun" and "dropped events" of per_cpu/cpu*/stats, summed.
std::uint64_t stat_sum(const std::string& root, const std::string& key) {
    std::uint64_t sum = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root + "/per_cpu", ec)) {
        std::istringstream in(read_small(e.path().string() + "/stats"));
        std::string line;
        while (std::getline(in, line))
            if (line.rfind(key + ": ", 0) == 0) sum += std::strtoull(line.c_str() + key.size() + 2, nullptr, 10);
    }
    return sum;
}

// What a signal handler restores: absolute paths and contents, in order, built before the handler is
// installed (the handler allocates nothing).
struct restore_plan {
    std::vector<std::pair<std::string, std::string>> writes; // path -> text ("" with truncate: the trace)
    std::string unmount;                                      // "" = leave mounted
};
const restore_plan* active_plan = nullptr;
struct sigaction old_actions[3];
constexpr int restored_signals[3] = {SIGINT, SIGTERM, SIGHUP};

void restore_now(const restore_plan& p) {
    for (const auto& [path, text] : p.writes) {
        const int fd = ::open(path.c_str(), O_WRONLY | (text.empty() ? O_TRUNC : 0) | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = ::write(fd, text.data(), text.size());
        (void)n;
        ::close(fd);
    }
    if (!p.unmount.empty()) ::umount2(p.unmount.c_str(), MNT_DETACH);
}

const volatile pid_t* stop_pids = nullptr;
std::size_t stop_count = 0;

void on_signal(int sig) {
    for (std::size_t i = 0; stop_pids && i < stop_count; ++i)
        if (stop_pids[i] > 0) ::kill(stop_pids[i], SIGTERM);
    if (active_plan) restore_now(*active_plan);
    active_plan = nullptr;
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

} // namespace

void terminate_on_stop(const volatile pid_t* pids, std::size_t n) {
    stop_pids = nullptr;
    stop_count = n;
    stop_pids = pids;
}

const std::vector<std::string>& traced_events() {
    static const std::vector<std::string> e = {"sched_switch",       "sched_waking",       "sched_wakeup",
                                               "sched_wakeup_new",   "sched_migrate_task", "sched_process_fork",
                                               "sched_process_exec", "sched_process_exit"};
    return e;
}

tracefs_session::tracefs_session(std::uint64_t buffer_kb) : root_(tracefs_root) {
    if (::geteuid() != 0)
        refuse("a native run traces the host's scheduler with tracefs, which needs root (run warmsched as root)");
    if (!fs::exists(root_ + "/tracing_on")) {
        std::error_code ec;
        fs::create_directories(root_, ec);
        if (::mount("nodev", root_.c_str(), "tracefs", 0, nullptr) != 0)
            refuse("tracefs is not mounted at " + root_ + " and cannot be mounted there (" +
                   std::string(std::strerror(errno)) + "); the kernel needs CONFIG_FTRACE and the sched events");
        mounted_here_ = true;
    }
    auto unmount_and_refuse = [&](const std::string& what) {
        if (mounted_here_) ::umount2(root_.c_str(), MNT_DETACH);
        mounted_here_ = false;
        refuse(what);
    };
    for (const auto& e : traced_events())
        if (!fs::exists(root_ + "/events/sched/" + e + "/enable"))
            unmount_and_refuse("this kernel's tracefs has no event sched/" + e + " (" + root_ + "/events/sched/)");
    // Another user's trace: refused, never cleared.
    const std::string tracer = trim(read_small(root_ + "/current_tracer"));
    if (tracer != "nop")
        unmount_and_refuse("tracefs is in use: current_tracer is '" + tracer +
                           "' (another trace runs; stop it, or echo nop > " + root_ + "/current_tracer)");
    const std::string enabled = trim(read_small(root_ + "/set_event"));
    if (!enabled.empty())
        unmount_and_refuse("tracefs is in use: events are enabled (" + enabled.substr(0, enabled.find('\n')) +
                           " ...; see " + root_ + "/set_event); disable them first");
    if (const std::uint64_t held = stat_sum(root_, "entries"))
        unmount_and_refuse("tracefs' buffer holds " + std::to_string(held) +
                           " events of another trace, which a native run would clear; save it, then clear it "
                           "(echo > " + root_ + "/trace)");
    for (const std::string f : {"tracing_on", "buffer_size_kb"}) saved_.emplace_back(f, trim(read_small(root_ + "/" + f)));
    for (const auto& e : traced_events()) {
        const std::string f = "events/sched/" + e + "/enable";
        saved_.emplace_back(f, trim(read_small(root_ + "/" + f)));
    }
    // From here on a signal restores what was saved.
    static restore_plan plan;
    plan.writes.clear();
    plan.writes.emplace_back(root_ + "/tracing_on", "0");
    plan.writes.emplace_back(root_ + "/trace", "");
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) plan.writes.emplace_back(root_ + "/" + it->first, it->second);
    plan.unmount = mounted_here_ ? root_ : "";
    active_plan = &plan;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(restored_signals[i], &sa, &old_actions[i]);
    if (!write_control(root_ + "/tracing_on", "0") ||
        !write_control(root_ + "/buffer_size_kb", std::to_string(buffer_kb))) {
        const std::string why = std::strerror(errno);
        restore(); // the constructor throws: no destructor runs
        refuse("tracefs is not writable here (" + why + ")");
    }
    for (const auto& e : traced_events())
        if (!write_control(root_ + "/events/sched/" + e + "/enable", "1")) {
            const std::string why = std::strerror(errno);
            restore(); // the constructor throws: no destructor runs
            refuse("tracefs refused to enable sched/" + e + " (" + why + ")");
        }
}

tracefs_session::~tracefs_session() { restore(); }

// Tracing off, the buffer empty again as it was found, then the saved files in reverse (the events first,
// buffer_size_kb and tracing_on last), the mount undone; the signal handlers back as they were.
void tracefs_session::restore() const {
    if (!active_plan) return;
    const restore_plan* p = active_plan;
    active_plan = nullptr;
    for (int i = 0; i < 3; ++i) sigaction(restored_signals[i], &old_actions[i], nullptr);
    restore_now(*p);
}

std::uint64_t tracefs_session::record(const std::function<void()>& body, const std::string& trace_path) {
    write_control(root_ + "/tracing_on", "0");
    write_control(root_ + "/trace", "", true);
    write_control(root_ + "/tracing_on", "1");
    try {
        body();
    } catch (...) {
        write_control(root_ + "/tracing_on", "0");
        throw;
    }
    write_control(root_ + "/tracing_on", "0");
    const std::uint64_t lost = stat_sum(root_, "overrun") + stat_sum(root_, "dropped events");
    // The text trace, copied in blocks (a busy second of hackbench is tens of MB).
    const int in = ::open((root_ + "/trace").c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) refuse("cannot read " + root_ + "/trace (" + std::string(std::strerror(errno)) + ")");
    base::output_file out(trace_path);
    std::string buf(1 << 16, '\0');
    for (;;) {
        const ssize_t n = ::read(in, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.write(buf.data(), n);
    }
    ::close(in);
    out.close();
    return lost;
}

} // namespace warmsched::twin
