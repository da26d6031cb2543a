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

class llc;

class core : public sc_core::sc_module {
public:
    // From the core's harts: the TLM-2.0 boundary of the model (a load or store is a generic payload
    // with its address and command, and a models::mem_txn extension). Below the core the models call
    // each other directly (models/cache/llc.h).
    tlm_utils::multi_passthrough_target_socket<core> cpu_side;

    core(const sc_core::sc_module_name& name, const core_module_params& p);
    // Elaboration: the LLC this core sits under (on its port p.index_in_llc).
    void connect(llc& l) { llc_ = &l; }

    // A hart's access (t.op load, store or atomic; t.line) at absolute time `at`: returns its latency and
    // sets t.source. Harts bound to this core call it directly; cpu_side's b_transport calls it with the
    // payload's extension, at SystemC time plus the annotated delay.
    ps_t access_direct(mem_txn& t, ps_t at) {
        tag_array& l1 = levels_[0];
        const long slot = l1.slot(t.line);
        // Fast path: an L1 hit with the permission the access needs.
        if (slot >= 0 && (t.op == mem_op::load || l1.state_at(slot) == line_state::modified)) {
            l1.touch_at(slot);
            ++stats_[0].hits;
            t.source = mem_source::l1;
            return latency_[0] + (t.op == mem_op::atomic ? p_.atomic_ps : 0);
        }
        cur_task_ = t.task;
        cur_cpu_ = t.cpu;
        return access(t, at, slot);
    }
    // A snoop from the LLC: downgrades (snoop_shared) or drops (snoop_invalidate) `line` in every private
    // level. Returns whether the core held it; `dirty`: it held it modified.
    bool snoop(mem_op op, std::uint64_t line, bool& dirty);

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
    std::uint64_t flush_private();
    // Host work (models/common/host_visits.h): the private levels' set scans, observer calls.
    void add_visits(host_visits& v) const;

private:
    void b_transport(int hart, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

    // Times are absolute (ps). `l1_slot`: the line's slot in L1 (-1: absent), which access_direct found.
    ps_t access(mem_txn& t, ps_t at, long l1_slot);
    // Sends a request to the LLC at `at`; returns its latency. The answer is in down_.
    ps_t request(mem_op op, std::uint64_t line, ps_t at);
    void fill(std::uint64_t line, line_state s, ps_t at);
    // A line displaced from private level `lv`: keeps the levels inclusive and passes dirty data down.
    void evicted(unsigned lv, const tag_array::victim& v, ps_t at);
    // Sets the state of a line found in `slot` of level `lv` there and in the levels below.
    void set_state_from(unsigned lv, long slot, std::uint64_t line, line_state s);
    void put(std::uint64_t line, bool dirty, ps_t at);

    core_module_params p_;
    std::vector<tag_array> levels_;
    std::vector<ps_t> latency_;
    std::vector<cache_stats> stats_;
    mem_txn down_;
    llc* llc_ = nullptr;
    access_observer* observer_ = nullptr;
    std::uint64_t observer_calls_ = 0;
    std::uint32_t cur_task_ = 0, cur_cpu_ = 0; // who the access in progress is for (slow path only)
};

} // namespace warmsched::models
