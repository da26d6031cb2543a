// cpupri (kernel/sched/cpupri.c, v5.11+ mapping): per priority level, the set of CPUs whose run queue's
// best RT task is at that level, so that "the lowest-priority CPUs p may run on" is a scan of at most
// p's level vectors instead of a walk over every run queue. Level 0 (CPUPRI_NORMAL) holds CPUs with no
// RT task -- idle or running fair work, which cpupri does not tell apart --, levels 1..99 CPUs whose best
// RT task has that rt_priority (kernel prio 99 - level). Offline CPUs (CPUPRI_INVALID) and the
// asymmetric-capacity fitness filter are not modelled.
#pragma once

#include "scheduler/task/task.h"

#include <array>
#include <vector>

namespace warmsched::scheduler {

class cpupri {
public:
    static constexpr int NR_PRI = 101; // CPUPRI_NORMAL, 1..99, CPUPRI_HIGHER
    static constexpr int INVALID = -1;

    explicit cpupri(unsigned ncpus);
    // cpupri_set: rq of `cpu` now has highest prio `prio` (99 = no RT task).
    void set(unsigned cpu, int prio);
    // cpupri_find: the CPUs of the lowest level below p's own that p may run on; empty if none.
    std::vector<unsigned> find(const task& p) const;
    int level_of(unsigned cpu) const { return cpu_to_pri_[cpu]; }
    static int convert(int prio) { return prio >= 99 ? 0 : 99 - prio; }

private:
    std::array<std::vector<bool>, NR_PRI> mask_;
    std::array<unsigned, NR_PRI> count_{};
    std::vector<int> cpu_to_pri_;
};

} // namespace warmsched::scheduler
