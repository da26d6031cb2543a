// Cost-of-migration tracker; see migration_cost.h.
#include "workloads/kernel/migration_cost.h"

namespace warmsched::workloads {

using models::mem_source;
using models::ps_t;

static_assert(static_cast<unsigned>(scheduler::migration_cause::ext_dispatch) + 1 ==
                  migration_cost::num_causes,
              "a migration cause without a row in the report");

const char* to_string(migration_distance d) {
    switch (d) {
    case migration_distance::smt_sibling:
        return "SMT sibling";
    case migration_distance::same_llc:
        return "same LLC";
    case migration_distance::other_llc:
        return "other LLC";
    case migration_distance::other_node:
        return "other node";
    case migration_distance::count:
        break;
    }
    return "?";
}

miss_origin origin_of(mem_source s) {
    switch (s) {
    case mem_source::peer_cache:
    case mem_source::llc:
        return miss_origin::own_llc;
    case mem_source::remote_llc:
    case mem_source::remote_socket:
        return miss_origin::other_llc;
    case mem_source::local_memory:
    case mem_source::remote_memory:
        return miss_origin::memory;
    default:
        return miss_origin::own_l2;
    }
}

const char* to_string(miss_origin o) {
    switch (o) {
    case miss_origin::own_l2:
        return "own L2";
    case miss_origin::own_llc:
        return "own L3";
    case miss_origin::other_llc:
        return "other L3";
    case miss_origin::memory:
        return "DRAM";
    case miss_origin::count:
        break;
    }
    return "?";
}

const char* to_string(evictor_place p) {
    switch (p) {
    case evictor_place::same_cpu:
        return "the same CPU";
    case evictor_place::smt_sibling:
        return "the SMT sibling";
    case evictor_place::other_core:
        return "another core of the LLC";
    case evictor_place::count:
        break;
    }
    return "?";
}

std::uint64_t miss_tally::total() const {
    std::uint64_t n = 0;
    for (auto m : misses) n += m;
    return n;
}

ps_t miss_tally::stall() const {
    ps_t n = 0;
    for (auto s : stall_ps) n += s;
    return n;
}

miss_tally& miss_tally::operator+=(const miss_tally& o) {
    for (std::size_t i = 0; i < misses.size(); ++i) {
        misses[i] += o.misses[i];
        stall_ps[i] += o.stall_ps[i];
    }
    return *this;
}

migration_cost::migration_cost(const scheduler::cpu_layout& layout, unsigned set_sampling)
    : layout_(layout), set_sampling_(set_sampling), index_(4096), tasks_(1024) {
    while ((1u << sample_shift_) < set_sampling) ++sample_shift_;
    block_shift_ = sample_shift_ + 9; // log2(block_lines)
    static_assert(block_lines == 512, "block_shift_");
}

migration_cost::line_record& migration_cost::get(std::uint64_t line) {
    if (line_record* r = find(line)) return *r;
    const std::uint64_t b = line >> block_shift_;
    index_[b] = static_cast<std::uint32_t>(blocks_.size());
    blocks_.push_back(std::make_unique<block>());
    last_block_ = b;
    last_ = blocks_.back().get();
    return (*last_)[(line >> sample_shift_) & (block_lines - 1)];
}

migration_distance migration_cost::distance(unsigned from, unsigned to) const {
    if (layout_.core_of[from] == layout_.core_of[to]) return migration_distance::smt_sibling;
    if (layout_.llc_of[from] == layout_.llc_of[to]) return migration_distance::same_llc;
    if (layout_.node_of[from] == layout_.node_of[to]) return migration_distance::other_llc;
    return migration_distance::other_node;
}

void migration_cost::task_migrated(std::uint32_t task, unsigned from, unsigned to,
                                   scheduler::migration_cause why) {
    task_record& t = task_at(task);
    // The caches it leaves are those it last filled: where it last ran (for a new child, where fork
    // wrote its lines). That is `from` unless it moved again before running -- woken onto one CPU and
    // pulled by a newidle balance before it ran, say -- and the distance is measured from there.
    const unsigned warm = t.ran_on != no_cpu ? t.ran_on : from;
    const unsigned c = index(why, distance(warm, to));
    ++t.epoch;
    t.last = static_cast<std::int16_t>(c);
    t.left_core = layout_.core_of[warm];
    ++classes_[c].migrations;
}

void migration_cost::missed(unsigned cpu, std::uint32_t task, std::uint64_t line, mem_source src,
                            ps_t latency_ps) {
    if (task == 0) { // kernel work with no task (idle): the line is nobody's any more
        if (line_record* r = find(line)) r->task = 0;
        return;
    }
    line_record& r = get(line);
    task_record& t = task_at(task);
    t.ran_on = cpu;
    if (r.task == task) {
        const unsigned had = layout_.core_of[r.cpu], now = layout_.core_of[cpu];
        if (had != now) {
            // Touched before the latest migration, on the core the task left, and still in that
            // core's caches or its LLC when it left: a refill.
            if (r.epoch != t.epoch && had == t.left_core && !(r.flags & gone_bit) && t.last >= 0)
                classes_[static_cast<unsigned>(t.last)].refill.add(origin_of(src), latency_ps);
            else
                unattributed_.add(origin_of(src), latency_ps);
        } else if ((r.flags & place_mask) != 0 && src != mem_source::l2) {
            // On the core where it had the line, which another task's fill pushed out.
            const int p = (r.flags & place_mask) - 1;
            stacking_.add(origin_of(src), latency_ps);
            stacking_by_[p].add(origin_of(src), latency_ps);
        }
    }
    r.task = task;
    r.cpu = static_cast<std::uint16_t>(cpu);
    r.epoch = t.epoch;
    r.flags = 0;
}

void migration_cost::evicted(line_record* r, std::uint32_t by, unsigned by_cpu) {
    // The latest loss counts: the owner's own fills (capacity) and kernel work clear the mark.
    r->flags &= static_cast<std::uint8_t>(~place_mask);
    if (by == r->task || by == 0) return;
    const evictor_place p = by_cpu == r->cpu                                     ? evictor_place::same_cpu
                            : layout_.core_of[by_cpu] == layout_.core_of[r->cpu] ? evictor_place::smt_sibling
                                                                                 : evictor_place::other_core;
    r->flags |= static_cast<std::uint8_t>(1 + static_cast<int>(p));
}

void migration_cost::left_core(unsigned core, std::uint64_t line, std::uint32_t task, unsigned cpu) {
    line_record* r = find(line);
    if (r && r->task != 0 && layout_.core_of[r->cpu] == core) evicted(r, task, cpu);
}

void migration_cost::left_llc(unsigned llc, std::uint64_t line, std::uint32_t task, unsigned cpu,
                              bool domain_lost) {
    line_record* r = find(line);
    if (!r || r->task == 0 || layout_.llc_of[r->cpu] != llc) return;
    evicted(r, task, cpu);
    if (domain_lost && r->epoch == tasks_[r->task].epoch) {
        // Gone from the caches the task runs on, before any move: a later miss on it is no refill.
        if ((r->flags & place_mask) == 0)
            *r = line_record{}; // its own fills or the kernel's: nothing left to tell
        else
            r->flags |= gone_bit; // another task's: a stacking miss if it comes back on this core
    }
}

std::size_t migration_cost::memory_bytes() const {
    return blocks_.size() * sizeof(block) +
           index_.capacity() * (sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
           blocks_.capacity() * sizeof(blocks_[0]) + tasks_.capacity() * sizeof(task_record);
}

} // namespace warmsched::workloads
