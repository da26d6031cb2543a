// Chrome JSON trace; see chrome_trace_writer.h.
#include "sim/outputs/chrome_trace_writer.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace warmsched::sim {
namespace {
// Microseconds with ns resolution, as a JSON number (a double would print 17 digits).
std::string us(scheduler::nsec t) {
    char b[40];
    std::snprintf(b, sizeof b, "%llu.%03llu", static_cast<unsigned long long>(t / 1000),
                  static_cast<unsigned long long>(t % 1000));
    return b;
}
} // namespace

void write_chrome_trace(std::ostream& out, const sched_timeline& t, const nlohmann::ordered_json& run) {
    using json = nlohmann::ordered_json;
    // One event per line; numbers for ts/dur are spliced in as text to keep ns resolution exact.
    bool first = true;
    auto event = [&](const json& fields, const std::string& ts, const std::string& dur = std::string()) {
        std::string text = fields.dump();
        text.pop_back(); // the closing brace
        text += ",\"ts\":" + ts + (dur.empty() ? std::string() : ",\"dur\":" + dur) + "}";
        out << (first ? "\n" : ",\n") << text;
        first = false;
    };
    out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    event({{"ph", "M"}, {"pid", 0}, {"tid", 0}, {"name", "process_name"}, {"args", {{"name", "CPUs"}}}}, "0");
    event(
        {{"ph", "M"}, {"pid", 0}, {"tid", 0}, {"name", "process_sort_index"}, {"args", {{"sort_index", 0}}}},
        "0");
    for (unsigned c = 0; c < t.num_cpus(); ++c) {
        event({{"ph", "M"},
               {"pid", 0},
               {"tid", c},
               {"name", "thread_name"},
               {"args", {{"name", "cpu" + std::to_string(c)}}}},
              "0");
        event({{"ph", "M"},
               {"pid", 0},
               {"tid", c},
               {"name", "thread_sort_index"},
               {"args", {{"sort_index", c}}}},
              "0");
    }
    for (const auto& s : t.slices()) {
        const std::string& comm = t.names().at(s.pid);
        event({{"ph", "X"},
               {"pid", 0},
               {"tid", s.cpu},
               {"name", comm},
               {"cat", "sched"},
               {"args", {{"pid", s.pid}, {"tgid", s.tgid}, {"comm", comm}}}},
              us(s.start), us(s.end - s.start));
    }
    for (const auto& m : t.migrations())
        event({{"ph", "i"},
               {"s", "t"},
               {"pid", 0},
               {"tid", m.dest},
               {"name", "migrate " + t.names().at(m.pid) + "-" + std::to_string(m.pid)},
               {"cat", "migration"},
               {"args",
                {{"pid", m.pid},
                 {"orig_cpu", m.orig},
                 {"dest_cpu", m.dest},
                 {"distance", sched_timeline::distance_name(m.distance)}}}},
              us(m.t));
    for (const auto& s : t.samples())
        event({{"ph", "C"},
               {"pid", 0},
               {"tid", s.cpu},
               {"name", "cpu" + std::to_string(s.cpu) + " misses"},
               {"args", {{"L1d", s.l1d}, {"L2", s.l2}, {"L3", s.l3}}}},
              us(s.t));
    for (const auto& l : t.levels())
        event({{"ph", "C"},
               {"pid", 0},
               {"tid", l.cpu},
               {"name", "cpu" + std::to_string(l.cpu) + " nr_running"},
               {"args", {{"nr_running", l.nr_running}}}},
              us(l.t));
    out << "\n]";
    if (!run.is_null()) out << ",\"otherData\":" << run.dump();
    out << "}\n";
}

} // namespace warmsched::sim
