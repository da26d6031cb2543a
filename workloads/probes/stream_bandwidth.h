// Probe "bandwidth": CPUs stream reads through private buffers at once, as STREAM's read kernels do;
// each CPU keeps as many misses in flight as its core allows. Reports the aggregate read bandwidth of
// each CPU set. Buffers are first touched by their reader, so the traffic goes to local memory.
#pragma once

#include "models/system/machine.h"

#include <string>
#include <vector>

namespace warmsched::workloads {

struct stream_set {
    std::string label; // e.g. "1 core", "llc0 (8 cores)"
    std::vector<unsigned> cpus;
};

struct stream_bandwidth_options {
    std::vector<stream_set> sets;
    std::uint64_t bytes_per_cpu = 16ull << 20;
};

struct stream_bandwidth_result {
    std::string label;
    unsigned cpus = 0;
    double gb_per_s = 0;
};

class stream_bandwidth {
public:
    stream_bandwidth(models::machine& m, stream_bandwidth_options o);
    // Runs the probe; call from a SystemC thread (the probe's program). Results accumulate in results().
    void run();
    const std::vector<stream_bandwidth_result>& results() const { return results_; }

private:
    models::machine& m_;
    stream_bandwidth_options o_;
    std::vector<stream_bandwidth_result> results_;
};

// The default sets: one core, all cores of LLC 0, all cores of socket 0, all cores (one thread per core).
std::vector<stream_set> default_stream_sets(const platform::topology& t);

} // namespace warmsched::workloads
