// The loopback network path; see loopback_stack.h.
#include "workloads/net/loopback_stack.h"

#include "workloads/cli/workload_params.h"
#include "workloads/kernel/sim_kernel.h"

#include <algorithm>

namespace warmsched::workloads {

net_stack_params net_stack_params::read(workload_params& params, const std::string& tool) {
    net_stack_params p;
    auto count = [&](const char* key, std::uint64_t def) {
        return static_cast<std::uint64_t>(
            params.integer(tool, key, static_cast<long long>(def), 0, 100'000'000));
    };
    auto bytes = [&](const char* key, std::uint64_t def) {
        return static_cast<std::uint64_t>(
            params.integer(tool, key, static_cast<long long>(def), 64, 1ll << 30));
    };
    p.tcp_send_instructions = count("tcp_send_instructions", p.tcp_send_instructions);
    p.tcp_recv_instructions = count("tcp_recv_instructions", p.tcp_recv_instructions);
    p.udp_send_instructions = count("udp_send_instructions", p.udp_send_instructions);
    p.udp_recv_instructions = count("udp_recv_instructions", p.udp_recv_instructions);
    p.connection_bytes = bytes("connection_bytes", p.connection_bytes);
    p.stack_private_bytes = bytes("stack_private_bytes", p.stack_private_bytes);
    p.stack_accesses_per_kilo_instruction = params.number(tool, "stack_accesses_per_kilo_instruction",
                                                          p.stack_accesses_per_kilo_instruction, 0, 1000);
    p.stack_shared_access = params.number(tool, "stack_shared_access", p.stack_shared_access, 0, 1);
    p.stack_write_fraction = params.number(tool, "stack_write_fraction", p.stack_write_fraction, 0, 1);
    return p;
}

loopback_connection::loopback_connection(sim_kernel& k, const net_stack_params& p, net_protocol proto)
    : to_server_(&k.make_channel(channel_kind::inet_socket)),
      to_client_(&k.make_channel(channel_kind::inet_socket)) {
    profile_.working_set = p.stack_private_bytes;
    profile_.pattern = access_pattern::uniform;
    profile_.accesses_per_kilo_instruction = p.stack_accesses_per_kilo_instruction;
    profile_.write_fraction = p.stack_write_fraction;
    profile_.shared_set = p.connection_bytes;
    profile_.shared_access = p.stack_shared_access;
    profile_.shared_region = k.alloc_shared(p.connection_bytes);
    const bool tcp = proto == net_protocol::tcp;
    costs_.send_instructions = tcp ? p.tcp_send_instructions : p.udp_send_instructions;
    costs_.recv_instructions = tcp ? p.tcp_recv_instructions : p.udp_recv_instructions;
    costs_.profile = &profile_;
}

void socket_end::send(std::uint64_t bytes) {
    want_ = bytes;
    state_ = c_.send_instructions ? state::send_stack : state::send_write;
}

void socket_end::receive(std::uint64_t bytes) {
    want_ = bytes;
    got_ = 0;
    state_ = state::recv_read;
}

bool socket_end::step(std::uint64_t last_result, op& o) {
    switch (state_) {
    case state::idle:
        return false;
    case state::send_stack:
        state_ = state::send_write;
        o = op::compute(c_.send_instructions, c_.profile);
        return true;
    case state::send_write:
        state_ = state::idle;
        o = op::write(*out_, want_);
        return true;
    case state::recv_wait:
        if (last_result == 0) { // end of file: the peer closed
            closed_ = true;
            state_ = state::idle;
            return false;
        }
        got_ += last_result;
        if (got_ >= want_) {
            state_ = c_.recv_instructions ? state::recv_stack : state::idle;
            return step(0, o);
        }
        [[fallthrough]];
    case state::recv_read:
        state_ = state::recv_wait;
        o = op::read(*in_, std::min(max_read, want_ - got_));
        return true;
    case state::recv_stack:
        state_ = state::idle;
        o = op::compute(c_.recv_instructions, c_.profile);
        return true;
    }
    return false;
}

} // namespace warmsched::workloads
