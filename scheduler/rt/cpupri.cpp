// cpupri; see cpupri.h.
#include "scheduler/rt/cpupri.h"

namespace warmsched::scheduler {

cpupri::cpupri(unsigned ncpus) : cpu_to_pri_(ncpus, INVALID) {
    for (auto& m : mask_) m.assign(ncpus, false);
    for (unsigned c = 0; c < ncpus; ++c) set(c, 99); // online, no RT task: CPUPRI_NORMAL
}

void cpupri::set(unsigned cpu, int prio) {
    const int level = convert(prio);
    const int old = cpu_to_pri_[cpu];
    if (level == old) return;
    mask_[level][cpu] = true;
    ++count_[level];
    if (old != INVALID) {
        mask_[old][cpu] = false;
        --count_[old];
    }
    cpu_to_pri_[cpu] = level;
}

std::vector<unsigned> cpupri::find(const task& p) const {
    std::vector<unsigned> lowest;
    const int task_pri = convert(p.prio());
    for (int idx = 0; idx < task_pri; ++idx) {
        if (count_[idx] == 0) continue;
        for (unsigned c = 0; c < mask_[idx].size(); ++c)
            if (mask_[idx][c] && p.allowed_on(c)) lowest.push_back(c);
        if (!lowest.empty()) return lowest;
    }
    return lowest;
}

} // namespace warmsched::scheduler
