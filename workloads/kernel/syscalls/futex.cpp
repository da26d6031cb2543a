// futex(FUTEX_WAIT) and futex(FUTEX_WAKE): the word's line is read or written through the caches, a
// waiter whose word changed returns at once (EAGAIN), a wake wakes up to `count` waiters in FIFO order.
// See cpu_executor.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

namespace warmsched::workloads {

void cpu_executor::sys_futex_wait(kernel_task& t) {
    const op& o = *t.current;
    futex_word& f = *o.futex;
    if (t.resumed) return finish(t, 0);
    touch(f.addr, false);
    h_.sync();
    if (f.value != o.value) return finish(t, 0); // EAGAIN: the word changed
    f.waiters.push_back(&t);
    return block(t);
}

void cpu_executor::sys_futex_wake(kernel_task& t) {
    const op& o = *t.current;
    futex_word& f = *o.futex;
    touch(f.addr, true); // the user-space store of the new value
    h_.sync();
    f.value = o.value;
    std::uint64_t woken = 0;
    while (woken < o.count && !f.waiters.empty()) {
        kernel_task* w = f.waiters.front();
        f.waiters.pop_front();
        wake(*w, 0);
        ++woken;
    }
    return finish(t, woken);
}

} // namespace warmsched::workloads
