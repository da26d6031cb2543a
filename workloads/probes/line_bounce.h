// Probe "c2c": two threads pinned to two CPUs bounce one cache line, as the core-to-core-latency tool
// does: each waits for the other's value, then does a compare-and-swap (a locked read-modify-write, which
// must take the line in exclusive state from the other core's cache). The one-way latency is half the
// round trip. Because a line's home (the directory it is looked up in) sits on one memory controller,
// each pair bounces one line per controller of the first CPU's NUMA node and averages them, so the figure
// does not depend on where a single line happened to be homed.
#pragma once

#include "models/system/machine.h"

#include <string>
#include <utility>
#include <vector>

namespace warmsched::workloads {

struct line_bounce_options {
    std::vector<std::pair<unsigned, unsigned>> pairs;
    unsigned round_trips = 100; // per line
    unsigned warmup_round_trips = 4;
};

struct line_bounce_result {
    unsigned a = 0, b = 0;
    std::string relation; // smt, same_llc, same_<group>, same_socket, cross_socket
    double one_way_ns = 0;
};

class line_bounce {
public:
    line_bounce(models::machine& m, line_bounce_options o);
    // Runs the probe; call from a SystemC thread (the probe's program). Results accumulate in results().
    void run();
    const std::vector<line_bounce_result>& results() const { return results_; }

private:
    double bounce(unsigned a, unsigned b, std::uint64_t addr);

    models::machine& m_;
    line_bounce_options o_;
    std::vector<line_bounce_result> results_;
    std::uint64_t next_region_ = 1ull << 44;
};

// The closest relation between two CPUs: "smt", "same_llc", "same_<level>" for the platform's grouping
// levels between LLC and socket (e.g. same_quadrant), "same_socket", "cross_socket". With the fabric
// graph, "same_socket" also tells how many fabric links separate the two LLCs ("same_socket/4hops"),
// which separates e.g. adjacent from far I/O-die quadrants.
std::string cpu_relation(const platform::topology& t, unsigned a, unsigned b,
                         const platform::fabric_graph* g = nullptr);
// Every ordered pair a<b, or a deterministic sample of `n` of them (spread over all relations).
std::vector<std::pair<unsigned, unsigned>> cpu_pairs(const platform::topology& t, unsigned n,
                                                     std::uint64_t seed);

} // namespace warmsched::workloads
