// Probe "migrate": what moving a warm task costs. A task with a working set of `ws` bytes first writes
// every line once (as a program initialises its data), then sweeps it -- independent accesses to every
// line, each sweep in a new random order, a fraction of them stores -- on CPU `from` until its caches
// are warm, and continues on CPU `to`. Every sweep touches the whole working set, so the first sweep
// after the move refetches whatever the old CPU's private caches held (for a working set larger than
// the private L2, that is the part LRU kept: with a new order per sweep, a minority of it). The extra time of
// the first sweep after the move over a warm sweep, and where that sweep's lines came from, are the refill
// cost -- produced by the caches and the fabric, not by any migration constant.
#pragma once

#include "models/system/machine.h"

#include <array>
#include <vector>

namespace warmsched::workloads {

struct migrate_refill_options {
    std::uint64_t working_set = 1ull << 20;
    double write_fraction = 0.25;
    unsigned warm_sweeps = 3;
    std::vector<std::pair<unsigned, unsigned>> moves; // (from, to)
    std::uint64_t seed = 1;
};

struct migrate_refill_result {
    unsigned from = 0, to = 0;
    std::string relation;
    double warm_sweep_us = 0;  // last sweep before the move
    double moved_sweep_us = 0; // first sweep after the move
    double extra_us = 0;       // moved - warm
    std::array<std::uint64_t, static_cast<int>(models::mem_source::count)>
        lines_from{}; // first sweep after the move
};

class migrate_refill {
public:
    migrate_refill(models::machine& m, migrate_refill_options o);
    // Runs the probe; call from a SystemC thread (the probe's program). Results accumulate in results().
    void run();
    const std::vector<migrate_refill_result>& results() const { return results_; }

private:
    models::machine& m_;
    migrate_refill_options o_;
    std::vector<migrate_refill_result> results_;
};

// One move per relation present on the platform, from CPU 0: SMT sibling, same LLC, other LLC in the
// socket (the farthest grouping level), other socket.
std::vector<std::pair<unsigned, unsigned>> default_moves(const platform::topology& t);

} // namespace warmsched::workloads
