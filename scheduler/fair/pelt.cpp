// PELT arithmetic; see pelt.h.
#include "scheduler/fair/pelt.h"

#include <array>

namespace warmsched::scheduler {

namespace {
// runnable_avg_yN_inv[n] = 2^32 * y^n (kernel/sched/sched-pelt.h).
constexpr std::array<std::uint32_t, load_avg_period> yn_inv = {
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
    0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
    0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
    0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
};

std::uint64_t accumulate_segments(std::uint64_t periods, std::uint32_t d1, std::uint32_t d3) {
    const std::uint64_t c1 = pelt_decay(d1, periods);
    const std::uint64_t c2 = load_avg_max - pelt_decay(load_avg_max, periods) - 1024;
    return c1 + c2 + d3;
}
} // namespace

std::uint64_t pelt_decay(std::uint64_t val, std::uint64_t n) {
    if (n > load_avg_period * 63) return 0;
    if (n >= load_avg_period) {
        val >>= n / load_avg_period;
        n %= load_avg_period;
    }
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(val) * yn_inv[n]) >> 32);
}

bool pelt_update_sum(std::uint64_t now, sched_avg& sa, std::uint64_t load, std::uint64_t runnable,
                     bool running) {
    if (now < sa.last_update_time) {
        sa.last_update_time = now;
        return false;
    }
    std::uint64_t delta = (now - sa.last_update_time) >> 10;
    if (!delta) return false;
    sa.last_update_time += delta << 10;
    if (!load) runnable = 0, running = false;
    // accumulate_sum
    std::uint64_t contrib = delta;
    delta += sa.period_contrib;
    const std::uint64_t periods = delta / 1024;
    if (periods) {
        sa.load_sum = pelt_decay(sa.load_sum, periods);
        sa.runnable_sum = pelt_decay(sa.runnable_sum, periods);
        sa.util_sum = pelt_decay(sa.util_sum, periods);
        delta %= 1024;
        if (load)
            contrib =
                accumulate_segments(periods, 1024 - sa.period_contrib, static_cast<std::uint32_t>(delta));
    }
    sa.period_contrib = static_cast<std::uint32_t>(delta);
    if (load) sa.load_sum += load * contrib;
    if (runnable) sa.runnable_sum += (runnable * contrib) << capacity_shift;
    if (running) sa.util_sum += contrib << capacity_shift;
    return periods > 0;
}

void pelt_update_avg(sched_avg& sa, std::uint64_t load) {
    const std::uint64_t d = pelt_divider(sa);
    sa.load_avg = load * sa.load_sum / d;
    sa.runnable_avg = sa.runnable_sum / d;
    sa.util_avg = sa.util_sum / d;
}

} // namespace warmsched::scheduler
