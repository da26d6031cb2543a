// Core with private caches; see core.h.
#include "models/cpu/core.h"

#include "models/cache/llc.h"

#include <cassert>

namespace warmsched::models {

core::core(const sc_core::sc_module_name& name, const core_module_params& p)
    : sc_module(name), cpu_side("cpu_side"), p_(p) {
    for (std::size_t i = 0; i < p.levels.size(); ++i) {
        const auto& l = p.levels[i];
        levels_.emplace_back(l.size, l.associativity, l.line_size, l.random_replacement, p.seed * 131 + i,
                             p.set_sampling);
        latency_.push_back(l.latency_ps);
    }
    stats_.resize(levels_.size());
    cpu_side.register_b_transport(this, &core::b_transport);
}

void core::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    mem_txn* t = gp.get_extension<mem_txn>();
    assert(t);
    delay += ps_time(access_direct(*t, sc_core::sc_time_stamp().value() + delay.value()));
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

ps_t core::access(mem_txn& t, ps_t at, long l1_slot) {
    const std::uint64_t line = t.line;
    const bool write = t.op != mem_op::load;
    const ps_t atomic = t.op == mem_op::atomic ? p_.atomic_ps : 0;
    const unsigned n = num_levels();
    for (unsigned lv = 0; lv < n; ++lv) {
        tag_array& tags = levels_[lv];
        const long slot = lv == 0 ? l1_slot : tags.slot(line);
        if (slot < 0) {
            ++stats_[lv].misses;
            continue;
        }
        tags.touch_at(slot);
        ++stats_[lv].hits;
        const line_state s = tags.state_at(slot);
        if (lv == 0 && (!write || s == line_state::modified)) { // the common case: an L1 hit with permission
            t.source = mem_source::l1;
            return latency_[0] + atomic;
        }
        t.source = lv == 0 ? mem_source::l1 : mem_source::l2;
        ps_t lat = latency_[lv];
        // The levels above lv missed; lv and (inclusion) every level below hold the line. The upgrade
        // below snoops only the other cores, so the slot stays the line's.
        if (write && s == line_state::shared) { // need ownership: invalidate the other copies
            ++stats_[lv].upgrades;
            lat = request(mem_op::upgrade, line, at);
            t.source = down_.source;
            set_state_from(lv, slot, line, line_state::modified);
        } else if (write && s == line_state::exclusive) {
            set_state_from(lv, slot, line, line_state::modified);
        }
        if (lv > 0) { // bring the line into the levels above
            const line_state st = tags.state_at(slot);
            for (int up = static_cast<int>(lv) - 1; up >= 0; --up) {
                const tag_array::victim v = levels_[up].insert(line, st);
                if (v.line != tag_array::no_line) evicted(static_cast<unsigned>(up), v, at);
            }
        }
        return lat + atomic;
    }
    // Miss in every private level.
    const ps_t lat = request(write ? mem_op::get_exclusive : mem_op::get_shared, line, at);
    t.source = down_.source;
    fill(line, down_.granted, at + lat);
    return lat + atomic;
}

ps_t core::request(mem_op op, std::uint64_t line, ps_t at) {
    down_.op = op;
    down_.line = line;
    down_.llc = p_.llc;
    down_.granted = line_state::invalid;
    down_.dirty = false;
    down_.task = cur_task_;
    down_.cpu = cur_cpu_;
    return llc_->core_request(p_.index_in_llc, down_, at);
}

void core::set_state_from(unsigned lv, long slot, std::uint64_t line, line_state s) {
    levels_[lv].set_state_at(slot, s);
    for (unsigned k = lv + 1; k < num_levels(); ++k) {
        const long sl = levels_[k].slot(line);
        if (sl >= 0) levels_[k].set_state_at(sl, s);
    }
}

void core::fill(std::uint64_t line, line_state s, ps_t at) {
    assert(s != line_state::invalid);
    // Fill from the lowest private level up, so that inclusion holds at every step.
    for (int lv = num_levels() - 1; lv >= 0; --lv) {
        const tag_array::victim v = levels_[lv].insert(line, s);
        if (v.line != tag_array::no_line) evicted(static_cast<unsigned>(lv), v, at);
    }
}

void core::evicted(unsigned lv, const tag_array::victim& v, ps_t at) {
    ++stats_[lv].evictions;
    // Inclusion: the levels above may not keep what this level lost.
    bool dirty = v.state == line_state::modified;
    for (int up = static_cast<int>(lv) - 1; up >= 0; --up)
        dirty = levels_[up].invalidate(v.line) == line_state::modified || dirty;
    if (dirty) ++stats_[lv].writebacks;
    // The level below holds it (inclusion) and takes the dirty data: it is modified there already, as the
    // private levels hold a line in one state (set_state_from and fill set every level; the coherence
    // stress test checks it), so nothing is looked up.
    if (lv + 1 < num_levels()) return;
    put(v.line, dirty, at); // the last private level: tell the LLC
}

std::uint64_t core::flush_private() {
    const ps_t at = sc_core::sc_time_stamp().value();
    const unsigned last = num_levels() - 1; // inclusive: the last private level holds every line
    const std::vector<std::uint64_t> lines = levels_[last].lines();
    cur_task_ = 0; // the idle task's doing
    for (std::uint64_t line : lines) {
        bool dirty = false;
        for (unsigned lv = 0; lv <= last; ++lv)
            dirty = levels_[lv].invalidate(line) == line_state::modified || dirty;
        if (dirty) ++stats_[last].writebacks;
        ++stats_[last].evictions;
        put(line, dirty, at);
    }
    return lines.size();
}

void core::put(std::uint64_t line, bool dirty, ps_t at) {
    down_.op = mem_op::put;
    down_.line = line;
    down_.llc = p_.llc;
    down_.dirty = dirty;
    down_.task = cur_task_;
    down_.cpu = cur_cpu_;
    if (observer_) {
        ++observer_calls_;
        observer_->left_core(p_.index, line, cur_task_, cur_cpu_);
    }
    llc_->core_request(p_.index_in_llc, down_, at); // posted: evictions are off the critical path
}

bool core::snoop(mem_op op, std::uint64_t line, bool& dirty) {
    dirty = false;
    // The levels are inclusive: what the last one lacks, none holds (the common answer to a snoop of a
    // line the core has dropped costs one set scan).
    const unsigned last = num_levels() - 1;
    const long last_slot = levels_[last].slot(line);
    if (last_slot < 0) return false;
    for (unsigned lv = 0; lv <= last; ++lv) {
        tag_array& tags = levels_[lv];
        const long slot = lv == last ? last_slot : tags.slot(line);
        if (slot < 0) continue;
        ++stats_[lv].snoops;
        const line_state s = tags.state_at(slot);
        dirty = dirty || s == line_state::modified;
        if (op == mem_op::snoop_invalidate) {
            tags.invalidate_at(slot);
            ++stats_[lv].invalidations;
        } else if (s != line_state::shared) {
            tags.set_state_at(slot, line_state::shared);
        }
    }
    return true;
}

void core::add_visits(host_visits& v) const {
    for (const auto& tags : levels_) v.tag_sets += tags.set_visits();
    v.observer_calls += observer_calls_;
}

void core::add_stats(stats::group& g) const {
    for (unsigned lv = 0; lv < levels_.size(); ++lv)
        models::add_stats(g.child(p_.levels[lv].name), stats_[lv], false);
}

} // namespace warmsched::models
