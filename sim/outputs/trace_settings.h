// What the ftrace writer records: whether trace.txt is written, the time window, and how often the
// per-CPU cache-miss counters are sampled. Experiment keys trace.enabled, trace.start, trace.end,
// trace.counter_interval; command line --trace and --trace-window START:END (seconds).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace warmsched::sim {

struct trace_settings {
    bool enabled = false;                          // write trace.txt
    std::uint64_t start_ns = 0, end_ns = 0;        // window [start, end); end 0: to the end of the run
    std::uint64_t counter_interval_ns = 1'000'000; // cache-miss counters at most once per this, per CPU
};

// "START:END" in simulated seconds (decimals allowed) -> [start, end) in ns. Throws config_error
// naming `option` when it is not two non-negative numbers with END after START.
std::pair<std::uint64_t, std::uint64_t> parse_trace_window(const std::string& text,
                                                           const std::string& option);

} // namespace warmsched::sim
