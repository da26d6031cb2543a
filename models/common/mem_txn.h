// The memory transaction that travels through the hierarchy: the operation at each hop (a hart's load or
// store, a core's request to its LLC, an LLC's request to the home directory, a directory's snoop to an
// LLC or a core, a write-back), who asked, and the answer -- the coherence state granted and where the
// data came from. At a core's TLM-2.0 socket it is the generic payload's extension (the annotated delay
// carries the latency); below the core the models pass it by reference (models/cache/llc.h). Times are
// picoseconds. Each sender owns its transactions and reuses them: nothing is allocated per access.
#pragma once

#include "models/cache/tag_array.h"

#include <tlm.h>

#include <cstdint>

namespace warmsched::models {

using ps_t = std::uint64_t; // picoseconds

enum class mem_op : std::uint8_t {
    // hart -> core
    load,
    store,
    atomic, // locked read-modify-write
    // core -> LLC, LLC -> home directory
    get_shared,    // read miss
    get_exclusive, // write miss (read for ownership)
    upgrade,       // write to a line held shared
    put,           // eviction notice (dirty -> carries data)
    writeback,     // dirty data to memory, the sender keeps the line
    // home directory -> LLC, LLC -> core
    snoop_shared,     // downgrade to shared, supply data
    snoop_invalidate, // give up the line, supply data if dirty
    // directory -> memory controller
    mem_read,
    mem_write,
};

// Where the data of an access was found, from the requesting core's point of view.
enum class mem_source : std::uint8_t {
    l1,
    l2,
    peer_cache,    // another core's private cache under the same LLC
    llc,           // own LLC
    remote_llc,    // another LLC in the same socket
    remote_socket, // an LLC in another socket
    local_memory,
    remote_memory,
    count
};
const char* to_string(mem_source s);

struct mem_txn : tlm::tlm_extension<mem_txn> {
    mem_op op = mem_op::load;
    std::uint64_t line = 0;   // line address (byte address / line size)
    std::uint32_t llc = 0;    // requesting LLC
    std::uint32_t target = 0; // fabric destination: directory (home) or LLC index
    bool dirty = false;       // put/snoop: the data is dirty
    // Who the access is for (hart -> core -> LLC requests and evictions): the software task the hart
    // runs (0: none -- idle or no kernel) and the hart's Linux CPU. Only the access observer (the
    // cost-of-migration report) reads them; no timing depends on them.
    std::uint32_t task = 0;
    std::uint32_t cpu = 0;

    // Response.
    line_state granted = line_state::invalid;
    mem_source source = mem_source::l1;
    bool had_line = false;    // snoop: the target held the line
    bool data_direct = false; // the data went straight from a third cache to the requester

    tlm::tlm_extension_base* clone() const override { return new mem_txn(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const mem_txn&>(other);
    }
};

inline sc_core::sc_time ps_time(ps_t ps) {
    return sc_core::sc_time::from_value(ps);
}

} // namespace warmsched::models
