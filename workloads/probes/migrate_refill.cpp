// Migration refill probe; see migrate_refill.h.
#include "workloads/probes/migrate_refill.h"

#include "workloads/probes/line_bounce.h"

#include <algorithm>
#include <random>

namespace warmsched::workloads {

std::vector<std::pair<unsigned, unsigned>> default_moves(const platform::topology& t) {
    std::vector<std::pair<unsigned, unsigned>> moves;
    std::vector<std::string> seen;
    // Walk CPUs from far to near so each relation gets its farthest representative, then order by distance.
    for (unsigned cpu = t.num_cpus(); cpu-- > 1;) {
        const std::string rel = cpu_relation(t, 0, cpu);
        if (std::find(seen.begin(), seen.end(), rel) != seen.end()) continue;
        seen.push_back(rel);
        moves.emplace_back(0, cpu);
    }
    std::reverse(moves.begin(), moves.end());
    return moves;
}

migrate_refill::migrate_refill(models::machine& m, migrate_refill_options o) : m_(m), o_(std::move(o)) {}

void migrate_refill::run() {
    const std::uint64_t line = m_.line_size();
    const std::uint64_t lines = std::max<std::uint64_t>(1, o_.working_set / line);
    std::mt19937_64 rng(o_.seed);
    std::uniform_real_distribution<double> coin(0, 1);
    std::vector<std::uint64_t> order(lines);
    for (std::uint64_t k = 0; k < lines; ++k) order[k] = k;
    std::vector<models::mem_access> sweep(lines);
    std::uint64_t region = 1ull << 46;
    auto new_sweep = [&] {
        std::shuffle(order.begin(), order.end(), rng);
        for (std::uint64_t k = 0; k < lines; ++k)
            sweep[k] = {region + order[k] * line, coin(rng) < o_.write_fraction};
    };
    for (const auto& [from, to] : o_.moves) {
        models::hart& a = m_.cpu(from);
        models::hart& b = m_.cpu(to);
        a.sync();
        // Initialise: touch every line once (as a program initialises its data), then warm up.
        for (std::uint64_t k = 0; k < lines; ++k) sweep[k] = {region + k * line, true};
        a.stream(sweep.data(), lines, true);
        double warm = 0;
        for (unsigned s = 0; s < std::max(1u, o_.warm_sweeps); ++s) {
            new_sweep();
            warm = static_cast<double>(a.stream(sweep.data(), lines, false));
        }
        a.sync();
        b.sync();
        new_sweep();
        const auto before = b.stats().accesses;
        const double moved = static_cast<double>(b.stream(sweep.data(), lines, false));
        b.sync();
        migrate_refill_result r;
        r.from = from;
        r.to = to;
        r.relation = cpu_relation(m_.topo(), from, to);
        r.warm_sweep_us = warm / 1e6;
        r.moved_sweep_us = moved / 1e6;
        r.extra_us = (moved - warm) / 1e6;
        for (std::size_t s = 0; s < r.lines_from.size(); ++s)
            r.lines_from[s] = b.stats().accesses[s] - before[s];
        results_.push_back(r);
        region += 1ull << 40;
    }
}

} // namespace warmsched::workloads
