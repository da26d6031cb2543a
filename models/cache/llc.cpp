// Last-level cache domain; see llc.h.
#include "models/cache/llc.h"

#include "models/cpu/core.h"
#include "models/fabric/fabric.h"

#include <cassert>

namespace warmsched::models {
namespace {
inline std::uint64_t bit(unsigned port) {
    return 1ull << port;
}
inline unsigned lowest(std::uint64_t mask) {
    return static_cast<unsigned>(__builtin_ctzll(mask));
}
} // namespace

llc::llc(const sc_core::sc_module_name& name, const llc_params& p, address_map& addresses)
    : sc_module(name), p_(p), addresses_(addresses),
      tags_(p.size, p.associativity, p.line_size, p.random_replacement, p.seed, p.set_sampling),
      domain_(4096) {
    assert(p.cores.size() <= 64);
}

void llc::connect(std::vector<core*> cores, fabric& f) {
    assert(cores.size() == p_.cores.size());
    cores_ = std::move(cores);
    fabric_ = &f;
}

std::uint64_t llc::holder_ports(std::uint64_t line) const {
    const domain_line* it = domain_.find(line);
    return it == nullptr ? 0 : it->ports;
}

ps_t llc::core_request(unsigned port, mem_txn& t, ps_t at) {
    cur_task_ = t.task;
    cur_cpu_ = t.cpu;
    switch (t.op) {
    case mem_op::get_shared:
        return read(port, t, at);
    case mem_op::get_exclusive:
    case mem_op::upgrade:
        return write(port, t, at);
    case mem_op::put:
        put(port, t, at);
        return 0;
    default:
        assert(false && "unexpected request at the LLC");
        return 0;
    }
}

ps_t llc::read(unsigned port, mem_txn& t, ps_t at) {
    const std::uint64_t line = t.line;
    ps_t lat = p_.latency_ps;
    // One lookup finds or makes the line's record. A new record (no core holds the line, and so neither
    // does the tag array: the tags hold only lines with a record) falls through to the miss below; the
    // request to the home snoops only the other LLCs, so the record stays put until the fill's eviction.
    domain_line& d = domain_[line];
    const std::uint64_t others = d.ports & ~bit(port);
    if (d.owner >= 0 && d.owner != static_cast<int>(port)) {
        // A core of this LLC holds the line E or M (perhaps modified): it supplies it and keeps a copy.
        ++stats_.hits;
        ++stats_.peer_supplies;
        bool dirty = false;
        snoop_core(static_cast<unsigned>(d.owner), mem_op::snoop_shared, line, dirty);
        d.owner = -1;
        d.ports |= bit(port);
        t.source = mem_source::peer_cache;
        t.granted = line_state::shared;
        lat += p_.peer_snoop_ps;
        if (dirty) insert(line, d, line_state::modified, at + lat); // the dirty data goes to the LLC
        return lat;
    }
    const long slot = d.slot;
    if (slot >= 0) {
        ++stats_.hits;
        tags_.touch_at(slot);
        const line_state s = tags_.state_at(slot);
        t.source = mem_source::llc;
        if (p_.inclusion == platform::inclusion_policy::victim && others == 0) {
            tags_.invalidate_at(slot); // the line moves up to the core, dirtiness with it
            d.slot = -1;
            t.granted = s == line_state::modified ? line_state::modified
                        : d.exclusive             ? line_state::exclusive
                                                  : line_state::shared;
        } else {
            t.granted = d.exclusive && others == 0 ? line_state::exclusive : line_state::shared;
        }
        if (t.granted != line_state::shared) d.owner = static_cast<std::int8_t>(port);
        d.ports |= bit(port);
        return lat;
    }
    if (others) { // other cores under this LLC share it: one of them supplies it
        ++stats_.hits;
        ++stats_.peer_supplies;
        bool dirty = false;
        snoop_core(lowest(others), mem_op::snoop_shared, line, dirty);
        d.ports |= bit(port);
        t.source = mem_source::peer_cache;
        t.granted = line_state::shared;
        lat += p_.peer_snoop_ps;
        return lat;
    }
    ++stats_.misses;
    lat += to_home(mem_op::get_shared, line, at + lat);
    t.source = home_.source;
    t.granted = home_.granted;
    d.ports |= bit(port);
    d.exclusive = home_.granted != line_state::shared;
    d.owner = d.exclusive ? static_cast<std::int8_t>(port) : std::int8_t{-1};
    if (p_.inclusion == platform::inclusion_policy::inclusive && d.slot < 0)
        insert_absent(line, d, home_.granted, at + lat);
    return lat;
}

ps_t llc::write(unsigned port, mem_txn& t, ps_t at) {
    const std::uint64_t line = t.line;
    ps_t lat = p_.latency_ps;
    const bool core_had_data = t.op == mem_op::upgrade;
    bool have_data = core_had_data;
    t.source = mem_source::llc;
    domain_line& d = domain_[line]; // found or made, as in read()
    const bool exclusive = d.exclusive;
    std::uint64_t others = d.ports & ~bit(port);
    if (others) {
        ++stats_.peer_supplies;
        if (!have_data) t.source = mem_source::peer_cache;
        lat += p_.peer_snoop_ps;
        have_data = true;
        for (; others; others &= others - 1) {
            bool dirty = false;
            snoop_core(lowest(others), mem_op::snoop_invalidate, line, dirty);
        }
    }
    const long slot = d.slot;
    if (slot >= 0) {
        have_data = true;
        if (p_.inclusion == platform::inclusion_policy::inclusive) {
            tags_.set_state_at(slot, line_state::modified);
        } else {
            tags_.invalidate_at(slot); // the writer's copy is the only valid one now
            d.slot = -1;
        }
    }
    d.ports = bit(port);
    d.owner = static_cast<std::int8_t>(port);
    if (exclusive) {
        ++stats_.hits;
        t.granted = line_state::modified;
        return lat;
    }
    if (have_data)
        ++stats_.upgrades;
    else
        ++stats_.misses;
    lat += to_home(have_data ? mem_op::upgrade : mem_op::get_exclusive, line, at + lat);
    if (!have_data || core_had_data) t.source = home_.source;
    d.ports = bit(port);
    d.owner = static_cast<std::int8_t>(port);
    d.exclusive = true;
    t.granted = line_state::modified;
    if (p_.inclusion == platform::inclusion_policy::inclusive && d.slot < 0)
        insert_absent(line, d, line_state::modified, at + lat);
    return lat;
}

void llc::put(unsigned port, const mem_txn& t, ps_t at) {
    const std::uint64_t line = t.line;
    domain_line* it = domain_.find(line);
    assert(it != nullptr);
    it->ports &= ~bit(port);
    if (it->owner == static_cast<int>(port)) it->owner = -1;
    const bool exclusive = it->exclusive;
    const long slot = it->slot;
    if (slot >= 0) {
        if (t.dirty) tags_.set_state_at(slot, line_state::modified);
        tags_.touch_at(slot);
        return;
    }
    assert(p_.inclusion != platform::inclusion_policy::inclusive);
    ++stats_.victim_fills;
    insert_absent(line, *it,
                  t.dirty     ? line_state::modified
                  : exclusive ? line_state::exclusive
                              : line_state::shared,
                  at);
}

void llc::insert(std::uint64_t line, domain_line& d, line_state s, ps_t at) {
    const long slot = d.slot;
    if (slot >= 0) {
        if (s == line_state::modified) tags_.set_state_at(slot, s);
        tags_.touch_at(slot);
        return;
    }
    insert_absent(line, d, s, at);
}

void llc::insert_absent(std::uint64_t line, domain_line& d, line_state s, ps_t at) {
    const tag_array::victim v = tags_.insert(line, s);
    d.slot = static_cast<std::int32_t>(v.slot); // before the victim's eviction, which may move the record
    if (v.line != tag_array::no_line) evicted(v.line, v.state, at);
}

void llc::evicted(std::uint64_t line, line_state s, ps_t at) {
    ++stats_.evictions;
    domain_line* it = domain_.find(line);
    assert(it != nullptr);
    it->slot = -1;
    bool dirty = s == line_state::modified;
    if (p_.inclusion == platform::inclusion_policy::inclusive) { // back-invalidate the cores
        for (std::uint64_t ports = it->ports; ports; ports &= ports - 1) {
            bool d = false;
            if (snoop_core(lowest(ports), mem_op::snoop_invalidate, line, d)) ++stats_.invalidations;
            dirty = dirty || d;
        }
        it->ports = 0;
        it->owner = -1;
    }
    if (dirty) ++stats_.writebacks;
    if (observer_) {
        ++observer_calls_;
        observer_->left_llc(p_.index, line, cur_task_, cur_cpu_, it->ports == 0);
    }
    if (it->ports == 0) { // the domain no longer holds the line
        domain_.erase_found(it);
        notify_home(mem_op::put, line, dirty, at);
    } else if (dirty) {
        notify_home(mem_op::writeback, line, true, at);
    }
}

bool llc::snoop_core(unsigned port, mem_op op, std::uint64_t line, bool& dirty) {
    return cores_[port]->snoop(op, line, dirty);
}

ps_t llc::to_home(mem_op op, std::uint64_t line, ps_t at) {
    home_.op = op;
    home_.line = line;
    home_.llc = p_.index;
    home_.target = addresses_.home(line, p_.node);
    home_.dirty = false;
    home_.data_direct = false;
    home_.granted = line_state::invalid;
    home_.source = mem_source::llc; // unless the home says the data came from elsewhere
    return fabric_->from_llc(p_.index, home_, at);
}

void llc::notify_home(mem_op op, std::uint64_t line, bool dirty, ps_t at) {
    notify_.op = op;
    notify_.line = line;
    notify_.llc = p_.index;
    notify_.target = addresses_.home(line, p_.node);
    notify_.dirty = dirty;
    fabric_->from_llc(p_.index, notify_, at); // posted: off the requester's critical path
}

ps_t llc::home_snoop(mem_txn& t, ps_t) {
    const std::uint64_t line = t.line;
    ++stats_.snoops;
    ps_t lat = p_.latency_ps;
    domain_line* it = domain_.find(line);
    t.had_line = it != nullptr;
    t.dirty = false;
    if (!t.had_line) return lat;
    const bool invalidate = t.op == mem_op::snoop_invalidate;
    bool dirty = false;
    const long slot = it->slot;
    if (slot >= 0) {
        dirty = tags_.state_at(slot) == line_state::modified;
        if (invalidate) {
            tags_.invalidate_at(slot);
            ++stats_.invalidations;
        } else {
            tags_.set_state_at(slot, line_state::shared);
        }
    }
    bool from_core = false;
    for (std::uint64_t ports = it->ports; ports; ports &= ports - 1) {
        bool d = false;
        if (snoop_core(lowest(ports), t.op, line, d)) {
            from_core = from_core || slot < 0 || d;
            dirty = dirty || d;
        }
    }
    if (from_core) lat += p_.peer_snoop_ps;
    if (invalidate) {
        domain_.erase_found(it);
    } else {
        it->exclusive = false;
        it->owner = -1;
    }
    t.dirty = dirty;
    return lat;
}

} // namespace warmsched::models
