// The menu governor; see cpuidle_menu.h.
#include "workloads/kernel/cpuidle_menu.h"

#include <algorithm>
#include <climits>

namespace warmsched::workloads {
namespace {
constexpr std::uint64_t ns_per_us = 1000;

int which_bucket(std::uint64_t duration_ns) { // nr_iowaiters is 0
    if (duration_ns < 10 * ns_per_us) return 0;
    if (duration_ns < 100 * ns_per_us) return 1;
    if (duration_ns < 1000 * ns_per_us) return 2;
    if (duration_ns < 10000 * ns_per_us) return 3;
    if (duration_ns < 100000 * ns_per_us) return 4;
    return 5;
}
} // namespace

menu_governor::menu_governor(const std::vector<platform::idle_state_params>& states, int max_index) {
    for (std::size_t i = 0; i < states.size(); ++i) {
        const auto& s = states[i];
        states_.push_back({static_cast<std::uint64_t>(s.exit_latency_ps / 1000),
                           static_cast<std::uint64_t>(s.target_residency_ps / 1000), s.polling,
                           max_index < 0 || static_cast<int>(i) <= max_index});
    }
    correction_.fill(resolution * decay); // menu_enable_device
    for (std::size_t i = 1; i < states_.size(); ++i)
        if (states_[i].enabled) poll_limit_ns_ = std::min(poll_limit_ns_, states_[i].target_residency_ns);
}

unsigned menu_governor::typical_interval_us(std::uint64_t predicted_us) const {
    unsigned thresh = INT_MAX; // outliers above this are discarded
    for (;;) {
        unsigned max = 0, min = UINT_MAX;
        std::uint64_t sum = 0;
        int divisor = 0;
        for (unsigned v : intervals_)
            if (v <= thresh) {
                sum += v;
                ++divisor;
                max = std::max(max, v);
                min = std::min(min, v);
            }
        if (min >= predicted_us) return UINT_MAX; // the timer comes first anyway
        if (max == 0) return UINT_MAX;
        const std::uint64_t avg = divisor == intervals ? sum >> 3 : sum / static_cast<std::uint64_t>(divisor);
        std::uint64_t variance = 0;
        for (unsigned v : intervals_)
            if (v <= thresh) {
                const std::int64_t diff = static_cast<std::int64_t>(v) - static_cast<std::int64_t>(avg);
                variance += static_cast<std::uint64_t>(diff * diff);
            }
        variance = divisor == intervals ? variance >> 3 : variance / static_cast<std::uint64_t>(divisor);
        if (variance <= UINT64_MAX / 36 &&
            ((avg * avg > variance * 36 && divisor * 4 >= intervals * 3) || variance <= 400))
            return static_cast<unsigned>(avg);
        if (divisor * 4 <= intervals * 3) return UINT_MAX;
        thresh = max - 1;
    }
}

int menu_governor::select(std::uint64_t next_timer_ns, bool tick_stopped) {
    next_timer_ns_ = next_timer_ns;
    bucket_ = which_bucket(next_timer_ns);
    predicted_ns_ = next_timer_ns;
    if (states_.size() <= 1 ||
        (states_[0].enabled && next_timer_ns < states_[1].target_residency_ns)) // state 0 either way
        return 0;
    const unsigned __int128 scaled = static_cast<unsigned __int128>(next_timer_ns) * correction_[bucket_] +
                                     resolution * decay * ns_per_us / 2;
    const std::uint64_t predicted_us = static_cast<std::uint64_t>(scaled / (resolution * decay * ns_per_us));
    std::uint64_t predicted = std::min<std::uint64_t>(predicted_us, typical_interval_us(predicted_us)) * ns_per_us;
    std::uint64_t latency_req = UINT64_MAX;
    if (tick_stopped) {
        if (predicted < tick_ns) predicted = next_timer_ns;
    } else {
        latency_req = predicted; // interactivity_req: predicted / performance_multiplier(0) = predicted
    }
    int idx = -1;
    for (int i = 0; i < static_cast<int>(states_.size()); ++i) {
        const state& s = states_[i];
        if (!s.enabled) continue;
        if (idx == -1) idx = i; // the first enabled state
        if (s.target_residency_ns > predicted) {
            // A physical state, not busy polling, unless a timer is going to trigger soon enough.
            if (states_[idx].polling && s.exit_latency_ns <= latency_req &&
                s.target_residency_ns <= next_timer_ns) {
                predicted = s.target_residency_ns;
                idx = i;
            }
            break;
        }
        if (s.exit_latency_ns > latency_req) break;
        idx = i;
    }
    predicted_ns_ = predicted;
    return idx == -1 ? 0 : idx;
}

void menu_governor::reflect(std::uint64_t residency_ns, int index, bool polled_out) {
    std::uint64_t measured;
    if (states_[index].polling && polled_out) {
        measured = next_timer_ns_; // a better prediction would have let the next timer wake it
    } else {
        measured = residency_ns;
        const std::uint64_t exit = states_[index].exit_latency_ns;
        measured = measured > 2 * exit ? measured - exit : measured / 2;
    }
    measured = std::min(measured, next_timer_ns_); // coefficients do not exceed unity
    std::uint64_t factor = correction_[bucket_];
    factor -= factor / decay;
    if (next_timer_ns_ > 0 && measured < max_interesting_ns)
        factor += resolution * measured / next_timer_ns_;
    else
        factor += resolution; // idle so long that it counts as a perfect prediction
    correction_[bucket_] = factor;
    intervals_[interval_ptr_] = static_cast<unsigned>(std::min<std::uint64_t>(measured / ns_per_us, UINT_MAX));
    interval_ptr_ = (interval_ptr_ + 1) % intervals;
}

} // namespace warmsched::workloads
