// The cpuidle "menu" governor (drivers/cpuidle/governors/menu.c, v5.15-v6.12; the x86 default with a
// tickless kernel): which idle state an idle CPU enters, from the time to its next timer event corrected
// by how long past idle periods really were, and from the repeating pattern of the last 8 periods.
//
//   select(next_timer, tick_stopped): after the last period's update (reflect), state 0 if the next timer
//     is closer than state 1's target residency; otherwise predicted = next_timer x correction_factor
//     [its bucket] (rounded to us), lowered to the typical interval when the last 8 are steady (stddev
//     <= 20 us or avg > 6 stddev, outliers above dropped down to 6 of 8); with the tick running the
//     exit latency may not exceed predicted either (performance_multiplier 1: no I/O waiters modelled);
//     then the deepest enabled state whose target residency fits.
//   reflect(residency, state, polled_out): residency less the state's exit latency (halved when shorter
//     than twice it), capped at the next timer; the bucket's factor decays by 1/8 and takes measured /
//     next_timer; the interval enters the ring. A POLL left at its time limit counts as next_timer.
//
// Left out: PM QoS latency requests (none are made), I/O waiters (nr_iowait_cpu is 0: the buckets' upper
// half is unused), the tick-wakeup correction (the model stops the tick in every idle period, so no idle
// period ends at a tick that menu expected to be stopped), the retry below a retained tick (the last
// block of menu_select, which only matters when the tick keeps running) and, with the tick stopped, the
// step to a deeper state whose residency fits before the next tick (delta_tick).
#pragma once

#include "platforms/platform_params.h"

#include <array>
#include <cstdint>
#include <vector>

namespace warmsched::workloads {

class menu_governor {
public:
    static constexpr int buckets = 12;
    static constexpr int intervals = 8; // 1 << INTERVAL_SHIFT
    static constexpr std::uint64_t resolution = 1024, decay = 8;
    static constexpr std::uint64_t max_interesting_ns = 50'000'000; // 50 ms
    static constexpr std::uint64_t tick_ns = 4'000'000;             // TICK_NSEC at HZ=250

    // `states` as the platform lists them; states deeper than `max_index` are disabled (max_cstate).
    menu_governor(const std::vector<platform::idle_state_params>& states, int max_index);

    // The state to enter for an idle period whose next timer event is `next_timer_ns` away.
    int select(std::uint64_t next_timer_ns, bool tick_stopped);
    // The period just ended: `residency_ns` in state `index`; `polled_out`: a POLL that hit its limit.
    void reflect(std::uint64_t residency_ns, int index, bool polled_out);
    // cpuidle_poll_time: how long POLL spins before the governor is asked again (the smallest target
    // residency of the enabled physical states, at most a tick).
    std::uint64_t poll_limit_ns() const { return poll_limit_ns_; }
    std::uint64_t predicted_ns() const { return predicted_ns_; } // of the last select (tests)
    // get_typical_interval: the mean of the last 8 periods when they are steady, UINT_MAX otherwise or
    // when even the shortest of them is longer than `predicted_us`.
    unsigned typical_interval_us(std::uint64_t predicted_us) const;

private:
    struct state {
        std::uint64_t exit_latency_ns, target_residency_ns;
        bool polling, enabled;
    };
    std::vector<state> states_;
    std::array<std::uint64_t, buckets> correction_{};
    std::array<unsigned, intervals> intervals_{};
    int interval_ptr_ = 0;
    int bucket_ = 0;
    std::uint64_t next_timer_ns_ = 0, predicted_ns_ = 0, poll_limit_ns_ = tick_ns;
};

} // namespace warmsched::workloads
