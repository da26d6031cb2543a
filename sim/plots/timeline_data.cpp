// Timeline data files for the plots; see timeline_data.h.
#include "sim/plots/timeline_data.h"
#include "base/files/output_file.h"

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
// A well-spread hue per process (0..1, the golden-ratio walk); the plot script turns it into a colour
// with gnuplot's hsv2rgb at fixed saturation and value.
double hue_of(int tgid) {
    return std::fmod(0.618033988749895 * static_cast<double>(tgid), 1.0);
}
} // namespace

void write_timeline_data(const std::string& dir, const sched_timeline& t) {
    const fs::path plots = fs::path(dir) / "plots";
    base::make_directories(plots.string());
    char b[160];
    {
        base::output_file out((plots / "timeline.dat").string());
        out << "cpu start_ms end_ms pid tgid hue\n";
        for (const auto& s : t.slices()) {
            std::snprintf(b, sizeof b, "%u %.6f %.6f %d %d %.6f\n", s.cpu, static_cast<double>(s.start) / 1e6,
                          static_cast<double>(s.end) / 1e6, s.pid, s.tgid, hue_of(s.tgid));
            out << b;
        }
        out.close();
    }
    constexpr int bins = 100;
    const scheduler::nsec span = t.end() > t.start() ? t.end() - t.start() : 1;
    std::vector<std::array<unsigned, 4>> count(bins, std::array<unsigned, 4>{});
    for (const auto& m : t.migrations()) {
        const auto i = static_cast<std::size_t>((m.t - t.start()) * bins / span);
        ++count[std::min<std::size_t>(i, bins - 1)][static_cast<std::size_t>(m.distance)];
    }
    base::output_file out((plots / "migrations.dat").string());
    out << "time_ms \"SMT sibling\" \"same LLC\" \"other LLC\" \"other node\"\n";
    for (int i = 0; i < bins; ++i) {
        const double mid = static_cast<double>(t.start()) + (i + 0.5) * static_cast<double>(span) / bins;
        std::snprintf(b, sizeof b, "%.6f %u %u %u %u\n", mid / 1e6, count[i][0], count[i][1], count[i][2],
                      count[i][3]);
        out << b;
    }
    out.close();
}

} // namespace warmsched::sim
