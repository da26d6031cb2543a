// The RT class's priority array (struct rt_prio_array): one FIFO list per kernel priority 0..98 (the
// kernel keeps 100, MAX_RT_PRIO) and a bitmap of the non-empty lists, so the pick is "first set bit,
// head of that list". The kernel's extra delimiter bit only stops its bit search; std::bitset needs none.
#pragma once

#include "scheduler/task/task.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <deque>

namespace warmsched::scheduler {

constexpr int MAX_RT_PRIO = 100;

class rt_prio_array {
public:
    void push_tail(task& p) { add(p, false); }
    void push_head(task& p) { add(p, true); }
    void remove(task& p) {
        auto& q = queue_[index(p)];
        q.erase(std::find(q.begin(), q.end(), &p));
        if (q.empty()) bitmap_.reset(index(p));
    }
    // Moves p to the tail (or head) of its priority's list.
    void requeue(task& p, bool head) {
        remove(p);
        add(p, head);
    }
    // The best (lowest) queued priority, MAX_RT_PRIO when empty (sched_find_first_bit).
    int first_prio() const {
        for (int i = 0; i < MAX_RT_PRIO; ++i)
            if (bitmap_.test(i)) return i;
        return MAX_RT_PRIO;
    }
    task* first() const {
        const int i = first_prio();
        return i < MAX_RT_PRIO ? queue_[i].front() : nullptr;
    }
    // How many tasks share prio's list.
    std::size_t count(int prio) const { return queue_[prio].size(); }
    const std::deque<task*>& list(int prio) const { return queue_[prio]; }

private:
    static int index(const task& p) { return std::clamp(p.prio(), 0, MAX_RT_PRIO - 1); }
    void add(task& p, bool head) {
        auto& q = queue_[index(p)];
        if (head)
            q.push_front(&p);
        else
            q.push_back(&p);
        bitmap_.set(index(p));
    }
    std::array<std::deque<task*>, MAX_RT_PRIO> queue_;
    std::bitset<MAX_RT_PRIO> bitmap_;
};

} // namespace warmsched::scheduler
