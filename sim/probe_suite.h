// The probe settings shared by `warmsched probe ...` and the probes section of an experiment file, and
// the code that runs a set of probes one after another in one simulation and reports them (text tables
// for people, CSV with a header line for scripts).
#pragma once

#include "models/system/machine.h"
#include "platforms/config/config_reader.h"
#include "workloads/probes/line_bounce.h"
#include "workloads/probes/migrate_refill.h"
#include "workloads/probes/pointer_chase.h"
#include "workloads/probes/stream_bandwidth.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::sim {

struct latency_settings {
    unsigned cpu = 0;
    std::uint64_t min_footprint = 4096;
    std::uint64_t max_footprint = 1ull << 30;
    std::uint64_t max_loads = 1 << 20;
};
struct c2c_settings {
    std::vector<std::pair<unsigned, unsigned>> pairs; // empty: all pairs, or `sample` of them
    unsigned sample = 0;
    unsigned round_trips = 100;
    bool summary_only = false;
};
struct bandwidth_settings {
    std::vector<unsigned> cpus; // empty: the default sets
    std::uint64_t bytes_per_cpu = 16ull << 20;
};
struct migrate_settings {
    std::uint64_t working_set = 1ull << 20;
    double write_fraction = 0.25;
    std::optional<unsigned> from, to; // unset: one move per relation from CPU 0
};

struct probe_suite_settings {
    std::optional<latency_settings> latency;
    std::optional<c2c_settings> c2c;
    std::optional<bandwidth_settings> bandwidth;
    std::optional<migrate_settings> migrate;
    std::uint64_t seed = 1;
};

// Reads the `probes:` map of an experiment (each key present enables that probe). `platform` (null when
// it could not be read) bounds the latency footprints and the migrate working set (max_probe_bytes).
probe_suite_settings read_probe_settings(config::config_reader& probes, unsigned num_cpus,
                                         const platform::platform_params* platform);

// The largest latency footprint or migrate working set a probe takes on `p`: the larger of 1GiB (the
// latency probe's default) and 4 x the caches on one CPU's path (one of each level). Past it every access
// is served by memory, so nothing new is measured, while the probe simulates every line and keeps each
// line's place in its order in host memory (a 1TiB working set was std::bad_alloc, a 1TiB footprint a
// hang). "" when `bytes` is within it, else why not (to follow "--ws: " or a key).
std::uint64_t max_probe_bytes(const platform::platform_params& p);
std::string probe_size_problem(const platform::platform_params& p, std::uint64_t bytes);

// Parses "0-3,8,10-11" (Linux cpulist); throws config_error naming `what` when malformed or out of range.
std::vector<unsigned> parse_cpulist(const std::string& text, unsigned num_cpus, const std::string& what);
// Parses "0:1,0:16" into pairs.
std::vector<std::pair<unsigned, unsigned>> parse_pairs(const std::string& text, unsigned num_cpus);

// Elaborates nothing: runs the enabled probes on an elaborated machine (call before sc_start), in order.
class probe_suite {
public:
    probe_suite(models::machine& m, const probe_suite_settings& s);
    void start();
    // Text report of every probe that ran.
    void report(std::ostream& out) const;
    // CSV of one probe ("latency", "c2c", "bandwidth", "migrate"); false when it did not run.
    bool report_csv(const std::string& probe, std::ostream& out) const;

private:
    models::machine& m_;
    probe_suite_settings s_;
    std::optional<workloads::pointer_chase> latency_;
    std::optional<workloads::line_bounce> c2c_;
    std::optional<workloads::stream_bandwidth> bandwidth_;
    std::optional<workloads::migrate_refill> migrate_;
};

} // namespace warmsched::sim
