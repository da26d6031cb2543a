// The set-associative tag array: hits, misses, LRU replacement within a set, invalidation, and
// reproducible random replacement.
#include "models/cache/tag_array.h"

#include <catch2/catch.hpp>

using warmsched::models::line_state;
using warmsched::models::tag_array;

TEST_CASE("geometry follows size, associativity and line size") {
    tag_array t(32 * 1024, 8, 64, false, 1);
    CHECK(t.num_sets() == 64);
    CHECK(t.capacity_lines() == 512);
    tag_array odd(30 * 1024 * 1024, 20, 64, false, 1); // non-power-of-two sets (Haswell-EP L3)
    CHECK(odd.num_sets() == 24576);
}

TEST_CASE("a set holds `associativity` lines and evicts the least recently used") {
    tag_array t(4 * 64 * 4, 4, 64, false, 1); // 4 sets of 4 ways
    // Lines 0, 4, 8, ... map to set 0.
    for (std::uint64_t i = 0; i < 4; ++i)
        CHECK(t.insert(i * 4, line_state::exclusive).line == tag_array::no_line);
    CHECK(t.access(0) == line_state::exclusive); // 0 becomes most recent; 4 is now least recent
    const auto v = t.insert(16, line_state::shared);
    CHECK(v.line == 4);
    CHECK(v.state == line_state::exclusive);
    CHECK(t.find(4) < 0);
    CHECK(t.find(0) >= 0);
    CHECK(t.access(99) == line_state::invalid); // miss
    CHECK(t.occupancy() == 4);
}

TEST_CASE("invalidate removes a line and reports its state, dirty state survives until then") {
    tag_array t(1024, 2, 64, false, 1);
    t.insert(3, line_state::exclusive);
    t.set_state(3, t.find(3), line_state::modified);
    CHECK(t.invalidate(3) == line_state::modified);
    CHECK(t.invalidate(3) == line_state::invalid);
    CHECK(t.find(3) < 0);
}

TEST_CASE("random replacement is reproducible from its seed") {
    auto victims = [](std::uint64_t seed) {
        tag_array t(64 * 8, 8, 64, true, seed); // one set of 8 ways
        std::vector<std::uint64_t> v;
        for (std::uint64_t i = 0; i < 100; ++i) v.push_back(t.insert(i, line_state::shared).line);
        return v;
    };
    CHECK(victims(7) == victims(7));
    CHECK(victims(7) != victims(8));
}
