// What both releases of schbench share (schbench.h, schbench_2021.h): the futex states of fpost/fwait,
// gettimeofday's microsecond deltas, usec_spin's deadline, the runtime as printed, the option specs of their
// getopt tables, and the main thread's start on the first CPU it may use.
#pragma once

#include "workloads/cli/option_parser.h"
#include "workloads/kernel/program.h"
#include "workloads/kernel/sim_kernel.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads::schbench_parts {

constexpr long blocked = 0; // FUTEX_BLOCKED
constexpr long running = 1; // FUTEX_RUNNING

// tvdelta of two gettimeofday readings: stop - start in whole microseconds, 0 if negative.
inline std::uint64_t usec_delta(scheduler::nsec start, scheduler::nsec stop) {
    const std::uint64_t a = start / 1000, b = stop / 1000;
    return b > a ? b - a : 0;
}

// A histogram value: schbench's unsigned int, saturated.
inline unsigned clamp_u32(double v) {
    return v >= 4294967295.0 ? 4294967295u : static_cast<unsigned>(v);
}

// usec_spin(T) started at `start` returns at the first gettimeofday reading with tvdelta > T: the deadline
// of its op::spin_until.
inline scheduler::nsec spin_deadline(scheduler::nsec start, unsigned usec) {
    return (start / 1000 + usec + 1) * 1000;
}

// -r as the header prints it: whole seconds as an integer, a fraction (a warmsched extension) as given.
inline std::string seconds_text(double s) {
    char buf[32];
    if (s == std::floor(s))
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(s));
    else
        std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

// -c NUMBER (--name): an integer >= min (0 or 1) into `field`.
inline option_spec number_option(char c, const char* name, unsigned& field, long long min) {
    return option_spec{c, name, true, [c, name, &field, min](const std::string& v) {
                           long long x = 0;
                           if (!parse_int(v, min, 1'000'000'000, x))
                               return "schbench: -" + std::string(1, c) + " (--" + name +
                                      ") requires an integer " + (min > 0 ? ">= 1" : ">= 0") + ", got '" + v +
                                      "'";
                           field = static_cast<unsigned>(x);
                           return std::string();
                       }};
}

// -r SECONDS (--runtime): fractions allowed; 0 ("forever" to schbench) refused.
inline option_spec runtime_option(double& runtime_s) {
    return option_spec{'r', "runtime", true, [&runtime_s](const std::string& v) {
                           char* end = nullptr;
                           const double s = std::strtod(v.c_str(), &end);
                           if (v.empty() || end != v.c_str() + v.size() || !(s > 0) || s > 1e6)
                               return "schbench: -r (--runtime) requires a number of seconds > 0, got '" + v +
                                      "' (schbench's 0 means forever, which a simulation cannot end)";
                           runtime_s = s;
                           return std::string();
                       }};
}

// An option of the real tool whose mode is not modelled: refused, saying why.
inline option_spec unsupported_option(char c, const char* name, bool takes_value, const char* why) {
    return option_spec{c, name, takes_value, [c, name, why](const std::string&) {
                           return "schbench: -" + std::string(1, c) + " (--" + name +
                                  ") is not supported: " + why;
                       }};
}

// The main thread, started on the first CPU of `allowed` (CPU 0 when it is empty).
inline void spawn_main(sim_kernel& k, const std::vector<bool>& allowed, std::shared_ptr<program> body) {
    spawn_spec s;
    s.comm = "schbench";
    s.allowed = allowed;
    s.body = std::move(body);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(s, cpu);
}

} // namespace warmsched::workloads::schbench_parts
