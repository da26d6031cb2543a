// The loopback network path that netperf and tbench run over (127.0.0.1 or ::1): a connection is two
// socket channels, one per direction, so a message's bytes really move from the sender's caches to the
// receiver's (channel.h: copies through sk_buff lines, the socket lock, the wakeup of a blocked
// reader), plus the TCP/IP or UDP/IP stack's own work on each side, as instructions and the lines they
// touch -- never a latency constant:
//   send    = tcp_sendmsg/udp_sendmsg, ip_queue_xmit, loopback_xmit and, on loopback in the sender's
//             context, the receive softirq (ip_rcv, tcp_v4_rcv/udp_rcv) that queues the skb on the
//             peer's socket before the channel's write wakes the peer;
//   receive = tcp_recvmsg/udp_recvmsg after the data is copied out.
// Both touch the connection's state -- the hot lines of both ends' struct sock / tcp_sock, one region
// shared by the two processes (memory_profile::shared_region), so an end running on another CPU or LLC
// pulls the lines the other end wrote -- and per-task kernel lines (skb slab, per-CPU softnet data,
// route, kernel stack) as a private working set.
//
// A write moves in segments of up to the loopback MSS (65484 bytes: lo's 64 KiB MTU, where GSO sends a
// write in one skb), and each segment queued wakes a waiting reader once (channel.h).
// Left out: ACKs as separate segments (in request/response traffic they ride on the reply), Nagle,
// congestion control and timers; the stack's work runs as compute, so it is accounted as user time.
#pragma once

#include "workloads/kernel/memory_profile.h"
#include "workloads/kernel/program.h"

#include <cstdint>
#include <memory>
#include <string>

namespace warmsched::workloads {

class channel;
class sim_kernel;
class workload_params;

enum class net_protocol { tcp, udp };

// The stack's costs, settable per workload entry in an experiment file (docs/workloads.md gives the
// sources). Instruction counts are at the platform's base CPI.
struct net_stack_params {
    std::uint64_t tcp_send_instructions = 12600; // send + the loopback receive softirq, per send call
    std::uint64_t tcp_recv_instructions = 4950;  // per recv call that returns data
    std::uint64_t udp_send_instructions = 7200;
    std::uint64_t udp_recv_instructions = 2800;
    std::uint64_t connection_bytes = 4096;     // hot lines of both ends' socket structs
    std::uint64_t stack_private_bytes = 16384; // per-task kernel lines of the path
    double stack_accesses_per_kilo_instruction = 10;
    double stack_shared_access = 0.35; // share of the path's accesses that go to the connection's lines
    double stack_write_fraction = 0.3;

    // Reads the keys above from `params` (every key optional); throws usage_error naming `tool`.
    static net_stack_params read(workload_params& params, const std::string& tool);
};

// What one end pays per call: instructions and the lines they touch.
struct stack_costs {
    std::uint64_t send_instructions = 0, recv_instructions = 0;
    const memory_profile* profile = nullptr;
};

// A connection between a client and a server end over loopback: its two channels and its stack costs.
// Owned through shared_ptr by the programs of both ends (the profile's address must stay put).
class loopback_connection {
public:
    loopback_connection(sim_kernel& k, const net_stack_params& p, net_protocol proto);
    channel& to_server() { return *to_server_; }
    channel& to_client() { return *to_client_; }
    const stack_costs& costs() const { return costs_; }

private:
    channel* to_server_;
    channel* to_client_;
    memory_profile profile_;
    stack_costs costs_;
};

// One end of a connection as a program drives it, one kernel operation at a time. send(n) is the
// stack's send path and one write of n bytes (n = 0: the FIN of close()); receive(n) reads until n
// bytes are in -- a stream socket may hand them over in pieces -- then runs the receive path, or stops
// early when a read returns 0 (the peer closed). Reads go to the task's user buffer, at most
// `max_read` bytes at a time.
class socket_end {
public:
    static constexpr std::uint64_t max_read = 8192;
    socket_end() = default;
    socket_end(channel& out, channel& in, const stack_costs& c) : out_(&out), in_(&in), c_(c) {}

    void send(std::uint64_t bytes);
    void receive(std::uint64_t bytes);
    // The next operation of the transfer under way; `last_result` is what the previous operation the
    // program ran returned. False when the transfer is complete (or none is under way).
    bool step(std::uint64_t last_result, op& o);
    bool busy() const { return state_ != state::idle; }
    bool peer_closed() const { return closed_; }
    std::uint64_t received() const { return got_; } // bytes of the last receive

private:
    enum class state { idle, send_stack, send_write, recv_read, recv_wait, recv_stack };
    channel* out_ = nullptr;
    channel* in_ = nullptr;
    stack_costs c_;
    state state_ = state::idle;
    std::uint64_t want_ = 0, got_ = 0;
    bool closed_ = false;
};

} // namespace warmsched::workloads
