// Asynchronous I/O (io_submit, io_getevents, and pread/pwrite as a submit that sleeps until its
// completion): requests go to the block device through sim_kernel::submit_io; completions arrive as
// device interrupts (cpu_interrupts.cpp). See cpu_executor.h and io_context.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

#include <algorithm>

namespace warmsched::workloads {

using models::ps_t;

namespace {
// Moves up to `max` ready completions of `io` into io.reaped.
std::uint64_t reap(io_context& io, std::uint64_t max) {
    io.reaped.clear();
    while (io.reaped.size() < max && !io.ready.empty()) {
        io.reaped.push_back(io.ready.front());
        io.ready.pop_front();
    }
    return io.reaped.size();
}
} // namespace

void cpu_executor::sys_io_submit(kernel_task& t) {
    const op& o = *t.current;
    io_context& io = *o.io;
    if (t.done == 0) { // blk_mq_submit_bio and nvme_queue_rq per request, one doorbell write
        t.done = 1;
        charge(static_cast<ps_t>(k_.costs().io_submit_ps * static_cast<double>(o.count)));
        touch(io.sq_line, true);
        h_.sync();
        k_.submit_io(io, cpu_, o.count);
        if (!o.value) return finish(t, o.count);
    }
    // pread/pwrite: sleep until the request's completion interrupt.
    h_.sync();
    if (!io.ready.empty()) {
        touch(io.ring_line, false);
        reap(io, 1);
        return finish(t, io.bytes);
    }
    io.waiter = &t;
    io.min_nr = 1;
    return block(t);
}

void cpu_executor::sys_io_getevents(kernel_task& t) {
    const op& o = *t.current;
    io_context& io = *o.io;
    h_.sync();
    touch(io.ring_line, false);
    const std::uint64_t min_nr = std::max<long>(o.value, 1);
    if (io.ready.size() >= min_nr || (io.inflight == 0 && !io.ready.empty())) {
        const std::uint64_t n = reap(io, o.count);
        touch(t.user_buffer, true); // the io_event array
        return finish(t, n);
    }
    if (io.inflight == 0) return finish(t, 0); // nothing in flight: nothing to wait for
    io.waiter = &t;
    io.min_nr = min_nr;
    return block(t);
}

} // namespace warmsched::workloads
