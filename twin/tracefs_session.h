// The host's own tracefs, borrowed for a native run of `warmsched twin --native` and left as it was found.
//
// Opening a session: tracefs is mounted at /sys/kernel/tracing if it is not (and unmounted again at the
// end); what the session changes is saved first: tracing_on, buffer_size_kb, current_tracer and the
// enable file of every event it turns on. A tracefs that another user is tracing with (a tracer other
// than nop, an event already enabled, or events in the buffer) is refused rather than borrowed: clearing
// the buffer would destroy that trace. Each record() clears the buffer, turns tracing on around the
// command, and copies the text trace out; the events are the twin guest's (sched_switch, sched_waking,
// sched_wakeup(_new), sched_migrate_task and the process events), which twin/kernel_counters.h reads.
//
// A SIGINT, SIGTERM or SIGHUP while a session is open restores the saved files first (open, write and
// close only: async-signal-safe), then ends the process as the signal would have.
//
// Left out: instances (trace_instance/), which would leave the top buffer alone but need kernels newer
// than some hosts run; the session uses the top-level buffer and refuses a busy one instead.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace warmsched::twin {

class tracefs_session {
public:
    // Throws config_error (key "--native") with one line when tracefs cannot be used here.
    explicit tracefs_session(std::uint64_t buffer_kb);
    ~tracefs_session(); // restores every saved file, unmounts what it mounted
    tracefs_session(const tracefs_session&) = delete;
    tracefs_session& operator=(const tracefs_session&) = delete;

    // Clears the buffer, turns tracing on, runs `body`, turns tracing off and writes the text trace to
    // `trace_path`. Returns the events the buffer lost (overruns and drops over the CPUs).
    std::uint64_t record(const std::function<void()>& body, const std::string& trace_path);

    const std::string& root() const { return root_; }

private:
    std::string root_;
    bool mounted_here_ = false;
    std::vector<std::pair<std::string, std::string>> saved_; // file (relative to root_) -> its content
    void restore() const;
};

// Processes a SIGINT, SIGTERM or SIGHUP during a session also ends (SIGTERM): the native run's
// twin_runners, which take their commands' process groups with them. `pids` stays valid while set;
// nullptr clears it.
void terminate_on_stop(const volatile pid_t* pids, std::size_t n);

// The sched events the twin reads, as tracefs names them under events/.
const std::vector<std::string>& traced_events();

} // namespace warmsched::twin
