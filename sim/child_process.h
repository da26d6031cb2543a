// Parents of child runs (`run --repeat`, `sweep`'s local pool, `tutorial`): SIGINT, SIGTERM and SIGHUP
// caught while the children run, each child set up to die with its parent, and this binary's path for
// children that exec it again.
//   stop_signals  installs a handler for the three signals (no SA_RESTART, so a blocking waitpid returns
//                 EINTR and the caller's loop sees caught()) and restores the old handlers when it goes.
//   become_child  run in a forked child first: PR_SET_PDEATHSIG(SIGKILL), kept across exec, so a SIGKILLed
//                 parent takes its children with it; _exit(1) if the parent is already gone; the three
//                 signals back to their defaults (the parent's SIGTERM to a child then ends it).
// Left out: process groups (a child's own children are the child's business; warmsched's are its runs).
#pragma once

#include <sys/types.h>

#include <csignal>
#include <string>

namespace warmsched::sim {

class stop_signals {
public:
    stop_signals();
    ~stop_signals();
    stop_signals(const stop_signals&) = delete;
    stop_signals& operator=(const stop_signals&) = delete;

    int caught() const; // the signal received since construction, or 0

private:
    struct sigaction old_int_ {}, old_term_ {}, old_hup_ {};
};

void become_child(pid_t parent);

// This executable (/proc/self/exe). Throws config_error when it cannot be read.
std::string self_binary();

} // namespace warmsched::sim
