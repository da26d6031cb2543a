// futex(FUTEX_WAIT) and futex(FUTEX_WAKE): the word's line is read or written through the caches, a
// waiter whose word changed returns at once (EAGAIN), a wake wakes up to `count` waiters in FIFO order.
// See cpu_executor.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

#include <algorithm>

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
    // futex_wake: up to count waiters are taken off the bucket under its lock, then woken.
    const std::uint64_t woken = std::min<std::uint64_t>(o.count, f.waiters.size());
    wake_queued(f.waiters, static_cast<std::size_t>(woken), 0);
    return finish(t, woken);
}

} // namespace warmsched::workloads
