// Steady flows: the link and memory-channel traffic of compute that runs fast-forwarded (see
// workloads/kernel/cpu_executor.h: once a task's compute has settled on a CPU, only 1 in N of its
// accesses goes through the hierarchy). While a hart's sampled accesses run, the meter records the bytes
// they move over each fabric link and memory controller; the hart's flow then becomes those bytes times
// N spread evenly over the chunk, held as a background rate on each of those resources (link_occupancy)
// until the hart's next chunk replaces it or the hart stops fast-forwarding. Simulated transfers queue
// behind what the flows leave of the bandwidth, as they would behind the accesses that were not simulated.
// Left out: a flow has no timing of its own (it is a rate, not a sequence of transfers), and it starts and
// stops at chunk boundaries.
#pragma once

#include "models/common/mem_txn.h"
#include "models/fabric/link_occupancy.h"

#include <systemc>

#include <utility>
#include <vector>

namespace warmsched::models {

class flow_meter {
public:
    // The resources flows can use, by index: the fabric's links, then the memory controllers.
    void attach(std::vector<link_occupancy*> resources, unsigned harts);

    // Called by the fabric and the memory controllers for every transfer carrying data: counted for the
    // hart whose SystemC process is recording (a sample can pause at a quantum boundary while other
    // harts run, and record samples of their own).
    bool recording() const { return !active_.empty(); }
    void record(unsigned resource, double bytes);

    // Records the transfers `hart` makes from its SystemC process until finish().
    void start(unsigned hart);
    // Ends recording: `hart`'s flow becomes the recorded bytes x `scale` over `duration_ps` (the traffic
    // of the accesses the recorded ones stand for), replacing its previous flow.
    void finish(unsigned hart, double scale, ps_t duration_ps);
    // Removes `hart`'s flow (it stopped fast-forwarding).
    void stop(unsigned hart);
    bool flowing(unsigned hart) const { return !flows_[hart].empty(); }

private:
    struct sample {
        std::vector<double> bytes; // per resource
        std::vector<unsigned> touched;
    };
    std::vector<link_occupancy*> resources_;
    std::vector<sample> samples_;                                         // per hart
    std::vector<std::pair<sc_core::sc_process_handle, unsigned>> active_; // recording: process, hart
    std::vector<std::vector<std::pair<unsigned, double>>> flows_;         // per hart: resource, bytes/ps
};

} // namespace warmsched::models
