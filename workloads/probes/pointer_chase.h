// Probe "latency": a pointer chase on one CPU, as lmbench's lat_mem_rd does it -- every load depends on
// the one before, so the time per load is the load-to-use latency of wherever the footprint lives. The
// chase follows one random cycle through all lines of the footprint (no prefetcher to defeat here, but
// it keeps the cache sets evenly used). Each footprint is warmed with one full pass, then measured.
#pragma once

#include "models/system/machine.h"

#include <array>
#include <vector>

namespace warmsched::workloads {

struct pointer_chase_options {
    unsigned cpu = 0;
    std::vector<std::uint64_t> footprints; // bytes
    std::uint64_t max_loads = 1 << 20; // measured loads per footprint (at least one full cycle up to this)
    std::uint64_t max_warm_loads = 1 << 22; // warm-up loads per footprint
    std::uint64_t seed = 1;
};

struct pointer_chase_point {
    std::uint64_t footprint = 0;
    std::uint64_t loads = 0;
    double ns_per_load = 0;
    std::array<std::uint64_t, static_cast<int>(models::mem_source::count)> by_source{};
};

class pointer_chase {
public:
    pointer_chase(models::machine& m, pointer_chase_options o);
    // Runs the probe; call from a SystemC thread (the probe's program). Results accumulate in results().
    void run();
    const std::vector<pointer_chase_point>& results() const { return results_; }

private:
    models::machine& m_;
    pointer_chase_options o_;
    std::vector<pointer_chase_point> results_;
};

// 4 KiB, 8 KiB, ... up to `max` (powers of two).
std::vector<std::uint64_t> power_of_two_footprints(std::uint64_t min, std::uint64_t max);

} // namespace warmsched::workloads
