// A memory controller and the DRAM channels behind it: a read costs the configured access latency plus
// the time it queues for channel bandwidth; a write (write-back) only occupies bandwidth. Banks, rows,
// refresh and read/write turnaround are not modelled: the latency is an average, the bandwidth a peak.
#pragma once

#include "models/common/mem_txn.h"
#include "base/stats/stats_group.h"
#include "models/fabric/flow_meter.h"
#include "models/fabric/link_occupancy.h"

#include <systemc>

namespace warmsched::models {

struct memory_controller_params {
    unsigned index = 0;
    ps_t latency_ps = 0;
    double bandwidth = 0; // bytes/s
    unsigned line_size = 64;
    ps_t bandwidth_window_ps = 10000;
};

struct memory_stats {
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
};

class memory_controller : public sc_core::sc_module {
public:
    memory_controller(const sc_core::sc_module_name& name, const memory_controller_params& p);

    const memory_stats& stats() const { return stats_; }
    // Its stats group (system.memN).
    void add_stats(stats::group& g) const;
    const link_occupancy& channels() const { return channels_; }
    link_occupancy& channels() { return channels_; }
    // Reports every transfer to `m` while it records, as its resource `index`.
    void set_flow_meter(flow_meter* m, unsigned index) {
        meter_ = m;
        meter_index_ = index;
    }

    // The home directory's read (mem_read) or posted write (mem_write) at absolute time `at`: returns its
    // latency (queueing, plus the access latency for a read). Called directly (models/cache/llc.h).
    ps_t access(mem_op op, ps_t at);

private:
    memory_controller_params p_;
    link_occupancy channels_;
    memory_stats stats_;
    flow_meter* meter_ = nullptr;
    unsigned meter_index_ = 0;
};

} // namespace warmsched::models
