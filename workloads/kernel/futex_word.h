// A futex: a word in user memory (its line really moves between the tasks that store and load it) and
// the kernel's FIFO queue of tasks waiting on it.
#pragma once

#include <cstdint>
#include <deque>

namespace warmsched::workloads {

struct kernel_task;

struct futex_word {
    long value = 0;
    std::uint64_t addr = 0;
    std::deque<kernel_task*> waiters;
};

} // namespace warmsched::workloads
