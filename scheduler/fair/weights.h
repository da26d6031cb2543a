// Load weights of the fair class: the kernel's nice-to-weight table (sched_prio_to_weight, nice 0 =
// 1024, each nice step about 1.25x) and its precalculated inverses (sched_prio_to_wmult, 2^32 / weight
// rounded to nearest), which turn a division by a weight into a multiply. Weights off the table (group
// entities) get WMULT_CONST / weight, as __update_inv_weight computes it. SCHED_IDLE tasks weigh 3.
#pragma once

#include <array>
#include <cstdint>

namespace warmsched::scheduler {

constexpr std::array<std::uint32_t, 40> prio_to_weight = {
    /* -20 */ 88761, 71755, 56483, 46273, 36291,
    /* -15 */ 29154, 23254, 18705, 14949, 11916,
    /* -10 */ 9548,  7620,  6100,  4904,  3906,
    /*  -5 */ 3121,  2501,  1991,  1586,  1277,
    /*   0 */ 1024,  820,   655,   526,   423,
    /*   5 */ 335,   272,   215,   172,   137,
    /*  10 */ 110,   87,    70,    56,    45,
    /*  15 */ 36,    29,    23,    18,    15,
};

constexpr std::array<std::uint32_t, 40> prio_to_wmult = {
    /* -20 */ 48388,     59856,     76040,     92818,     118348,
    /* -15 */ 147320,    184698,    229616,    287308,    360437,
    /* -10 */ 449829,    563644,    704093,    875809,    1099582,
    /*  -5 */ 1376151,   1717300,   2157191,   2708050,   3363326,
    /*   0 */ 4194304,   5237765,   6557202,   8165337,   10153587,
    /*   5 */ 12820798,  15790321,  19976592,  24970740,  31350126,
    /*  10 */ 39045157,  49367440,  61356676,  76695844,  95443717,
    /*  15 */ 119304647, 148102320, 186737708, 238609294, 286331153,
};

constexpr std::uint32_t nice_0_weight = 1024;
constexpr std::uint32_t sched_idle_weight = 3;

// Weight of a nice value in [-20, 19].
constexpr std::uint32_t weight_of_nice(int nice) {
    return prio_to_weight[static_cast<std::size_t>(nice + 20)];
}
constexpr std::uint32_t inverse_weight_of_nice(int nice) {
    return prio_to_wmult[static_cast<std::size_t>(nice + 20)];
}
// WMULT_CONST / weight (WMULT_CONST = 2^32 - 1), for weights that are not on the nice table.
constexpr std::uint32_t inverse_weight(std::uint32_t weight) {
    return 0xffffffffu / weight;
}

} // namespace warmsched::scheduler
