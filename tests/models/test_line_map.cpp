// The open-addressing line map must behave like a map under inserts and erases (including the
// backward-shift deletion that keeps probe runs intact) and across growth.
#include "models/common/line_map.h"

#include <catch2/catch.hpp>

#include <map>
#include <random>

TEST_CASE("line_map matches std::map under random inserts and erases") {
    warmsched::models::line_map<int> m(16);
    std::map<std::uint64_t, int> ref;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t key = rng() % 5000;
        if (rng() % 3 == 0) {
            CHECK(m.erase(key) == (ref.erase(key) == 1));
        } else {
            m[key] = i;
            ref[key] = i;
        }
    }
    REQUIRE(m.size() == ref.size());
    for (const auto& [k, v] : ref) {
        const int* got = m.find(k);
        REQUIRE(got);
        CHECK(*got == v);
    }
    for (std::uint64_t k = 5000; k < 5100; ++k) CHECK(m.find(k) == nullptr);
}

TEST_CASE("line_map keeps runs of consecutive lines exact across erases and growth") {
    // Buffers and stacks: runs of consecutive line addresses, far apart, which share hashed bases.
    warmsched::models::line_map<int> m(16);
    std::map<std::uint64_t, int> ref;
    std::mt19937_64 rng(7);
    for (int i = 0; i < 100000; ++i) {
        const std::uint64_t key = (rng() % 300) * 4099 + rng() % 24;
        if (rng() % 4 == 0) {
            CHECK(m.erase(key) == (ref.erase(key) == 1));
        } else {
            m[key] = i;
            ref[key] = i;
        }
    }
    REQUIRE(m.size() == ref.size());
    for (const auto& [k, v] : ref) {
        const int* got = m.find(k);
        REQUIRE(got);
        CHECK(*got == v);
    }
    for (std::uint64_t k = 0; k < 300 * 4099; k += 4099)
        for (std::uint64_t j = 24; j < 28; ++j) CHECK(m.find(k + j) == nullptr);
}
