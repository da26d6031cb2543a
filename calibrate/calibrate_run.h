// `warmsched calibrate`: measures the machine it runs on and writes a platform file of it. The topology
// and caches are what `warmsched import` reads from /sys; every figure the model needs that a small
// program can isolate is measured (calibrate/microbench.c, run pinned, --repeat times, interleaved):
//
//   core.frequency                  a chain of dependent multiplies (3 cycles each)
//   caches[i].latency               a pointer chase through half of level i
//   memory.latency                  a chase through max(8 x LLC, 256 MiB), less the path the model adds
//                                   to a DRAM load (its own probe at that footprint, memory.latency 10ns)
//   caches[LLC].peer_snoop_latency  a line bounced between two CPUs of one LLC, less atomic_latency and
//                                   the LLC hit (docs/platforms.md's c2c formula)
//   core.stream_outstanding_misses  one core's streaming bandwidth x the DRAM latency / 64 B (Little)
//   memory.bandwidth                two cores streaming (a lower bound when they do not saturate it)
//   kernel_costs                    the decomposition of cost_decomposition.h, whose residuals come from
//                                   the model run on the file's own memory figures
//
// Each figure goes into the file with its median, min and max over the repeats and how it was measured
// (the `calibration:` section, with the machine, the kernel and the date); the keys no microbenchmark
// isolates stay estimates, listed there and commented `# est:`.
//
// Refused with one line and exit 2: a host busy with other work (more than --max-busy percent of its CPU
// time in the second before), a CPU the programs cannot be pinned to.
#pragma once

#include <ostream>
#include <string>

namespace warmsched::calibrate {

struct calibrate_settings {
    std::string output;       // the platform file ("" = standard output)
    std::string name;         // the platform's name ("" = this-machine)
    unsigned repeat = 5;
    double max_busy_percent = 10;
    bool quick = false;       // fewer iterations per microbenchmark (the tests' setting; noisier figures)
};

int run_calibrate(const calibrate_settings& s, std::ostream& out);

// The share (percent) of the host's CPU time that went to work other than idle over `seconds`.
double host_busy_percent(double seconds);

} // namespace warmsched::calibrate
