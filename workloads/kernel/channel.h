// A pipe, an AF_UNIX stream socket or one direction of a loopback AF_INET connection between tasks: a
// byte stream held in kernel buffer lines that the writer really writes and the reader really reads, so
// a message moves through the caches (and across LLCs when the two ends run apart). A pipe holds 64 KiB
// of data; a socket is limited by the sender's buffer (sk_sndbuf, 212992 bytes) charged with each
// message's truesize (data plus sk_buff overhead). Blocked readers and writers wait in FIFO wait queues
// and are woken one at a time with WF_SYNC. Reads and writes hold the object's lock while they copy, so
// writers to one pipe serialise.
//
// A write moves in segments of at most max_segment() bytes, and each segment a socket queues wakes a
// waiting reader (sk_data_ready): a pipe's PIPE_BUF (4096), an AF_UNIX skb (unix_stream_sendmsg caps one
// at about UNIX_SKB_FRAGS_SZ, 32 KiB), a loopback TCP segment (the MSS of lo's 65536-byte MTU: 65536 - 20
// IP - 20 TCP - 12 timestamp option = 65484; loopback GSO sends a write up to that in one skb).
//
// Simplifications: the pipe's pages are a fixed 64 KiB ring (Linux allocates and frees pages, but
// reuses them hot); a socket's sk_buffs come from a ring of the same size as its send buffer.
#pragma once

#include <cstdint>
#include <deque>

namespace warmsched::workloads {

struct kernel_task;

// socket: AF_UNIX stream; inet_socket: a TCP or UDP socket over loopback (workloads/net).
enum class channel_kind { pipe, socket, inet_socket };

class channel {
public:
    static constexpr std::uint64_t pipe_capacity = 65536;  // 16 pages
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
    std::uint64_t ring_bytes() const { return capacity(); }
    // Buffer space a write of `bytes` takes.
    std::uint64_t charge(std::uint64_t bytes) const {
        if (kind_ == channel_kind::pipe) return bytes;
        return (bytes + line_ - 1) / line_ * line_ + skb_overhead;
    }
    bool fits(std::uint64_t bytes) const { return used_ + charge(bytes) <= capacity(); }
    bool empty() const { return segments_.empty(); }
    std::uint64_t used() const { return used_; }

    // The kernel-side lines of the object (lock, head/tail, wait queues): line 0 and line 1.
    std::uint64_t struct_line(unsigned i) const { return struct_base_ + i * line_; }

    // Appends a message; returns the address of its data in the ring (its header line first for a
    // socket). The caller has checked fits().
    std::uint64_t append(std::uint64_t bytes) {
        const std::uint64_t c = charge(bytes);
        if (head_ + c > ring_bytes()) head_ = 0; // wrap: a message is contiguous
        const std::uint64_t addr = ring_base_ + head_;
        segments_.push_back({addr, bytes, c});
        head_ += c;
        used_ += c;
        return addr;
    }
    // Data lines of the oldest message still holding bytes (socket: after the header line).
    struct piece {
        std::uint64_t addr = 0, bytes = 0;
    };
    // Consumes up to `bytes` from the front, appending the pieces read to `out`; returns bytes read.
    template <class Out> std::uint64_t consume(std::uint64_t bytes, Out& out) {
        std::uint64_t got = 0;
        while (got < bytes && !segments_.empty()) {
            segment& s = segments_.front();
            const std::uint64_t take = std::min(bytes - got, s.bytes - s.read);
            const std::uint64_t data = s.addr + (is_socket() ? line_ : 0);
            out.push_back(piece{data + s.read, take});
            s.read += take;
            got += take;
            if (s.read == s.bytes) {
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
    channel_kind kind_;
    std::uint64_t ring_base_, struct_base_;
    unsigned line_;
    std::deque<segment> segments_;
    std::uint64_t head_ = 0, used_ = 0;
};

} // namespace warmsched::workloads
