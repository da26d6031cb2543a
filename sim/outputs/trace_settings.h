// What the trace writers record: whether a trace is written and in which formats (trace.txt ftrace
// text, trace.json Chrome JSON, trace.perfetto-trace Perfetto protobuf), whether the VCD is, the time
// window, and how often the per-CPU cache-miss counters are sampled. Experiment keys trace.enabled,
// trace.formats (comma-separated: ftrace, chrome, perfetto), trace.vcd, trace.start, trace.end,
// trace.counter_interval; command line --trace, --trace-format LIST, --vcd and --trace-window START:END
// (seconds).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace warmsched::sim {

struct trace_settings {
    bool enabled = false;                   // record the trace (files: formats)
    bool ftrace = true;                     // formats: ftrace -> trace.txt
    bool chrome = false;                    // formats: chrome -> trace.json (Trace Event Format)
    bool perfetto = false;                  // formats: perfetto -> trace.perfetto-trace (protobuf)
    bool vcd = false;                       // trace.vcd + trace.vcd.filter (GTKWave), even without enabled
    std::uint64_t start_ns = 0, end_ns = 0; // window [start, end); end 0: to the end of the run
    std::uint64_t counter_interval_ns = 1'000'000; // cache-miss counters at most once per this, per CPU
};

// "START:END" in simulated seconds (decimals allowed) -> [start, end) in ns. Throws config_error
// naming `option` when it is not two non-negative numbers with END after START.
std::pair<std::uint64_t, std::uint64_t> parse_trace_window(const std::string& text,
                                                           const std::string& option);

} // namespace warmsched::sim
