// netperf request/response tests over loopback: `netperf -t TCP_RR|UDP_RR [-l SECONDS] [-H host]
// [-T lcpu,rcpu] [-P 0|1] [-- -r REQ,RESP]`. The netperf process forks its netserver peer (in reality
// the netserver daemon forks it on the test's connection), waits for it on the control connection,
// then runs transactions until -l seconds have passed (or -l -N: N transactions): write REQ bytes,
// the server reads them, runs its loop's user work, writes RESP bytes, the client reads them -- each
// send and receive through the loopback stack model (workloads/net/loopback_stack.h). Then it closes
// the connection and prints netperf's RR result block ("MIGRATED TCP REQUEST/RESPONSE TEST ...").
//
// Left out: the control connection's traffic beyond the start-up handshake, TCP_STREAM/CRR and the
// other tests, socket buffer options (-s/-S), CPU utilisation (-c/-C), confidence intervals, demo mode.
// -l takes fractional seconds (real netperf takes whole seconds): a warmsched extension for short runs.
#pragma once

#include "workloads/net/loopback_stack.h"
#include "workloads/workload.h"

#include <memory>

namespace warmsched::workloads {

class workload_params;

struct netperf_options {
    net_protocol protocol = net_protocol::tcp; // -t TCP_RR | UDP_RR
    double seconds = 10;                       // -l (positive)
    std::uint64_t transactions = 0;            // -l -N: run N transactions instead
    std::uint64_t request = 1, response = 1;   // -- -r REQ,RESP
    std::string host = "localhost";            // -H
    int local_cpu = -1, remote_cpu = -1;       // -T lcpu,rcpu: bind netperf / netserver
    bool banner = true;                        // -P 0 hides the test banner and column titles
};

// Parameters beyond the command line (experiment file keys; docs/workloads.md).
struct netperf_params {
    std::uint64_t client_instructions = 1500; // netperf's loop per transaction (user mode)
    std::uint64_t server_instructions = 1500; // netserver's loop per transaction, plus any work
    std::uint64_t client_working_set = 16384; // bytes: its send/recv buffers and loop state
    std::uint64_t server_working_set = 16384;
    double user_accesses_per_kilo_instruction = 20;
    net_stack_params stack;
};

class netperf final : public workload {
public:
    netperf(const netperf_options& o, const netperf_params& p, std::string command);
    // `netperf ...` after the program name; throws usage_error.
    static std::unique_ptr<netperf> from_command_line(const std::vector<std::string>& args,
                                                      const std::string& command, unsigned ncpus,
                                                      workload_params& params);

    std::string command() const override { return command_; }
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override { return result_->done; }
    void report(std::ostream& out) const override;
    const netperf_options& options() const { return o_; }
    const netperf_params& params() const { return p_; }

    struct result {
        bool done = false;
        std::uint64_t start_ns = 0, stop_ns = 0;
        std::uint64_t transactions = 0;   // completed, counted by netperf
        std::uint64_t served = 0;         // responses written, counted by netserver
        std::uint64_t request_bytes = 0;  // received in full by netserver
        std::uint64_t response_bytes = 0; // received in full by netperf
        int client_pid = 0, server_pid = 0;
    };
    const result& outcome() const { return *result_; }
    double elapsed_seconds() const;
    double transactions_per_second() const;

private:
    netperf_options o_;
    netperf_params p_;
    std::string command_;
    std::shared_ptr<result> result_ = std::make_shared<result>();
};

} // namespace warmsched::workloads
