// A pipe, an AF_UNIX stream socket or one direction of a loopback AF_INET connection between tasks: a
// byte stream held in kernel buffer lines that the writer really writes and the reader really reads, so
// a message moves through the caches (and across LLCs when the two ends run apart). A pipe holds 64 KiB
// of data; a socket is limited by the sender's buffer (sk_sndbuf, 212992 bytes) charged with each
// message's truesize (data plus sk_buff overhead). Blocked readers and writers wait in FIFO wait queues
// and are woken with WF_SYNC: a pipe's one at a time (its waits are exclusive), an AF_UNIX socket's all at
// once (sock_wait_for_wmem and unix_stream_data_wait wait non-exclusively). Reads and writes hold the object's lock while they copy, so
// writers to one pipe serialise.
//
// A write moves in segments of at most max_segment() bytes, and each segment a socket queues wakes a
// waiting reader (sk_data_ready): a pipe's PIPE_BUF (4096), an AF_UNIX skb (unix_stream_sendmsg caps one
// at about UNIX_SKB_FRAGS_SZ, 32 KiB), a loopback TCP segment (the MSS of lo's 65536-byte MTU: 65536 - 20
// IP - 20 TCP - 12 timestamp option = 65484; loopback GSO sends a write up to that in one skb).
//
// A pipe keeps its data as Linux does (fs/pipe.c since v5.5): a ring of 16 pipe_buffers, each a page with
// an offset and a length. A write into a pipe that is not empty appends to the last buffer's page when
// the bytes fit there (PIPE_BUF_FLAG_CAN_MERGE); otherwise it takes a slot and a page: pipe->tmp_page if
// the pipe has one, a free page otherwise. A read that empties a buffer releases its page, which becomes
// tmp_page if there is none (anon_pipe_buf_release). So a pipe whose reader keeps up writes every message
// at the start of the same page, and the same few lines move between the two ends' caches; the pipe is
// full when its 16 slots are taken, whatever their bytes.
//
// Simplifications: a page a pipe frees beyond tmp_page goes to the page allocator in Linux (the freeing
// CPU's per-CPU list, reused hot by that CPU's next allocation); here it goes to the pipe's own stack of
// free pages, reused hottest first by the pipe's next new buffer, so a pipe never touches more than the 17
// pages it can hold at once. A write larger than PIPE_BUF comes in PIPE_BUF steps (max_segment()), each
// merged or given its own page; Linux merges the remainder (len % PAGE_SIZE) first. A socket's sk_buffs
// come from a ring of the same size as its send buffer.
//
// An AF_UNIX socket's sk_buff is allocated by the sender and freed by the reader, as in the kernel: the
// reader's free writes the sk_buff (the slab's free pointer) and drops the sending socket's
// sk_wmem_alloc, a line of its own (struct_line(2)) that the sender's next allocation writes again. So
// when the two ends run apart, both lines move between their caches with every message. (A loopback
// TCP or UDP socket's sk_buff work is inside its calibrated instruction budgets: workloads/net.)
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace warmsched::workloads {

struct kernel_task;

// socket: AF_UNIX stream; inet_socket: a TCP or UDP socket over loopback (workloads/net).
enum class channel_kind { pipe, socket, inet_socket };

class channel {
public:
    static constexpr std::uint64_t page_size = 4096; // PAGE_SIZE (x86)
    static constexpr unsigned pipe_buffers = 16;     // PIPE_DEF_BUFFERS: the pipe's slots (max_usage)
    static constexpr std::uint64_t pipe_capacity = pipe_buffers * page_size; // 65536: 16 full pages
    // The address space a pipe's pages take: its 16 buffers and tmp_page.
    static constexpr std::uint64_t pipe_pages_bytes = (pipe_buffers + 1) * page_size;
    static constexpr std::uint64_t socket_sndbuf = 212992; // net.core.wmem_default
    static constexpr std::uint64_t skb_overhead = 576;     // sk_buff + skb_shared_info (estimate)
    static constexpr std::uint64_t atomic_write = 4096;    // PIPE_BUF: writes up to this are atomic
    static constexpr std::uint64_t unix_skb_max = 32768;   // UNIX_SKB_FRAGS_SZ: an AF_UNIX skb's data
    static constexpr std::uint64_t loopback_mss = 65484;   // TCP MSS at lo's MTU, with timestamps

    channel(channel_kind kind, std::uint64_t ring_base, std::uint64_t struct_base, unsigned line_size)
        : kind_(kind), ring_base_(ring_base), struct_base_(struct_base), line_(line_size) {}

    channel_kind kind() const { return kind_; }
    bool is_socket() const { return kind_ != channel_kind::pipe; }
    std::uint64_t capacity() const { return kind_ == channel_kind::pipe ? pipe_capacity : socket_sndbuf; }
    // The most one step of a write moves (and, for a socket, one wakeup of a waiting reader).
    std::uint64_t max_segment() const {
        switch (kind_) {
        case channel_kind::pipe: return atomic_write;
        case channel_kind::socket: return unix_skb_max;
        case channel_kind::inet_socket: return loopback_mss;
        }
        return atomic_write;
    }
    // Buffer space a write of `bytes` takes (a socket's send buffer is charged with its truesize).
    std::uint64_t charge(std::uint64_t bytes) const {
        if (kind_ == channel_kind::pipe) return bytes;
        return (bytes + line_ - 1) / line_ * line_ + skb_overhead;
    }
    // Whether a write of `bytes` (at most max_segment()) can go in now: a pipe needs room in its last
    // page or a free slot; an AF_UNIX socket a send buffer not yet full (sock_alloc_send_pskb allocates
    // while sk_wmem_alloc < sk_sndbuf, so the last sk_buff may overshoot); a loopback socket room for it.
    bool fits(std::uint64_t bytes) const {
        if (kind_ == channel_kind::pipe) return can_merge(bytes) || bufs_.size() < pipe_buffers;
        if (kind_ == channel_kind::socket) return used_ < capacity();
        return used_ + charge(bytes) <= capacity();
    }
    bool empty() const { return kind_ == channel_kind::pipe ? bufs_.empty() : segments_.empty(); }
    // Bytes queued (socket: their truesize).
    std::uint64_t used() const { return used_; }
    // A pipe's buffers in use (slots taken), and the pages it has touched so far (at most 17).
    unsigned pipe_slots_used() const { return static_cast<unsigned>(bufs_.size()); }
    unsigned pipe_pages_touched() const { return fresh_pages_; }

    // The kernel-side lines of the object: 0 the lock, 1 head/tail and the wait queues, and for an AF_UNIX
    // socket 2 the sending socket's sk_wmem_alloc.
    std::uint64_t struct_line(unsigned i) const { return struct_base_ + i * line_; }
    static unsigned struct_lines(channel_kind kind) { return kind == channel_kind::socket ? 3 : 2; }

    // Appends a message; returns the address of its data in the ring (its header line first for a
    // socket). The caller has checked fits().
    std::uint64_t append(std::uint64_t bytes) {
        if (kind_ == channel_kind::pipe) return pipe_append(bytes);
        const std::uint64_t c = charge(bytes);
        if (head_ + c > capacity()) head_ = 0; // wrap: a message is contiguous
        const std::uint64_t addr = ring_base_ + head_;
        segments_.push_back({addr, bytes, c});
        head_ += c;
        used_ += c;
        return addr;
    }
    // Data lines of the oldest message still holding bytes (socket: after the header line).
    struct piece {
        std::uint64_t addr = 0, bytes = 0;
        bool freed = false;      // socket: this piece emptied its sk_buff, which the reader now frees
        std::uint64_t header = 0; // socket: that sk_buff's header line
    };
    // Consumes up to `bytes` from the front, appending the pieces read to `out`; returns bytes read.
    template <class Out> std::uint64_t consume(std::uint64_t bytes, Out& out) {
        if (kind_ == channel_kind::pipe) return pipe_consume(bytes, out);
        std::uint64_t got = 0;
        while (got < bytes && !segments_.empty()) {
            segment& s = segments_.front();
            const std::uint64_t take = std::min(bytes - got, s.bytes - s.read);
            const std::uint64_t data = s.addr + (is_socket() ? line_ : 0);
            out.push_back(piece{data + s.read, take, false, s.addr});
            s.read += take;
            got += take;
            if (s.read == s.bytes) {
                out.back().freed = true;
                used_ -= s.charge;
                segments_.pop_front();
            }
        }
        return got;
    }

    std::deque<kernel_task*> readers, writers; // wait queues
    // pipe->mutex / the socket's lock: held from the start of a read or write to its unlock, in ps.
    // A task that finds it held spins until then (the kernel's mutexes spin while the owner runs).
    std::uint64_t locked_until_ps = 0;
    std::uint64_t lock_contended = 0, lock_wait_ps = 0;

private:
    struct segment {
        std::uint64_t addr, bytes, charge, read = 0;
    };
    struct pipe_buffer { // struct pipe_buffer: the data is [page + offset, page + offset + len)
        std::uint64_t page, offset, len;
    };
    static constexpr std::uint64_t no_page = ~0ull;

    // pipe_write's merge: the pipe is not empty and the bytes fit after the last buffer's data.
    bool can_merge(std::uint64_t bytes) const {
        const std::uint64_t chars = bytes & (page_size - 1);
        if (chars == 0 || bufs_.empty()) return false;
        const pipe_buffer& b = bufs_.back();
        return b.offset + b.len + chars <= page_size;
    }
    std::uint64_t pipe_append(std::uint64_t bytes) {
        used_ += bytes;
        if (can_merge(bytes)) {
            pipe_buffer& b = bufs_.back();
            const std::uint64_t addr = b.page + b.offset + b.len;
            b.len += bytes;
            return addr;
        }
        std::uint64_t page = tmp_page_;
        tmp_page_ = no_page;
        if (page == no_page && !free_pages_.empty()) {
            page = free_pages_.back();
            free_pages_.pop_back();
        }
        if (page == no_page) page = ring_base_ + page_size * fresh_pages_++;
        bufs_.push_back({page, 0, bytes});
        return page;
    }
    template <class Out> std::uint64_t pipe_consume(std::uint64_t bytes, Out& out) {
        std::uint64_t got = 0;
        while (got < bytes && !bufs_.empty()) {
            pipe_buffer& b = bufs_.front();
            const std::uint64_t take = std::min(bytes - got, b.len);
            out.push_back(piece{b.page + b.offset, take});
            b.offset += take;
            b.len -= take;
            got += take;
            if (b.len == 0) { // anon_pipe_buf_release: kept as tmp_page, or freed
                if (tmp_page_ == no_page)
                    tmp_page_ = b.page;
                else
                    free_pages_.push_back(b.page);
                bufs_.pop_front();
            }
        }
        used_ -= got;
        return got;
    }

    channel_kind kind_;
    std::uint64_t ring_base_, struct_base_;
    unsigned line_;
    std::deque<segment> segments_; // a socket's queued messages
    std::uint64_t head_ = 0, used_ = 0;
    std::deque<pipe_buffer> bufs_; // a pipe's ring, oldest first
    std::uint64_t tmp_page_ = no_page;
    std::vector<std::uint64_t> free_pages_; // freed beyond tmp_page, the most recently freed last
    unsigned fresh_pages_ = 0;              // pages of the pipe's region handed out so far
};

} // namespace warmsched::workloads
