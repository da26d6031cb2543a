// Pointer-chase latency probe; see pointer_chase.h.
#include "workloads/probes/pointer_chase.h"

#include <algorithm>
#include <random>

namespace warmsched::workloads {

pointer_chase::pointer_chase(models::machine& m, pointer_chase_options o) : m_(m), o_(std::move(o)) {}

std::vector<std::uint64_t> power_of_two_footprints(std::uint64_t min, std::uint64_t max) {
    std::vector<std::uint64_t> v;
    for (std::uint64_t f = min; f <= max; f *= 2) v.push_back(f);
    return v;
}

void pointer_chase::run() {
    models::hart& h = m_.cpu(o_.cpu);
    const std::uint64_t line = m_.line_size();
    std::mt19937_64 rng(o_.seed);
    std::vector<std::uint32_t> next;
    for (std::size_t i = 0; i < o_.footprints.size(); ++i) {
        const std::uint64_t fp = o_.footprints[i];
        const std::uint64_t lines = std::max<std::uint64_t>(1, fp / line);
        const std::uint64_t base = (static_cast<std::uint64_t>(i) + 1) << 40; // a fresh region per footprint
        // One random cycle through all lines (Sattolo's algorithm).
        next.resize(lines);
        for (std::uint64_t k = 0; k < lines; ++k) next[k] = static_cast<std::uint32_t>(k);
        for (std::uint64_t k = lines - 1; k > 0; --k) {
            std::uniform_int_distribution<std::uint64_t> pick(0, k - 1);
            std::swap(next[k], next[pick(rng)]);
        }
        std::uint32_t at = 0;
        const std::uint64_t warm = std::min(lines, o_.max_warm_loads);
        for (std::uint64_t k = 0; k < warm; ++k, at = next[at]) h.load(base + at * line);
        const auto before = h.stats().accesses;
        const std::uint64_t loads = std::min(std::max(lines, std::uint64_t{1} << 14), o_.max_loads);
        const models::ps_t t0 = h.now();
        for (std::uint64_t k = 0; k < loads; ++k, at = next[at]) h.load(base + at * line);
        pointer_chase_point p;
        p.footprint = fp;
        p.loads = loads;
        p.ns_per_load = static_cast<double>(h.now() - t0) / 1e3 / static_cast<double>(loads);
        for (std::size_t s = 0; s < p.by_source.size(); ++s)
            p.by_source[s] = h.stats().accesses[s] - before[s];
        results_.push_back(p);
    }
}

} // namespace warmsched::workloads
