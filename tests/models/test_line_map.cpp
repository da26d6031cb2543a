// The open-addressing line map must behave like a map under inserts and erases (including the
// backward-shift deletion that keeps probe runs intact) and across growth, for scattered keys and for
// the runs of consecutive lines that share hashed bases.
#include "models/common/line_map.h"

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <random>

namespace {
// `steps` random inserts and erases (one in `erase_one_in`) of keys from `next_key`, mirrored in a
// std::map; then every key of the reference must be found with its value.
warmsched::models::line_map<int> mirrored(int steps, unsigned erase_one_in,
                                          const std::function<std::uint64_t(std::mt19937_64&)>& next_key,
                                          std::mt19937_64& rng) {
    warmsched::models::line_map<int> m(16);
    std::map<std::uint64_t, int> ref;
    for (int i = 0; i < steps; ++i) {
        const std::uint64_t key = next_key(rng);
        if (rng() % erase_one_in == 0) {
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
    return m;
}
} // namespace

TEST_CASE("line_map matches std::map under random inserts and erases") {
    std::mt19937_64 rng(3);
    auto m = mirrored(
        200000, 3, [](std::mt19937_64& r) { return r() % 5000; }, rng);
    for (std::uint64_t k = 5000; k < 5100; ++k) CHECK(m.find(k) == nullptr);
}

TEST_CASE("line_map keeps runs of consecutive lines exact across erases and growth") {
    // Buffers and stacks: runs of consecutive line addresses, far apart, which share hashed bases.
    std::mt19937_64 rng(7);
    auto m = mirrored(
        100000, 4, [](std::mt19937_64& r) { return (r() % 300) * 4099 + r() % 24; }, rng);
    for (std::uint64_t k = 0; k < 300 * 4099; k += 4099)
        for (std::uint64_t j = 24; j < 28; ++j) CHECK(m.find(k + j) == nullptr);
}
