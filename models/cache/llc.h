// A last-level cache and the cores under it (an AMD CCX, an Intel socket or sub-NUMA cluster, a
// Clovertown die): the shared tag array, a record of which of its cores hold each line privately (the
// snoop filter / core-valid bits), and the domain's coherence standing with the home directory
// (exclusive or shared). Requests its cores cannot serve go to the line's home directory through the
// fabric; snoops from the directory come back in. The inclusion policy decides what is filled where:
//   inclusive      fill on every miss; an eviction back-invalidates the cores (Intel Haswell)
//   non_inclusive  filled by lines the cores evict; keeps lines on hits (Intel Skylake-SP and later)
//   victim         filled by lines the cores evict; a hit moves the line up to the core (AMD Zen)
// Not modelled: slices and their hashing, prefetchers, the LLC's own bandwidth.
//
// The direct path. Below the harts, the models call each other directly -- core -> llc -> fabric ->
// directory -> memory_controller, and the snoops back (directory -> fabric -> llc -> core) -- through
// plain member functions bound once at elaboration (models/system/machine.cpp), with absolute times in
// picoseconds. A transaction is a models::mem_txn passed by reference; each call returns its latency.
// TLM-2.0 stays at the boundary where programs enter the model: a hart's socket into its core.
#pragma once

#include "models/cache/cache_stats.h"
#include "models/cache/tag_array.h"
#include "models/common/access_observer.h"
#include "models/common/host_visits.h"
#include "models/common/line_map.h"
#include "models/common/mem_txn.h"
#include "models/memory/address_map.h"
#include "platforms/platform_params.h"

#include <systemc>

namespace warmsched::models {

struct llc_params {
    unsigned index = 0;
    unsigned node = 0;           // NUMA node (first-touch placement of pages it misses on)
    std::vector<unsigned> cores; // global index of the core on each cpu_side port
    std::uint64_t size = 0;
    unsigned associativity = 16;
    unsigned line_size = 64;
    ps_t latency_ps = 0;    // load-to-use latency of a hit
    ps_t peer_snoop_ps = 0; // extra when another core's private cache supplies the line
    platform::inclusion_policy inclusion = platform::inclusion_policy::inclusive;
    bool random_replacement = false;
    std::uint64_t seed = 1;
    unsigned set_sampling = 1;
};

class core;
class fabric;

class llc : public sc_core::sc_module {
public:
    llc(const sc_core::sc_module_name& name, const llc_params& p, address_map& addresses);
    // Elaboration: the cores under it in port order (p.cores), and the fabric to the homes.
    void connect(std::vector<core*> cores, fabric& f);

    // A request (get_shared, get_exclusive, upgrade) or an eviction notice (put) from the core on `port`
    // at absolute time `at`; returns its latency (0 for a put, which is posted).
    ps_t core_request(unsigned port, mem_txn& t, ps_t at);
    // A snoop from a home directory (through the fabric) at `at`; returns the time the LLC takes.
    ps_t home_snoop(mem_txn& t, ps_t at);

    const llc_params& params() const { return p_; }
    const cache_stats& stats() const { return stats_; }
    // Its stats group (system.llcN): the cache counters.
    void add_stats(stats::group& g) const { models::add_stats(g, stats_, true); }
    const tag_array& tags() const { return tags_; }
    // Whether the domain (the LLC or one of its cores) holds `line`, and which cores do (port bit mask).
    bool holds(std::uint64_t line) const { return domain_.find(line) != nullptr; }
    // The line's slot in the tag array as its record keeps it (-1: not there; tests check it against
    // the tags).
    long recorded_slot(std::uint64_t line) const {
        const domain_line* d = domain_.find(line);
        return d == nullptr ? -1 : d->slot;
    }
    std::uint64_t holder_ports(std::uint64_t line) const;
    // Told of every line evicted from the tag array for room (nullptr: nobody).
    void set_observer(access_observer* o) { observer_ = o; }
    // Host work (models/common/host_visits.h): set scans, snoop-filter lookups, observer calls.
    void add_visits(host_visits& v) const {
        v.tag_sets += tags_.set_visits();
        v.line_records += domain_.visits();
        v.observer_calls += observer_calls_;
    }

private:
    struct domain_line {
        std::uint64_t ports = 0; // cores holding the line privately (bit per cpu_side port)
        std::int32_t slot = -1;  // where the tag array holds the line (tag_array::slot), -1: not there
        std::int8_t owner = -1;  // the port granted E or M (it may have modified the line silently), or -1
        bool exclusive = false;  // the home directory granted this domain E or M
    };
    static_assert(sizeof(domain_line) == 16, "one exists per line the domain holds");

    // `at` is absolute (ps).
    ps_t read(unsigned port, mem_txn& t, ps_t at);
    ps_t write(unsigned port, mem_txn& t, ps_t at);
    void put(unsigned port, const mem_txn& t, ps_t at);
    // Inserts a line (its record `d`) into the tag array and deals with the line it displaces. The
    // eviction may erase other records and move `d`: callers do not use `d` afterwards.
    void insert(std::uint64_t line, domain_line& d, line_state s, ps_t at);
    // The same for a line known to be absent from the tag array.
    void insert_absent(std::uint64_t line, domain_line& d, line_state s, ps_t at);
    void evicted(std::uint64_t line, line_state s, ps_t at);
    // Snoops one core; returns whether it held the line and sets `dirty`.
    bool snoop_core(unsigned port, mem_op op, std::uint64_t line, bool& dirty);
    // A request to the line's home directory; returns its latency.
    ps_t to_home(mem_op op, std::uint64_t line, ps_t at);
    void notify_home(mem_op op, std::uint64_t line, bool dirty, ps_t at);

    llc_params p_;
    address_map& addresses_;
    tag_array tags_;
    line_map<domain_line> domain_;
    cache_stats stats_;
    std::vector<core*> cores_; // by port
    fabric* fabric_ = nullptr;
    mem_txn home_, notify_;
    access_observer* observer_ = nullptr;
    std::uint64_t observer_calls_ = 0;
    std::uint32_t cur_task_ = 0, cur_cpu_ = 0; // who the core request in progress is for
};

} // namespace warmsched::models
