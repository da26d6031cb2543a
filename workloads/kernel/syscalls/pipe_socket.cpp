// Pipes and UNIX sockets (write, read): the channel's lock (spinning while another CPU holds it), the
// copy between the user buffer and the channel's pages through the caches, the wait queues, and the
// WF_SYNC wakeup of the other side. See cpu_executor.h and channel.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

#include <algorithm>

namespace warmsched::workloads {

using models::ps_t;

void cpu_executor::lock(channel& ch) {
    h_.sync();
    const ps_t now = h_.now();
    if (ch.locked_until_ps > now) { // held by a task on another CPU: spin until it unlocks
        ++ch.lock_contended;
        ch.lock_wait_ps += ch.locked_until_ps - now;
        charge(ch.locked_until_ps - now);
    }
    touch(ch.struct_line(0), true); // the lock word
}

void cpu_executor::unlock(channel& ch) {
    ch.locked_until_ps = std::max<std::uint64_t>(ch.locked_until_ps, h_.now());
}

void cpu_executor::sys_write(kernel_task& t, channel& ch) {
    op& o = *t.current;
    lock(ch);
    const std::uint64_t piece = std::min(o.count - t.done, ch.max_segment());
    if (!ch.fits(piece)) {
        unlock(ch);
        ch.writers.push_back(&t);
        return block(t);
    }
    const bool was_empty = ch.empty();
    const std::uint64_t addr = ch.append(piece);
    charge(static_cast<ps_t>(k_.costs().pipe_write_ps));
    if (ch.kind() == channel_kind::socket) { // sock_alloc_send_pskb; skb_set_owner_w charges sk_wmem_alloc
        charge(static_cast<ps_t>(k_.costs().unix_skb_alloc_ps));
        touch(ch.struct_line(2), true);
    }
    if (ch.is_socket()) touch(addr, true); // the sk_buff header
    copy(t.user_buffer, addr + (ch.is_socket() ? k_.machine().line_size() : 0), piece);
    touch(ch.struct_line(1), true); // head and the readers' wait queue
    unlock(ch);
    t.done += piece;
    if (!ch.readers.empty() && (was_empty || ch.is_socket())) {
        // An AF_UNIX reader waits non-exclusively (unix_stream_data_wait), so sk_data_ready wakes every
        // one; a pipe's readers and a loopback socket's one reader are woken one at a time.
        wake_queued(ch.readers, ch.kind() == channel_kind::socket ? ch.readers.size() : 1, scheduler::WF_SYNC);
    }
    if (t.done >= o.count) finish(t, o.count);
}

void cpu_executor::sys_read(kernel_task& t, channel& ch) {
    op& o = *t.current;
    lock(ch);
    touch(ch.struct_line(1), false);
    if (ch.empty()) {
        unlock(ch);
        ch.readers.push_back(&t);
        return block(t);
    }
    std::vector<channel::piece> pieces;
    const std::uint64_t got = ch.consume(o.count, pieces);
    charge(static_cast<ps_t>(k_.costs().pipe_read_ps));
    std::uint64_t at = 0;
    for (const auto& pc : pieces) {
        copy(pc.addr, t.user_buffer + at, pc.bytes);
        at += pc.bytes;
        if (pc.freed && ch.kind() == channel_kind::socket) {
            // consume_skb: the slab writes its free pointer into the sk_buff, and sock_wfree drops the
            // sending socket's sk_wmem_alloc.
            charge(static_cast<ps_t>(k_.costs().unix_skb_free_ps));
            touch(pc.header, true);
            touch(ch.struct_line(2), true);
        }
    }
    unlock(ch);
    // Writers blocked on a full buffer:
    // - a pipe wakes one after any read, since a writer waits (exclusively) only while all 16 slots are
    //   taken and pipe_read wakes one when it began on a full pipe (was_full), even if it emptied no page
    //   (the writer then finds the pipe still full and waits again);
    // - an AF_UNIX socket wakes every waiting writer once no more than a quarter of its send buffer is
    //   taken (sock_wfree -> unix_write_space: unix_writable is wmem_alloc << 2 <= sndbuf; the writers
    //   wait non-exclusively in sock_wait_for_wmem);
    // - a loopback socket wakes one once half of its send buffer is free.
    const bool writable = ch.kind() == channel_kind::pipe     ? true
                          : ch.kind() == channel_kind::socket ? ch.used() * 4 <= ch.capacity()
                                                              : ch.used() * 2 <= ch.capacity();
    if (!ch.writers.empty() && writable)
        wake_queued(ch.writers, ch.kind() == channel_kind::socket ? ch.writers.size() : 1, scheduler::WF_SYNC);
    finish(t, got);
}

} // namespace warmsched::workloads
