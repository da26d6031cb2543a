// A parent of child runs; see child_process.h.
#include "sim/child_process.h"

#include "platforms/config/config_error.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <filesystem>

namespace warmsched::sim {

namespace {
volatile std::sig_atomic_t stop_signal = 0;
extern "C" void on_stop_signal(int sig) {
    stop_signal = sig;
}
} // namespace

stop_signals::stop_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
    ::sigaction(SIGHUP, &sa, &old_hup_);
}

stop_signals::~stop_signals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGHUP, &old_hup_, nullptr);
}

int stop_signals::caught() const {
    return stop_signal;
}

void become_child(pid_t parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // kept across exec: the parent's death (even SIGKILL) ends this run
    if (::getppid() != parent) ::_exit(1);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
}

std::string self_binary() {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw config::config_error(std::vector<std::string>{"cannot find the warmsched binary (/proc/self/exe)"});
    return p.string();
}

} // namespace warmsched::sim
