// The cost-of-migration tracker: which task had which line where, so that the misses a migration or a
// co-scheduled task causes can be counted as they happen in the hardware model -- never computed from a
// formula. It observes the hierarchy (models::access_observer): every access that misses L1 and every
// capacity eviction from a core's private caches or an LLC, each tagged with the task whose access
// caused it; the kernel tells it of every migration (scheduler_hooks::task_migrated).
//
// Per simulated line it keeps one 8-byte record: the task that last missed on it, the CPU it did so on
// and that task's migration count at the time (mod 256), and whether another task's fill last evicted
// it from that CPU's core or LLC, and where that task ran. On an access by task T on CPU c that misses
// L1:
//   refill    T last touched the line before its latest migration, on the core it ran on before that
//             migration, the line was still in that core's caches or its LLC when T moved, and T now
//             runs on another core: T had it in its previous CPU's caches and fetches it again. Counted for
//             that migration's class (cause x distance), by where it came from, with its latency. A move to
//             the SMT sibling keeps the core's caches: no refill.
//   stacking  T last touched the line on this core and another task's fill evicted it from the core
//             or the LLC: counted by where it came from and by where the evicting task ran (this
//             CPU, the SMT sibling, another core of the LLC).
// Each line counts at most once per migration (the record then belongs to the new stint). A record is
// forgotten when its line leaves the LLC domain with nothing to tell (its owner's own fills or the
// kernel's evicted it before any move): a later miss on it would have happened anyway. Accesses
// that hit L1 are not seen (the hardware model's fast path), nor are lines set sampling does not simulate.
#pragma once

#include "models/common/access_observer.h"
#include "models/common/line_map.h"
#include "scheduler/core/scheduler.h"
#include "scheduler/topology/cpu_layout.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace warmsched::workloads {

// How far a task moved: to the SMT sibling (same core), to another core of the same LLC, to another
// LLC of the same NUMA node, to another node.
enum class migration_distance : std::uint8_t { smt_sibling, same_llc, other_llc, other_node, count };
const char* to_string(migration_distance d);

// Where a refetched line came from, grouped as the report prints it.
enum class miss_origin : std::uint8_t { own_l2, own_llc, other_llc, memory, count };
miss_origin origin_of(models::mem_source s); // l1 maps to own_l2 (never reported)
const char* to_string(miss_origin o);

// Where the task that evicted a stacked task's line ran, seen from the victim's CPU.
enum class evictor_place : std::uint8_t { same_cpu, smt_sibling, other_core, count };
const char* to_string(evictor_place p);

struct miss_tally {
    std::array<std::uint64_t, static_cast<int>(miss_origin::count)> misses{};
    std::array<models::ps_t, static_cast<int>(miss_origin::count)> stall_ps{};
    void add(miss_origin o, models::ps_t latency_ps) {
        ++misses[static_cast<int>(o)];
        stall_ps[static_cast<int>(o)] += latency_ps;
    }
    std::uint64_t total() const;
    models::ps_t stall() const;
    miss_tally& operator+=(const miss_tally& o);
};

class migration_cost final : public models::access_observer {
public:
    static constexpr unsigned num_causes = 10; // scheduler::migration_cause
    static constexpr unsigned num_distances = static_cast<unsigned>(migration_distance::count);

    struct migration_class {
        std::uint64_t migrations = 0;
        miss_tally refill;
    };

    migration_cost(const scheduler::cpu_layout& layout, unsigned set_sampling);

    // Task `task` (its pid, never 0) moved from CPU `from` to `to` because of `why`. The migration's
    // distance is measured from the CPU the task last ran on (whose caches hold its lines) -- `from`,
    // unless it was moved again before it ran there.
    void task_migrated(std::uint32_t task, unsigned from, unsigned to, scheduler::migration_cause why);
    migration_distance distance(unsigned from, unsigned to) const;

    void missed(unsigned cpu, std::uint32_t task, std::uint64_t line, models::mem_source src,
                models::ps_t latency_ps) override;
    void left_core(unsigned core, std::uint64_t line, std::uint32_t task, unsigned cpu) override;
    void left_llc(unsigned llc, std::uint64_t line, std::uint32_t task, unsigned cpu,
                  bool domain_lost) override;

    const migration_class& at(scheduler::migration_cause why, migration_distance d) const {
        return classes_[index(why, d)];
    }
    const miss_tally& stacking() const { return stacking_; }
    // Misses on lines the task touched before its latest migration on a core other than the one it
    // left (it moved more than once since): not attributed to any migration.
    const miss_tally& unattributed() const { return unattributed_; }
    const miss_tally& stacking_by(evictor_place p) const { return stacking_by_[static_cast<int>(p)]; }
    unsigned set_sampling() const { return set_sampling_; }
    std::size_t memory_bytes() const; // the tracker's own tables

private:
    struct line_record {        // 8 bytes: one exists per simulated line a task has touched
        std::uint32_t task = 0; // last task that missed on the line (0: none)
        std::uint16_t cpu = 0;  // where it touched it
        std::uint8_t epoch = 0; // the task's migration count then (low 8 bits)
        std::uint8_t flags = 0; // place_mask: 1 + the evictor_place of the other task whose fill last
                                // evicted it from the task's core or LLC (0: none); gone_bit: it left
                                // the LLC domain before the task moved
    };
    static constexpr std::uint8_t place_mask = 3, gone_bit = 4;
    static constexpr std::uint32_t no_cpu = ~0u;
    static_assert(sizeof(line_record) == 8, "keep the per-line record small: one exists per line touched");
    struct task_record {
        std::uint8_t epoch = 0;        // migrations so far (low 8 bits)
        std::int16_t last = -1;        // class of the latest migration
        std::uint32_t ran_on = no_cpu; // CPU of the task's latest miss (where it runs, or last ran)
        std::uint32_t left_core = 0;   // the core it ran on before the latest migration
    };

    static unsigned index(scheduler::migration_cause why, migration_distance d) {
        return static_cast<unsigned>(why) * num_distances + static_cast<unsigned>(d);
    }
    task_record& task_at(std::uint32_t task) {
        if (task >= tasks_.size()) tasks_.resize(task + 1 + tasks_.size() / 2);
        return tasks_[task];
    }
    void evicted(line_record* r, std::uint32_t by, unsigned by_cpu);

    // The records, 64 consecutive simulated lines to a block, found through a map from block number:
    // working sets, stacks and buffers are contiguous, so blocks fill up, the index stays small enough
    // to sit in the host's caches, and a lookup costs about one host cache miss (the record's).
    static constexpr unsigned block_lines = 512;
    using block = std::array<line_record, block_lines>;
    line_record* find(std::uint64_t line) {
        const std::uint64_t b = line >> block_shift_;
        if (b != last_block_) {
            const std::uint32_t* i = index_.find(b);
            if (!i) return nullptr;
            last_block_ = b;
            last_ = blocks_[*i].get();
        }
        return &(*last_)[(line >> sample_shift_) & (block_lines - 1)];
    }
    line_record& get(std::uint64_t line);

    scheduler::cpu_layout layout_;
    unsigned set_sampling_;
    unsigned sample_shift_ = 0, block_shift_ = 0;
    models::line_map<std::uint32_t> index_; // block number -> position in blocks_
    std::vector<std::unique_ptr<block>> blocks_;
    std::uint64_t last_block_ = ~0ull;
    block* last_ = nullptr;
    std::vector<task_record> tasks_;
    std::array<migration_class, num_causes * num_distances> classes_{};
    miss_tally stacking_, unattributed_;
    std::array<miss_tally, static_cast<int>(evictor_place::count)> stacking_by_{};
};

} // namespace warmsched::workloads
