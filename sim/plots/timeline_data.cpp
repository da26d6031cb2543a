// Timeline data files for the plots; see timeline_data.h.
#include "sim/plots/timeline_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace warmsched::sim {
namespace fs = std::filesystem;

namespace {
// A well-spread colour per process: the golden-ratio hue walk, at fixed saturation and value.
unsigned colour_of(int tgid) {
    const double h = std::fmod(0.618033988749895 * static_cast<double>(tgid), 1.0) * 6.0;
    const double s = 0.65, v = 0.9;
    const int i = static_cast<int>(h);
    const double f = h - i, p = v * (1 - s), q = v * (1 - s * f), u = v * (1 - s * (1 - f));
    double r = v, g = u, b = p;
    switch (i % 6) {
    case 1:
        r = q, g = v, b = p;
        break;
    case 2:
        r = p, g = v, b = u;
        break;
    case 3:
        r = p, g = q, b = v;
        break;
    case 4:
        r = u, g = p, b = v;
        break;
    case 5:
        r = v, g = p, b = q;
        break;
    default:
        break;
    }
    auto byte = [](double x) { return static_cast<unsigned>(x * 255 + 0.5); };
    return byte(r) << 16 | byte(g) << 8 | byte(b);
}
} // namespace

void write_timeline_data(const std::string& dir, const sched_timeline& t) {
    const fs::path plots = fs::path(dir) / "plots";
    fs::create_directories(plots);
    char b[160];
    {
        std::ofstream out(plots / "timeline.dat");
        out << "cpu start_ms end_ms pid tgid colour\n";
        for (const auto& s : t.slices()) {
            std::snprintf(b, sizeof b, "%u %.6f %.6f %d %d %u\n", s.cpu, static_cast<double>(s.start) / 1e6,
                          static_cast<double>(s.end) / 1e6, s.pid, s.tgid, colour_of(s.tgid));
            out << b;
        }
    }
    constexpr int bins = 100;
    const scheduler::nsec span = t.end() > t.start() ? t.end() - t.start() : 1;
    std::vector<std::array<unsigned, 4>> count(bins, std::array<unsigned, 4>{});
    for (const auto& m : t.migrations()) {
        const auto i = static_cast<std::size_t>((m.t - t.start()) * bins / span);
        ++count[std::min<std::size_t>(i, bins - 1)][static_cast<std::size_t>(m.distance)];
    }
    std::ofstream out(plots / "migrations.dat");
    out << "time_ms \"SMT sibling\" \"same LLC\" \"other LLC\" \"other node\"\n";
    for (int i = 0; i < bins; ++i) {
        const double mid = static_cast<double>(t.start()) + (i + 0.5) * static_cast<double>(span) / bins;
        std::snprintf(b, sizeof b, "%.6f %u %u %u %u\n", mid / 1e6, count[i][0], count[i][1], count[i][2],
                      count[i][3]);
        out << b;
    }
}

} // namespace warmsched::sim
