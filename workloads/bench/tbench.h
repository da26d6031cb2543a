// tbench, dbench's network benchmark (dbench 4.0): `tbench [-t SECONDS] [--clients-per-process N]
// NPROCS [server]`. The tbench process forks NPROCS client processes; each connects to its own server
// (a tbench_srv child, here forked by the client, in reality by the tbench_srv daemon) over a loopback
// TCP socket, says it is ready, and waits at the barrier. The main process polls the barrier every
// 100 ms ("N of N processes prepared for launch"), releases the clients, and prints a progress line
// every second while they replay the NBENCH load: for each line, the client parses it (user work),
// sends the SMB-like request the line stands for and reads the reply (dbench's sockio.c sizes), and
// tbench_srv echoes a reply of the size the request asks for. The first fifth of the time limit is
// warmup (its bytes and latencies are discarded); after the time limit the clients stop, close their
// connections and exit, and tbench prints the per-operation latency table and
//     Throughput 1234.56 MB/sec  N clients  N procs  max_latency=1.234 ms
// where MB/sec is the ReadX and WriteX payload bytes of the execute phase over its length (10^6 bytes).
//
// The load is a synthetic replay of dbench's client.txt: its operation mix (the counts a published
// dbench run reports) in a fixed, shuffled order, with ReadX/WriteX sizes from a size mix whose mean
// is the loadfile's (docs/workloads.md). The loadfile's timestamps, Deltree and Mkdir (a few per
// million lines) are left out. -t and --warmup (dbench's options) take fractional seconds (real tbench:
// whole seconds), a warmsched extension for short runs; the throughput is the execute phase's bytes over its exact length, where
// tbench takes the value its last progress line printed.
#pragma once

#include "workloads/net/loopback_stack.h"
#include "workloads/workload.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

class workload_params;

struct tbench_options {
    unsigned nprocs = 0;              // NPROCS
    unsigned clients_per_process = 1; // --clients-per-process
    double timelimit = 600;           // -t seconds (dbench's default)
    double warmup = -1;               // --warmup seconds; -1: dbench's default, whole seconds of timelimit / 5
    std::string server = "localhost"; // second operand
};

// The SMB operations of the NBENCH load that send packets, in the order tbench prints them.
enum class nb_op {
    ntcreatex,
    close,
    rename,
    unlink,
    qpathinfo,
    qfileinfo,
    qfsinfo,
    sfileinfo,
    find,
    writex,
    readx,
    lockx,
    unlockx,
    flush
};
constexpr std::size_t nb_op_count = 14;
const char* nb_op_name(nb_op o);

// Parameters beyond the command line (experiment file keys; docs/workloads.md).
struct tbench_params {
    std::uint64_t client_instructions = 4000; // parsing one loadfile line and issuing it (user mode)
    std::uint64_t server_instructions = 400;  // tbench_srv's loop per request
    std::uint64_t client_working_set = 32768; // bytes: line buffers, child struct, stdio buffer
    std::uint64_t server_working_set = 8192;
    double user_accesses_per_kilo_instruction = 20;
    unsigned fname_length = 40; // characters of a loadfile path ("./clients/client1/~dmtmp/...")
    unsigned find_entries = 5;  // directory entries a Find returns (90 bytes each)
    // ReadX/WriteX sizes: four classes with shares in percent.
    std::array<std::uint64_t, 4> io_size = {512, 4096, 16384, 65536};
    std::array<double, 4> io_share = {30, 34, 20, 16};
    net_stack_params stack;
};

// Request and reply bytes of one operation (dbench sockio.c); `size` is a ReadX/WriteX payload.
std::pair<std::uint64_t, std::uint64_t> nb_packet_sizes(nb_op o, std::uint64_t size, const tbench_params& p);

class tbench final : public workload {
public:
    tbench(const tbench_options& o, const tbench_params& p, std::string command);
    // `tbench ...` after the program name; throws usage_error.
    static std::unique_ptr<tbench> from_command_line(const std::vector<std::string>& args,
                                                     const std::string& command, workload_params& params);

    std::string command() const override { return command_; }
    std::uint64_t tasks_needed() const override { // tbench, its client processes, a server per client
        return 1 + o_.nprocs + 2ull * o_.nprocs * o_.clients_per_process;
    }
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override { return result_->done; }
    std::uint64_t expected_end_ns() const override; // the warmup and -t
    void report(std::ostream& out) const override;
    const tbench_options& options() const { return o_; }
    const tbench_params& params() const { return p_; }

    struct op_stats {
        std::uint64_t count = 0;
        double total_s = 0, max_s = 0;
    };
    struct client_state {
        std::uint64_t lines = 0;      // loadfile lines read
        std::uint64_t bytes = 0;      // payload of completed operations since the release
        std::uint64_t exec_bytes = 0; // payload of the execute phase's operations
        std::array<op_stats, nb_op_count> ops{};
        std::uint64_t op_start_ns = 0; // the operation in flight (0: none)
        double tick_latency_s = 0;     // longest operation since the last progress line
        bool finished = false;
    };
    enum class phase { setup, warmup, execute, cleanup };
    struct result {
        bool done = false;
        phase now = phase::setup;
        unsigned prepared = 0; // clients at the barrier
        std::uint64_t release_ns = 0, exec_start_ns = 0, exec_end_ns = 0;
        std::vector<client_state> clients;
        double worst_latency = 0; // seconds, as the progress lines saw it
        // Counted by the tbench_srv processes: every byte they read and wrote, and the ReadX/WriteX
        // payload of the requests the clients issued in the execute phase.
        std::uint64_t server_bytes = 0, server_exec_payload = 0;
        std::string progress; // the lines printed while running
    };
    const result& outcome() const { return *result_; }

private:
    tbench_options o_;
    tbench_params p_;
    std::string command_;
    std::shared_ptr<result> result_ = std::make_shared<result>();
};

} // namespace warmsched::workloads
