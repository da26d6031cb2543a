// A hardware thread (Linux CPU): the initiator of loads and stores into its core. A program -- a probe
// here, the scheduler's task execution later -- runs in an SC_THREAD and drives the hart through this
// API. A dependent access (load, store, atomic) completes before the next starts; stream() issues
// independent accesses with up to `max_outstanding` misses in flight (memory-level parallelism). Time
// runs ahead locally under a TLM-2.0 quantum keeper (temporal decoupling) and syncs with SystemC time
// when the quantum is used up or when the program asks (before it communicates with another thread).
// The quantum keeper is TLM-2.0's (tlm_utils::tlm_quantumkeeper) kept in integer picoseconds: the same
// sync points, without an sc_time conversion per access.
#pragma once

#include "base/stats/stats_group.h"
#include "models/common/access_observer.h"
#include "models/common/host_visits.h"
#include "models/common/mem_txn.h"

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <vector>

namespace warmsched::models {

struct hart_params {
    unsigned cpu = 0;  // Linux CPU number
    unsigned core = 0; // global core index
    unsigned line_size = 64;
    ps_t cycle_ps = 250;                  // one core clock
    unsigned max_outstanding = 10;        // misses in flight for a stream in random order
    unsigned max_outstanding_stream = 10; // misses in flight for a sequential stream (prefetchers help)
    unsigned set_sampling = 1;            // only lines whose address is a multiple of this are simulated
};

// One access of an independent stream (see hart::stream).
struct mem_access {
    std::uint64_t addr = 0;
    bool write = false;
};

struct hart_stats {
    std::array<std::uint64_t, static_cast<int>(mem_source::count)> accesses{};
    std::array<std::uint64_t, static_cast<int>(mem_source::count)> latency_ps{};
};

class core;

class hart : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<hart> mem; // to the core

    hart(const sc_core::sc_module_name& name, const hart_params& p);
    // Elaboration: binds `mem` to the core's cpu_side. The hart then calls what the socket would call,
    // the core's b_transport, directly (the socket's callback binder is an indirect call per access).
    void bind(core& c);

    // Program API: call from an SC_THREAD that runs this hart's program.
    ps_t load(std::uint64_t addr) { return access(mem_op::load, addr); }
    ps_t store(std::uint64_t addr) { return access(mem_op::store, addr); }
    ps_t atomic(std::uint64_t addr) { return access(mem_op::atomic, addr); }
    // Independent accesses; returns the elapsed time from the first issue to the last completion.
    // `sequential`: consecutive lines, which the hardware prefetchers fetch ahead of the demand
    // (modelled as the deeper stream_outstanding_misses window, not as prefetch traffic).
    ps_t stream(const mem_access* accesses, std::size_t n, bool sequential);
    void compute_cycles(std::uint64_t cycles);
    // Busy for `t` without memory accesses (kernel work charged as CPU time).
    void busy(ps_t t) { advance(t); }
    // Local time: SystemC time plus the quantum keeper's offset.
    ps_t now() const { return sc_now() + local_ps_; }
    // Brings SystemC time up to the local time (wait()s).
    void sync();

    // The software task this hart runs (0: none); every access carries it (see access_observer).
    void set_task(std::uint32_t task) { req_.task = task; }
    std::uint32_t task() const { return req_.task; }
    // Told of every simulated access that does not hit L1 (nullptr: nobody).
    void set_observer(access_observer* o) { observer_ = o; }

    mem_source last_source() const { return req_.source; }
    const hart_params& params() const { return p_; }
    const hart_stats& stats() const { return stats_; }
    // Host work (models/common/host_visits.h): accesses sent to the core, their L1 misses, observer calls.
    void add_visits(host_visits& v) const;
    // Its stats group (system.cpuN): accesses and their summed latency by the level that served them.
    void add_stats(stats::group& g) const;
    // Counts the accesses made since `before` `factor` times over: each stood for `factor` accesses
    // (fast-forwarded compute, which sends only a sample of its accesses through the hierarchy).
    void extrapolate_since(const hart_stats& before, double factor);

private:
    static ps_t sc_now() { return sc_core::sc_time_stamp().value(); }
    ps_t access(mem_op op, std::uint64_t addr);
    ps_t issue(mem_op op, std::uint64_t addr, ps_t at); // one access at absolute time `at`; its latency
    void advance(ps_t t);
    // The quantum keeper (tlm_quantumkeeper's reset and need_sync, in ps).
    void reset_quantum();
    bool need_sync() const { return sc_now() + local_ps_ >= next_sync_ps_; }

    hart_params p_;
    mem_txn req_;
    ps_t last_sampled_ = 0; // latency of the latest simulated access (set sampling)
    mem_source last_sampled_source_ = mem_source::l1;
    ps_t local_ps_ = 0;     // local time ahead of SystemC time
    ps_t next_sync_ps_ = 0; // absolute: the end of the current quantum
    hart_stats stats_;
    host_visits visits_;
    access_observer* observer_ = nullptr;
    core* core_ = nullptr;
    std::vector<ps_t> inflight_; // stream(): completion times of the misses in flight (kept to reuse)
};

} // namespace warmsched::models
