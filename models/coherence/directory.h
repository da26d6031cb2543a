// The coherence directory at one home (one per memory controller): for every line homed here that some
// LLC holds, which LLCs hold it and whether one of them owns it exclusively (E or M). A read of a line
// owned or shared elsewhere is served cache-to-cache (the owner, or the nearest sharer, forwards the line
// straight to the requester: a 3-hop transfer); a write invalidates every other copy; only a line no
// LLC holds is read from memory. Dirty lines are written back to memory when downgraded or evicted.
// Capacity limits of real probe filters and their back-invalidations are not modelled.
#pragma once

#include "models/common/line_map.h"
#include "base/stats/stats_group.h"
#include "models/common/mem_txn.h"

#include <systemc>

#include <vector>

namespace warmsched::models {

struct directory_params {
    unsigned index = 0;               // home = memory controller index
    unsigned node = 0;                // NUMA node of this home
    ps_t lookup_ps = 0;               // directory lookup latency
    std::vector<unsigned> llc_socket; // socket of each LLC (to classify transfers)
    std::vector<unsigned> llc_node;   // NUMA node of each LLC
};

struct directory_stats {
    std::uint64_t requests = 0;
    std::uint64_t memory_reads = 0;
    std::uint64_t memory_writes = 0;
    std::uint64_t forwards = 0;      // cache-to-cache transfers ordered
    std::uint64_t invalidations = 0; // invalidations sent
};

class fabric;
class memory_controller;

class directory : public sc_core::sc_module {
public:
    // Snoops go to the LLCs through `f` (which also gives the LLC-to-LLC distances, to pick the nearest
    // sharer); memory accesses go to `memory`. Both are called directly (see models/cache/llc.h).
    directory(const sc_core::sc_module_name& name, const directory_params& p, fabric& f,
              memory_controller& memory);

    // A request from an LLC (get_shared, get_exclusive, upgrade, put, writeback) arriving at absolute
    // time `at`; returns the time until the answer leaves (posted messages: the time they took here).
    ps_t request(mem_txn& t, ps_t at);

    const directory_stats& stats() const { return stats_; }
    // Its stats group (system.homeN).
    void add_stats(stats::group& g) const;
    // Sharer mask and owner (-1: none) of a line, for tests.
    std::uint64_t sharers(std::uint64_t line) const;
    std::uint64_t line_record_visits() const { return lines_.visits(); } // host work, for the benchmarks
    int owner(std::uint64_t line) const;

private:
    struct entry {
        std::uint64_t sharers = 0;
        int owner = -1;
    };

    // Each advances `now` (absolute ps) to when its answer is ready.
    void get_shared(mem_txn& t, ps_t& now);
    void get_exclusive(mem_txn& t, ps_t& now);
    // Snoops LLC `target`; with `forward` it sends the line to the requester. Returns the snoop's reply.
    const mem_txn& snoop(mem_op op, unsigned target, const mem_txn& req, bool forward, ps_t& now);
    // A read advances `now`; a write is posted.
    void memory(mem_op op, ps_t& now);
    mem_source remote_source(unsigned from_llc, unsigned to_llc) const;
    // Which of `others` sends the line to `requester`: the owner, else the nearest sharer.
    unsigned supplier(const entry& e, std::uint64_t others, unsigned requester) const;

    directory_params p_;
    fabric& fabric_;
    memory_controller& memory_;
    line_map<entry> lines_;
    directory_stats stats_;
    mem_txn snoop_;
};

} // namespace warmsched::models
