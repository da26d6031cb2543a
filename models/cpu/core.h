// A core: its private cache levels (L1D and, where the platform has one, a private L2), shared by the
// core's SMT hardware threads. Loads and stores from the harts hit here or become requests to the LLC
// (get_shared / get_exclusive / upgrade); lines leaving the private levels are reported to the LLC (put).
// The LLC snoops the core to downgrade or invalidate a line. The private levels are kept inclusive (L2
// holds everything in L1); a line's dirtiness is tracked in its MESI state. Instruction caches, TLBs and
// prefetchers are not modelled.
#pragma once

#include "models/cache/cache_stats.h"
#include "models/cache/tag_array.h"
#include "models/common/access_observer.h"
#include "models/common/host_visits.h"
#include "models/common/mem_txn.h"

#include <systemc>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <vector>

namespace warmsched::models {

struct private_level_params {
    std::string name;
    std::uint64_t size = 0;
    unsigned associativity = 8;
    unsigned line_size = 64;
    ps_t latency_ps = 0;
    bool random_replacement = false;
};

struct core_module_params {
    unsigned index = 0;                       // global core number
    unsigned llc = 0;                         // LLC this core sits under
    unsigned index_in_llc = 0;                // port index on the LLC
    ps_t atomic_ps = 0;                       // extra time of a locked read-modify-write
    std::vector<private_level_params> levels; // L1D first
    std::uint64_t seed = 1;
    unsigned set_sampling = 1;
};

class core : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<core> cpu_side; // from the core's harts
    tlm_utils::simple_initiator_socket<core> llc_side;         // requests and evictions to the LLC
    tlm_utils::simple_target_socket<core> snoop_side;          // snoops from the LLC

    core(const sc_core::sc_module_name& name, const core_module_params& p);

    const core_module_params& params() const { return p_; }
    const cache_stats& level_stats(unsigned level) const { return stats_[level]; }
    // Its stats group (system.coreN): one subgroup per private level, by the platform's level name.
    void add_stats(stats::group& g) const;
    const tag_array& level_tags(unsigned level) const { return levels_[level]; }
    unsigned num_levels() const { return static_cast<unsigned>(levels_.size()); }
    // Told of every line that leaves the private caches for room (nullptr: nobody).
    void set_observer(access_observer* o) { observer_ = o; }
    // Core C6 (a flushing idle state, workloads/kernel/cpu_executor.h): every line of the private levels
    // is written back if dirty and dropped, as the power-gated core loses its SRAM contents; the LLC is
    // told of each (put); they count as the last level's evictions (and writebacks when dirty). Returns the
    // lines flushed.
    std::uint64_t flush_private(const sc_core::sc_time& at);
    // Host work (models/common/host_visits.h): the private levels' set scans, observer calls.
    void add_visits(host_visits& v) const;

private:
    void b_transport(int hart, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    void snoop(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

    ps_t access(mem_txn& t, const sc_core::sc_time& delay);
    // Sends a request to the LLC at `at` (annotated delay); returns its latency. The answer is in down_.txn.
    ps_t request(mem_op op, std::uint64_t line, const sc_core::sc_time& at);
    void fill(std::uint64_t line, line_state s, const sc_core::sc_time& at);
    // A line displaced from private level `lv`: keeps the levels inclusive and passes dirty data down.
    void evicted(unsigned lv, const tag_array::victim& v, const sc_core::sc_time& at);
    void set_state_all(std::uint64_t line, line_state s);
    void put(std::uint64_t line, bool dirty, const sc_core::sc_time& at);

    core_module_params p_;
    std::vector<tag_array> levels_;
    std::vector<ps_t> latency_;
    sc_core::sc_time l1_time_; // latency_[0] as sc_time (the most frequent answer)
    unsigned line_shift_ = 0;  // log2(line size)
    std::vector<cache_stats> stats_;
    txn_payload down_;
    access_observer* observer_ = nullptr;
    std::uint64_t observer_calls_ = 0;
    std::uint32_t cur_task_ = 0, cur_cpu_ = 0; // who the access in progress is for (slow path only)
};

} // namespace warmsched::models
