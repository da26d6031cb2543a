// An NVMe SSD as a queueing model: the device holds up to `queue_depth` commands (more wait in the host
// queue, in submission order); a command takes its kind's latency (random or sequential, read or write,
// plus the transfer of anything beyond 4 KiB at the sequential bandwidth), and one "media" server limits
// the rate to the device's 4 KiB IOPS or its bandwidth:
//
//   submit --> [host queue] --slot free--> start ---latency---> done = max(start + latency,
//                                                                         media_free + media_time)
//                                          media_free = done;  at `done`: the completion sink is told
//
// So a lone 4 KiB random read takes `random_read_latency` and a deep queue completes `read_iops` of them
// a second. Completions are delivered by an SC_METHOD at their SystemC time to a completion sink (the
// simulated kernel, which raises the interrupt on a CPU). Left out: latency variance, garbage
// collection and write cliffs, per-die parallelism, the PCIe link, and DMA into the caches (data the
// device moves does not pass through the cache model). Parameters: platform::block_device_params.
#pragma once

#include "models/common/mem_txn.h"
#include "platforms/platform_params.h"

#include <systemc>

#include <cstdint>
#include <deque>
#include <queue>
#include <tuple>
#include <vector>

namespace warmsched::models {

struct block_request {
    std::uint64_t bytes = 4096;
    bool write = false;
    bool sequential = false; // follows the previous request of its stream (fio rw=read/write)
    unsigned cpu = 0;        // the submitting CPU
    std::uint64_t tag = 0;   // the submitter's cookie, handed back on completion
};

// Who learns of completions (the simulated kernel).
class block_completion_sink {
public:
    virtual ~block_completion_sink() = default;
    // `r` completed now (SystemC time); it was submitted at `submitted_ps`.
    virtual void block_completed(const block_request& r, ps_t submitted_ps) = 0;
};

struct block_device_stats {
    std::uint64_t ios[2] = {0, 0};      // completed reads, writes
    std::uint64_t bytes[2] = {0, 0};    // bytes read, written
    std::uint64_t ticks_ns[2] = {0, 0}; // summed submit-to-completion time of reads, writes
    std::uint64_t in_queue_ns = 0;      // time-weighted number of commands in flight or queued
    std::uint64_t busy_ns = 0;          // time with at least one command in flight or queued
    std::uint64_t max_inflight = 0;
};

class block_device : public sc_core::sc_module {
public:
    block_device(const sc_core::sc_module_name& name, const platform::block_device_params& p,
                 block_completion_sink& sink);

    // Submits `r` at the current SystemC time (the caller has synchronised its local time).
    void submit(const block_request& r);
    // The time the device would take to complete `r` alone (its latency), for tests and reports.
    ps_t latency(const block_request& r) const;
    // Media time of `r`: how long it keeps the media server (1 / IOPS or size / bandwidth).
    ps_t media_time(const block_request& r) const;

    const platform::block_device_params& params() const { return p_; }
    // Statistics up to the current SystemC time (busy and in-queue time include the period in progress).
    block_device_stats stats() const;
    std::uint64_t outstanding() const { return inflight_ + host_queue_.size(); }

private:
    void start(const block_request& r, ps_t submitted, ps_t now);
    void complete();        // SC_METHOD: delivers the completions that are due
    void account(ps_t now); // advances busy / in-queue time to `now`

    platform::block_device_params p_;
    block_completion_sink& sink_;
    sc_core::sc_event due_;
    ps_t media_free_ = 0;
    unsigned inflight_ = 0;
    std::uint64_t seq_ = 0;
    std::deque<std::pair<block_request, ps_t>> host_queue_; // waiting for a slot, with submit time
    // (completion, sequence, request, submit time), earliest first.
    using pending = std::tuple<ps_t, std::uint64_t, block_request, ps_t>;
    struct later {
        bool operator()(const pending& a, const pending& b) const {
            return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b)
                                                    : std::get<1>(a) > std::get<1>(b);
        }
    };
    std::priority_queue<pending, std::vector<pending>, later> pending_;
    block_device_stats stats_;
    ps_t accounted_ = 0;
};

} // namespace warmsched::models
