// RT wakeup placement and find_lowest_rq; see rt_placement.h.
#include "scheduler/rt/rt_placement.h"

#include "scheduler/core/scheduler.h"

#include <algorithm>

namespace warmsched::scheduler {

unsigned allowed_up_to_two(const task& p, unsigned ncpus) {
    unsigned n = 0;
    for (unsigned c = 0; c < ncpus && n < 2; ++c) n += p.allowed_on(c) ? 1 : 0;
    return n;
}

std::vector<unsigned> rt_placement::linear_scan(const task& p, unsigned this_cpu) {
    std::vector<unsigned> lowest;
    int lowest_prio = -1;
    for (unsigned c = 0; c < core_.num_cpus(); ++c) {
        if (!p.allowed_on(c)) continue;
        if (c != this_cpu) core_.rt_rq_read(c); // rq->rt.highest_prio, on c's run-queue line
        const int prio = core_.rq(c).rt.highest_prio_curr;
        if (prio >= MAX_RT_PRIO - 1) return {c}; // no RT task there: the scan ends, and it is the one
        if (prio <= p.prio() || prio < lowest_prio) continue;
        if (prio > lowest_prio) {
            lowest.clear();
            lowest_prio = prio;
        }
        lowest.push_back(c);
    }
    return lowest;
}

std::vector<unsigned> rt_placement::lowest_mask(const task& p, unsigned this_cpu) {
    if (!core_.config().features[feature::RT_CPUPRI]) return linear_scan(p, this_cpu);
    return cpupri_.find(p);
}

int rt_placement::find_lowest_rq(const task& p, unsigned this_cpu) {
    const unsigned ncpus = core_.num_cpus();
    if (allowed_up_to_two(p, ncpus) < 2) return -1;
    const std::vector<unsigned> lowest = lowest_mask(p, this_cpu);
    if (lowest.empty()) return -1;
    const auto in_mask = [&](unsigned c) {
        return std::find(lowest.begin(), lowest.end(), c) != lowest.end();
    };
    const unsigned cpu = p.cpu;
    if (!core_.config().features[feature::RT_TOPOLOGY_PREF]) return static_cast<int>(lowest.front());
    if (in_mask(cpu)) return static_cast<int>(cpu);
    const bool this_ok = in_mask(this_cpu);
    for (const sched_domain& sd : core_.domains().domains(cpu)) {
        if (!sd.has(SD_WAKE_AFFINE)) continue;
        if (this_ok && sd.contains(this_cpu)) return static_cast<int>(this_cpu);
        // any_and_distribute(lowest_mask ∩ span): the next such CPU after the last one handed out.
        int first = -1, after = -1;
        for (unsigned c : lowest) {
            if (!sd.contains(c)) continue;
            if (first < 0) first = static_cast<int>(c);
            if (after < 0 && c > distribute_prev_) after = static_cast<int>(c);
        }
        const int best = after >= 0 ? after : first;
        if (best >= 0) {
            distribute_prev_ = static_cast<unsigned>(best);
            return best;
        }
    }
    if (this_ok) return static_cast<int>(this_cpu);
    return static_cast<int>(lowest.front());
}

unsigned rt_placement::select(task& p, unsigned cpu, unsigned wake_flags) {
    if (!(wake_flags & (WF_TTWU | WF_FORK)) || !core_.config().features[feature::RT_WAKE_PREROUTE])
        return cpu;
    const task& curr = *core_.rq(cpu).curr;
    const bool test = !curr.is_idle && curr.is_rt() &&
                      (allowed_up_to_two(curr, core_.num_cpus()) < 2 || curr.prio() <= p.prio());
    if (test) {
        const int calling = core_.calling_cpu();
        const unsigned this_cpu = calling >= 0 ? static_cast<unsigned>(calling) : cpu;
        const int target = find_lowest_rq(p, this_cpu);
        if (target >= 0) {
            if (static_cast<unsigned>(target) != this_cpu) core_.rt_rq_read(static_cast<unsigned>(target));
            if (p.prio() < core_.rq(static_cast<unsigned>(target)).rt.highest_prio_curr)
                cpu = static_cast<unsigned>(target);
        }
    }
    return cpu;
}

} // namespace warmsched::scheduler
