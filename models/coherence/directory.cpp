// Home directory; see directory.h.
#include "models/coherence/directory.h"

#include <cassert>

namespace warmsched::models {
namespace {
inline std::uint64_t bit(unsigned i) {
    return 1ull << i;
}
inline unsigned lowest(std::uint64_t mask) {
    return static_cast<unsigned>(__builtin_ctzll(mask));
}
} // namespace

directory::directory(const sc_core::sc_module_name& name, const directory_params& p,
                     std::function<ps_t(unsigned, unsigned)> distance)
    : sc_module(name), fabric_side("fabric_side"), snoop_out("snoop_out"), memory_side("memory_side"), p_(p),
      distance_(std::move(distance)) {
    fabric_side.register_b_transport(this, &directory::b_transport);
}

std::uint64_t directory::sharers(std::uint64_t line) const {
    const entry* it = lines_.find(line);
    return it == nullptr ? 0 : it->sharers;
}

int directory::owner(std::uint64_t line) const {
    const entry* it = lines_.find(line);
    return it == nullptr ? -1 : it->owner;
}

unsigned directory::supplier(const entry& e, std::uint64_t others, unsigned requester) const {
    if (e.owner >= 0 && (others >> e.owner & 1)) return static_cast<unsigned>(e.owner);
    unsigned from = lowest(others);
    for (std::uint64_t m = others; m; m &= m - 1)
        if (distance_(lowest(m), requester) < distance_(from, requester)) from = lowest(m);
    return from;
}

mem_source directory::remote_source(unsigned from_llc, unsigned to_llc) const {
    return p_.llc_socket[from_llc] == p_.llc_socket[to_llc] ? mem_source::remote_llc
                                                            : mem_source::remote_socket;
}

void directory::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    mem_txn& t = *gp.get_extension<mem_txn>();
    ++stats_.requests;
    delay += ps_time(p_.lookup_ps);
    switch (t.op) {
    case mem_op::get_shared:
        get_shared(t, delay);
        break;
    case mem_op::get_exclusive:
    case mem_op::upgrade:
        get_exclusive(t, delay);
        break;
    case mem_op::put: {
        entry* it = lines_.find(t.line);
        if (it != nullptr) {
            it->sharers &= ~bit(t.llc);
            if (it->owner == static_cast<int>(t.llc)) it->owner = -1;
            if (it->sharers == 0) lines_.erase(t.line);
        }
        if (t.dirty) memory(mem_op::mem_write, t.line, delay);
        break;
    }
    case mem_op::writeback:
        memory(mem_op::mem_write, t.line, delay);
        break;
    default:
        assert(false && "unexpected request at the directory");
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void directory::get_shared(mem_txn& t, sc_core::sc_time& delay) {
    entry& e = lines_[t.line];
    const unsigned r = t.llc;
    const std::uint64_t others = e.sharers & ~bit(r);
    if (others) {
        const unsigned from = supplier(e, others, r);
        const mem_txn& reply = snoop(mem_op::snoop_shared, from, t, true, delay);
        if (reply.had_line) {
            if (reply.dirty) {
                sc_core::sc_time posted = delay;
                memory(mem_op::mem_write, t.line, posted);
            }
            e.owner = -1;
            e.sharers |= bit(r);
            t.granted = line_state::shared;
            t.source = remote_source(from, r);
            t.data_direct = true;
            return;
        }
        e.sharers &= ~bit(from); // it had silently dropped the line: fall back to memory
        if (e.owner == static_cast<int>(from)) e.owner = -1;
        t.data_direct = false;
        if (e.sharers & ~bit(r)) {
            memory(mem_op::mem_read, t.line, delay);
            e.sharers |= bit(r);
            t.granted = line_state::shared;
            t.source = p_.llc_node[r] == p_.node ? mem_source::local_memory : mem_source::remote_memory;
            return;
        }
    }
    memory(mem_op::mem_read, t.line, delay);
    e.sharers = bit(r);
    e.owner = static_cast<int>(r);
    t.granted = line_state::exclusive;
    t.source = p_.llc_node[r] == p_.node ? mem_source::local_memory : mem_source::remote_memory;
    t.data_direct = false;
}

void directory::get_exclusive(mem_txn& t, sc_core::sc_time& delay) {
    entry& e = lines_[t.line];
    const unsigned r = t.llc;
    const std::uint64_t others = e.sharers & ~bit(r);
    bool need_data = t.op == mem_op::get_exclusive;
    const unsigned from = others ? supplier(e, others, r) : 0;
    sc_core::sc_time done = delay;
    for (std::uint64_t m = others; m; m &= m - 1) {
        const unsigned s = lowest(m);
        sc_core::sc_time d = delay; // invalidations go out in parallel; the requester waits for the last ack
        const bool forward = need_data && s == from;
        const mem_txn& reply = snoop(mem_op::snoop_invalidate, s, t, forward, d);
        ++stats_.invalidations;
        if (forward && reply.had_line) {
            need_data = false;
            t.source = remote_source(s, r);
        }
        if (d > done) done = d;
    }
    e.sharers = bit(r);
    e.owner = static_cast<int>(r);
    t.granted = line_state::modified;
    if (need_data) { // nobody else had it: memory
        memory(mem_op::mem_read, t.line, delay);
        t.source = p_.llc_node[r] == p_.node ? mem_source::local_memory : mem_source::remote_memory;
        t.data_direct = false;
        // The data returns through the fabric; the acknowledgements must have arrived too.
        if (done > delay) delay = done;
        return;
    }
    t.data_direct = others != 0; // acks (and the data) went straight to the requester
    if (others) delay = done;
}

const mem_txn& directory::snoop(mem_op op, unsigned target, const mem_txn& req, bool forward,
                                sc_core::sc_time& delay) {
    if (forward) ++stats_.forwards;
    snoop_.txn.op = op;
    snoop_.txn.line = req.line;
    snoop_.txn.target = target;
    snoop_.txn.llc = req.llc;
    snoop_.txn.data_direct = forward;
    snoop_.txn.had_line = false;
    snoop_.txn.dirty = false;
    snoop_out->b_transport(snoop_.gp, delay);
    return snoop_.txn;
}

void directory::memory(mem_op op, std::uint64_t line, sc_core::sc_time& delay) {
    if (op == mem_op::mem_read)
        ++stats_.memory_reads;
    else
        ++stats_.memory_writes;
    mem_.txn.op = op;
    mem_.txn.line = line;
    if (op == mem_op::mem_write) { // posted
        sc_core::sc_time posted = delay;
        memory_side->b_transport(mem_.gp, posted);
        return;
    }
    memory_side->b_transport(mem_.gp, delay);
}

void directory::add_stats(stats::group& g) const {
    g.add("requests", stats_.requests, stats::unit::count, "requests from the LLCs");
    g.add("memoryReads", stats_.memory_reads, stats::unit::count, "reads sent to the memory controller");
    g.add("memoryWrites", stats_.memory_writes, stats::unit::count, "writes sent to the memory controller");
    g.add("forwards", stats_.forwards, stats::unit::count, "cache-to-cache transfers ordered");
    g.add("invalidations", stats_.invalidations, stats::unit::count, "invalidations sent");
}

} // namespace warmsched::models
