// Progress line on stderr; see progress_meter.h.
#include "sim/outputs/progress_meter.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace warmsched::sim {

progress_meter::progress_meter(std::ostream& err, std::uint64_t end_ns, wall_clock clock)
    : err_(err), end_ns_(end_ns), clock_(std::move(clock)), start_(clock_()), next_print_(start_ + 2) {}

double progress_meter::steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void speed_window::add(double wall_s, double sim_s) {
    samples_.emplace_back(wall_s, sim_s);
    while (samples_.size() > 2 && samples_[1].first <= wall_s - window_s_) samples_.pop_front();
}

double speed_window::speed() const {
    if (samples_.size() < 2) return 0;
    const double wall = samples_.back().first - samples_.front().first;
    return wall > 0 ? (samples_.back().second - samples_.front().second) / wall : 0;
}

double speed_window::eta(double total_sim_s) const {
    const double v = speed();
    if (v <= 0) return -1;
    return std::max(0.0, (total_sim_s - samples_.back().second) / v);
}

bool progress_meter::wanted(int fd) {
    return ::isatty(fd) == 1;
}

void progress_meter::observe(scheduler::nsec now) {
    furthest_ = std::max(furthest_, now);
    const double wall = clock_();
    if (wall < next_print_) return;
    next_print_ = wall + 1;
    const double wall_s = wall - start_;
    const double sim_s = static_cast<double>(furthest_) / 1e9;
    speed_.add(wall_s, sim_s);
    char b[200];
    if (end_ns_ && furthest_ > 0) {
        const double total_s = static_cast<double>(end_ns_) / 1e9;
        const double eta = speed_.eta(total_s);
        char left[48] = "ETA ?"; // the first print: one sample, no speed yet
        if (eta >= 0) std::snprintf(left, sizeof left, "ETA %.0f s", eta);
        std::snprintf(b, sizeof b, "\rwarmsched: simulated %.6f of %.6f s (%.0f%%), %.1f s wall, %s   ",
                      sim_s, total_s, std::min(100.0, 100.0 * sim_s / total_s), wall_s, left);
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
