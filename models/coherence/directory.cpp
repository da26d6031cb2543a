// Home directory; see directory.h.
#include "models/coherence/directory.h"

#include "models/fabric/fabric.h"
#include "models/memory/memory_controller.h"

#include <algorithm>
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

directory::directory(const sc_core::sc_module_name& name, const directory_params& p, fabric& f,
                     memory_controller& memory)
    : sc_module(name), p_(p), fabric_(f), memory_(memory) {}

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
        if (fabric_.llc_to_llc_ps(lowest(m), requester) < fabric_.llc_to_llc_ps(from, requester))
            from = lowest(m);
    return from;
}

mem_source directory::remote_source(unsigned from_llc, unsigned to_llc) const {
    return p_.llc_socket[from_llc] == p_.llc_socket[to_llc] ? mem_source::remote_llc
                                                            : mem_source::remote_socket;
}

ps_t directory::request(mem_txn& t, ps_t at) {
    ++stats_.requests;
    ps_t now = at + p_.lookup_ps;
    switch (t.op) {
    case mem_op::get_shared:
        get_shared(t, now);
        break;
    case mem_op::get_exclusive:
    case mem_op::upgrade:
        get_exclusive(t, now);
        break;
    case mem_op::put: {
        entry* it = lines_.find(t.line);
        if (it != nullptr) {
            it->sharers &= ~bit(t.llc);
            if (it->owner == static_cast<int>(t.llc)) it->owner = -1;
            if (it->sharers == 0) lines_.erase_found(it);
        }
        if (t.dirty) memory(mem_op::mem_write, now);
        break;
    }
    case mem_op::writeback:
        memory(mem_op::mem_write, now);
        break;
    default:
        assert(false && "unexpected request at the directory");
    }
    return now - at;
}

void directory::get_shared(mem_txn& t, ps_t& now) {
    entry& e = lines_[t.line];
    const unsigned r = t.llc;
    const std::uint64_t others = e.sharers & ~bit(r);
    if (others) {
        const unsigned from = supplier(e, others, r);
        const mem_txn& reply = snoop(mem_op::snoop_shared, from, t, true, now);
        if (reply.had_line) {
            if (reply.dirty) {
                ps_t posted = now;
                memory(mem_op::mem_write, posted);
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
            memory(mem_op::mem_read, now);
            e.sharers |= bit(r);
            t.granted = line_state::shared;
            t.source = p_.llc_node[r] == p_.node ? mem_source::local_memory : mem_source::remote_memory;
            return;
        }
    }
    memory(mem_op::mem_read, now);
    e.sharers = bit(r);
    e.owner = static_cast<int>(r);
    t.granted = line_state::exclusive;
    t.source = p_.llc_node[r] == p_.node ? mem_source::local_memory : mem_source::remote_memory;
    t.data_direct = false;
}

void directory::get_exclusive(mem_txn& t, ps_t& now) {
    entry& e = lines_[t.line];
    const unsigned r = t.llc;
    const std::uint64_t others = e.sharers & ~bit(r);
    bool need_data = t.op == mem_op::get_exclusive;
    const unsigned from = others ? supplier(e, others, r) : 0;
    ps_t done = now;
    for (std::uint64_t m = others; m; m &= m - 1) {
        const unsigned s = lowest(m);
        ps_t d = now; // invalidations go out in parallel; the requester waits for the last ack
        const bool forward = need_data && s == from;
        const mem_txn& reply = snoop(mem_op::snoop_invalidate, s, t, forward, d);
        ++stats_.invalidations;
        if (forward && reply.had_line) {
            need_data = false;
            t.source = remote_source(s, r);
        }
        done = std::max(done, d);
    }
    e.sharers = bit(r);
    e.owner = static_cast<int>(r);
    t.granted = line_state::modified;
    if (need_data) { // nobody else had it: memory
        memory(mem_op::mem_read, now);
        t.source = p_.llc_node[r] == p_.node ? mem_source::local_memory : mem_source::remote_memory;
        t.data_direct = false;
        // The data returns through the fabric; the acknowledgements must have arrived too.
        now = std::max(now, done);
        return;
    }
    t.data_direct = others != 0; // acks (and the data) went straight to the requester
    if (others) now = done;
}

const mem_txn& directory::snoop(mem_op op, unsigned target, const mem_txn& req, bool forward, ps_t& now) {
    if (forward) ++stats_.forwards;
    snoop_.op = op;
    snoop_.line = req.line;
    snoop_.target = target;
    snoop_.llc = req.llc;
    snoop_.data_direct = forward;
    snoop_.had_line = false;
    snoop_.dirty = false;
    now += fabric_.from_home(p_.index, snoop_, now);
    return snoop_;
}

void directory::memory(mem_op op, ps_t& now) {
    if (op == mem_op::mem_read) {
        ++stats_.memory_reads;
        now += memory_.access(op, now);
        return;
    }
    ++stats_.memory_writes;
    memory_.access(op, now); // posted
}

void directory::add_stats(stats::group& g) const {
    g.add("requests", stats_.requests, stats::unit::count, "requests from the LLCs");
    g.add("memoryReads", stats_.memory_reads, stats::unit::count, "reads sent to the memory controller");
    g.add("memoryWrites", stats_.memory_writes, stats::unit::count, "writes sent to the memory controller");
    g.add("forwards", stats_.forwards, stats::unit::count, "cache-to-cache transfers ordered");
    g.add("invalidations", stats_.invalidations, stats::unit::count, "invalidations sent");
}

} // namespace warmsched::models
