// Progress line on stderr; see progress_meter.h.
#include "sim/outputs/progress_meter.h"

#include <unistd.h>

#include <cstdio>

namespace warmsched::sim {

progress_meter::progress_meter(std::ostream& err, std::uint64_t duration_ns)
    : err_(err), duration_ns_(duration_ns), start_(std::chrono::steady_clock::now()),
      next_print_(start_ + std::chrono::seconds(2)) {}

bool progress_meter::wanted(int fd) {
    return ::isatty(fd) == 1;
}

void progress_meter::sched_tick(unsigned, scheduler::nsec now) {
    if (++ticks_ % 64 != 0) return; // the wall clock is read every 64 ticks (of any CPU)
    const auto wall = std::chrono::steady_clock::now();
    if (wall < next_print_) return;
    next_print_ = wall + std::chrono::seconds(1);
    const double wall_s = std::chrono::duration<double>(wall - start_).count();
    const double sim_s = static_cast<double>(now) / 1e9;
    char b[200];
    if (duration_ns_ && now > 0) {
        const double total_s = static_cast<double>(duration_ns_) / 1e9;
        const double eta = wall_s * (total_s - sim_s) / sim_s;
        std::snprintf(b, sizeof b,
                      "\rwarmsched: simulated %.6f of %.6f s (%.0f%%), %.1f s wall, ETA %.0f s   ", sim_s,
                      total_s, 100.0 * sim_s / total_s, wall_s, eta > 0 ? eta : 0.0);
    } else {
        std::snprintf(b, sizeof b,
                      "\rwarmsched: simulated %.6f s, %.1f s wall (runs until the workloads end)   ", sim_s,
                      wall_s);
    }
    err_ << b << std::flush;
    shown_ = true;
}

void progress_meter::clear() {
    if (shown_) err_ << "\r\033[K" << std::flush;
    shown_ = false;
}

} // namespace warmsched::sim
