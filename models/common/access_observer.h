// What the hierarchy tells an observer that tracks which software task had which line where (the
// cost-of-migration report, workloads/kernel/migration_cost): every access that did not hit L1, and
// every capacity eviction from a core's private caches or an LLC, each with the task and CPU whose
// access caused it. Only simulated lines are reported (set sampling). The L1-hit fast path reports
// nothing, so "last touched" means "last missed in L1". No timing depends on the observer.
#pragma once

#include "models/common/mem_txn.h"

#include <cstdint>

namespace warmsched::models {

class access_observer {
public:
    virtual ~access_observer() = default;
    // An access by `task` on CPU `cpu` to `line` that missed L1 (or needed ownership): served by `src`
    // after `latency_ps`.
    virtual void missed(unsigned cpu, std::uint32_t task, std::uint64_t line, mem_source src,
                        ps_t latency_ps) = 0;
    // `line` left core `core`'s private caches to make room for a fill caused by `task` on `cpu`.
    virtual void left_core(unsigned core, std::uint64_t line, std::uint32_t task, unsigned cpu) = 0;
    // `line` was evicted from LLC `llc`'s tag array by a fill caused by `task` on `cpu` (an inclusive
    // LLC also takes it from its cores). `domain_lost`: neither the LLC nor any of its cores holds it now.
    virtual void left_llc(unsigned llc, std::uint64_t line, std::uint32_t task, unsigned cpu,
                          bool domain_lost) = 0;
};

} // namespace warmsched::models
