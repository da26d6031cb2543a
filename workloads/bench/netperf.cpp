// netperf TCP_RR / UDP_RR over loopback; see netperf.h.
#include "workloads/bench/netperf.h"

#include "workloads/cli/option_parser.h"
#include "workloads/cli/workload_params.h"
#include "workloads/kernel/sim_kernel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace warmsched::workloads {

namespace {

using result = netperf::result;

const char* const usage_text =
    "Usage: netperf -t TCP_RR|UDP_RR [-l testlen] [-H localhost] [-T lcpu,rcpu] [-P 0|1] [-- -r req,resp]\n"
    "    -t testname       TCP_RR or UDP_RR (the request/response tests warmsched models)\n"
    "    -l testlen        seconds to run (fractions allowed), or -N for N transactions (default 10)\n"
    "    -H host           the peer: localhost, 127.0.0.1 or ::1 (loopback only)\n"
    "    -T lcpu,rcpu      bind netperf to lcpu and netserver to rcpu (-T n binds both to n)\n"
    "    -P 0|1            hide or show the test banner and column titles\n"
    "  test options (after --):\n"
    "    -r req[,resp]     request and response sizes in bytes (default 1,1; K/M = 2^10/2^20, k/m = "
    "10^3/10^6)";

// netperf's "sizespec": "a,b", "a" (both), ",b" or "a," (one side).
void break_args(const std::string& s, std::string& a, std::string& b) {
    const std::size_t comma = s.find(',');
    if (comma == std::string::npos) {
        a = b = s;
    } else {
        a = s.substr(0, comma);
        b = s.substr(comma + 1);
    }
}

// netperf's convert(): a count with an optional K/M/G (powers of 2) or k/m/g (powers of 10) suffix.
bool convert(const std::string& text, std::uint64_t max, std::uint64_t& out) {
    if (text.empty()) return false;
    std::string digits = text;
    std::uint64_t mult = 1;
    switch (text.back()) {
    case 'K':
        mult = 1ull << 10;
        break;
    case 'M':
        mult = 1ull << 20;
        break;
    case 'G':
        mult = 1ull << 30;
        break;
    case 'k':
        mult = 1000;
        break;
    case 'm':
        mult = 1000000;
        break;
    case 'g':
        mult = 1000000000;
        break;
    default:
        break;
    }
    if (mult != 1) digits.pop_back();
    long long v = 0;
    if (!parse_int(digits, 1, static_cast<long long>(max), v)) return false;
    if (static_cast<std::uint64_t>(v) > max / mult) return false;
    out = static_cast<std::uint64_t>(v) * mult;
    return true;
}

bool is_loopback(const std::string& host, bool& inet6) {
    inet6 = host == "::1" || host == "ip6-localhost";
    return inet6 || host == "localhost" || host.rfind("127.", 0) == 0;
}

std::vector<bool> only_cpu(unsigned cpu, unsigned n) {
    std::vector<bool> m(n, false);
    m[cpu] = true;
    return m;
}

// The netserver child: signals ready on the control connection, then answers requests until the
// client closes, and closes its end in turn.
class netserver final : public copyable_program<netserver> {
public:
    netserver(std::shared_ptr<loopback_connection> c, channel& control, const netperf_options& o,
              const netperf_params& p, std::shared_ptr<memory_profile> user, std::shared_ptr<result> r)
        : c_(std::move(c)), control_(&control), o_(o), p_(p), user_(std::move(user)), r_(std::move(r)),
          io_(c_->to_client(), c_->to_server(), c_->costs()) {}
    op next(program_context& ctx) override {
        op o;
        for (;;) {
            if (io_.step(ctx.result, o)) return o;
            switch (phase_) {
            case phase::ready:
                r_->server_pid = ctx.pid;
                phase_ = phase::request;
                return op::write(*control_, 1);
            case phase::request:
                io_.receive(o_.request);
                phase_ = phase::work;
                continue;
            case phase::work:
                if (io_.peer_closed()) { // netperf closed the data connection: close ours
                    io_.send(0);
                    phase_ = phase::closed;
                    continue;
                }
                r_->request_bytes += o_.request;
                phase_ = phase::respond;
                if (p_.server_instructions) return op::compute(p_.server_instructions, user_.get());
                continue;
            case phase::respond:
                io_.send(o_.response);
                phase_ = phase::served;
                continue;
            case phase::served:
                ++r_->served;
                phase_ = phase::request;
                continue;
            case phase::closed:
                return op::exit();
            }
        }
    }

private:
    enum class phase { ready, request, work, respond, served, closed };
    std::shared_ptr<loopback_connection> c_;
    channel* control_;
    netperf_options o_;
    netperf_params p_;
    std::shared_ptr<memory_profile> user_;
    std::shared_ptr<result> r_;
    socket_end io_;
    phase phase_ = phase::ready;
};

// The netperf process: forks netserver, waits for it, runs the transactions, closes.
class netperf_client final : public copyable_program<netperf_client> {
public:
    netperf_client(std::shared_ptr<loopback_connection> c, channel& control,
                   std::shared_ptr<spawn_spec> server, const netperf_options& o, const netperf_params& p,
                   std::shared_ptr<memory_profile> user, std::shared_ptr<result> r)
        : c_(std::move(c)), control_(&control), server_(std::move(server)), o_(o), p_(p),
          user_(std::move(user)), r_(std::move(r)), io_(c_->to_server(), c_->to_client(), c_->costs()) {}
    op next(program_context& ctx) override {
        op o;
        for (;;) {
            if (io_.step(ctx.result, o)) return o;
            switch (phase_) {
            case phase::fork_server:
                r_->client_pid = ctx.pid;
                phase_ = phase::await_server;
                return op::fork(server_);
            case phase::await_server:
                phase_ = phase::started;
                return op::read(*control_, 1);
            case phase::started:
                r_->start_ns = ctx.now;
                phase_ = phase::request;
                continue;
            case phase::request:
                if (over(ctx.now)) {
                    r_->stop_ns = ctx.now;
                    io_.send(0); // close(): the FIN
                    phase_ = phase::closing;
                    continue;
                }
                io_.send(o_.request);
                phase_ = phase::response;
                continue;
            case phase::response:
                io_.receive(o_.response);
                phase_ = phase::counted;
                continue;
            case phase::counted:
                ++r_->transactions;
                r_->response_bytes += io_.received();
                phase_ = phase::request;
                if (p_.client_instructions) return op::compute(p_.client_instructions, user_.get());
                continue;
            case phase::closing:
                io_.receive(1); // until netserver's FIN
                phase_ = phase::closed;
                continue;
            case phase::closed:
                r_->done = true;
                phase_ = phase::exited;
                return op::exit();
            case phase::exited:
                return op::exit();
            }
        }
    }

private:
    bool over(scheduler::nsec now) const {
        if (o_.transactions) return r_->transactions >= o_.transactions;
        return now >= r_->start_ns + static_cast<std::uint64_t>(std::llround(o_.seconds * 1e9));
    }
    enum class phase {
        fork_server,
        await_server,
        started,
        request,
        response,
        counted,
        closing,
        closed,
        exited
    };
    std::shared_ptr<loopback_connection> c_;
    channel* control_;
    std::shared_ptr<spawn_spec> server_;
    netperf_options o_;
    netperf_params p_;
    std::shared_ptr<memory_profile> user_;
    std::shared_ptr<result> r_;
    socket_end io_;
    phase phase_ = phase::fork_server;
};

} // namespace

netperf::netperf(const netperf_options& o, const netperf_params& p, std::string command)
    : o_(o), p_(p), command_(std::move(command)) {}

std::unique_ptr<netperf> netperf::from_command_line(const std::vector<std::string>& args,
                                                    const std::string& command, unsigned ncpus,
                                                    workload_params& params) {
    const std::string usage = usage_text;
    const auto dash = std::find(args.begin(), args.end(), "--");
    const std::vector<std::string> global(args.begin(), dash);
    const std::vector<std::string> test(dash == args.end() ? dash : dash + 1, args.end());
    netperf_options o;
    bool have_test = false;
    const std::vector<option_spec> global_specs = {
        {'t', "", true,
         [&](const std::string& v) -> std::string {
             std::string t = v;
             for (char& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
             have_test = true;
             if (t == "TCP_RR") {
                 o.protocol = net_protocol::tcp;
             } else if (t == "UDP_RR") {
                 o.protocol = net_protocol::udp;
             } else if (t == "TCP_STREAM" || t == "TCP_MAERTS" || t == "TCP_SENDFILE" || t == "TCP_CRR" ||
                        t == "TCP_CC" || t == "UDP_STREAM" || t == "OMNI" || t == "SCTP_RR" ||
                        t == "SCTP_STREAM" || t == "STREAM_RR" || t == "DG_RR") {
                 return "netperf: -t " + v + ": this test is not modelled (warmsched runs TCP_RR and UDP_RR)";
             } else {
                 return "netperf: -t " + v + ": unknown test type (warmsched runs TCP_RR and UDP_RR)";
             }
             return {};
         }},
        {'l', "", true,
         [&](const std::string& v) -> std::string {
             char* end = nullptr;
             const double s = std::strtod(v.c_str(), &end);
             if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(s) || s == 0)
                 return "netperf: -l " + v + ": expected seconds (> 0) or -N for N transactions";
             if (s < 0) {
                 long long n = 0;
                 if (!parse_int(v.substr(1), 1, 1'000'000'000'000, n))
                     return "netperf: -l " + v + ": a transaction count (-N) must be a whole number";
                 o.transactions = static_cast<std::uint64_t>(n);
             } else {
                 if (s > 1e6) return "netperf: -l " + v + ": at most 1000000 seconds";
                 o.seconds = s;
                 o.transactions = 0;
             }
             return {};
         }},
        {'H', "", true,
         [&](const std::string& v) -> std::string {
             std::string h, ignored;
             break_args(v, h, ignored); // -H name,family
             bool inet6 = false;
             if (!is_loopback(h, inet6))
                 return "netperf: -H " + v +
                        ": only the loopback peer is modelled (localhost, 127.0.0.1 or ::1)";
             o.host = h;
             return {};
         }},
        {'T', "", true,
         [&](const std::string& v) -> std::string {
             std::string a, b;
             break_args(v, a, b);
             long long l = -1, r = -1;
             const long long top = static_cast<long long>(ncpus) - 1;
             if ((!a.empty() && !parse_int(a, 0, top, l)) || (!b.empty() && !parse_int(b, 0, top, r)) ||
                 (a.empty() && b.empty()))
                 return "netperf: -T " + v + ": expected lcpu,rcpu with CPUs 0-" + std::to_string(top);
             o.local_cpu = static_cast<int>(l);
             o.remote_cpu = static_cast<int>(r);
             return {};
         }},
        {'P', "", true,
         [&](const std::string& v) -> std::string {
             if (v != "0" && v != "1") return "netperf: -P " + v + ": expected 0 or 1";
             o.banner = v == "1";
             return {};
         }},
        {'h', "", false, [&](const std::string&) -> std::string { throw usage_error(usage); }},
    };
    const auto stray = parse_options("netperf", global, global_specs, usage);
    if (!stray.empty())
        throw usage_error("netperf: unexpected argument '" + stray.front() +
                          "' (test options go after --)\n" + usage);
    if (!have_test)
        throw usage_error("netperf: give -t TCP_RR or -t UDP_RR (netperf's default test, TCP_STREAM, is not "
                          "modelled)\n" +
                          usage);
    const std::uint64_t max_size = o.protocol == net_protocol::udp ? 65507 : (1ull << 20);
    const auto not_modelled = [](char c) {
        return option_spec{c, "", true, [c](const std::string&) {
                               return std::string("netperf: test option -") + c +
                                      " is not modelled (warmsched takes -r req,resp after --)";
                           }};
    };
    const std::vector<option_spec> test_specs = {
        {'r', "", true,
         [&](const std::string& v) -> std::string {
             std::string a, b;
             break_args(v, a, b);
             std::uint64_t req = o.request, resp = o.response;
             if ((a.empty() && b.empty()) || (!a.empty() && !convert(a, max_size, req)) ||
                 (!b.empty() && !convert(b, max_size, resp)))
                 return "netperf: -r " + v + ": expected req,resp sizes from 1 to " +
                        std::to_string(max_size) + " bytes" +
                        (o.protocol == net_protocol::udp ? " (a UDP datagram's limit)" : "");
             o.request = req;
             o.response = resp;
             return {};
         }},
        not_modelled('s'),
        not_modelled('S'),
        not_modelled('m'),
        not_modelled('M'),
        not_modelled('b'),
        not_modelled('P'),
        not_modelled('O'),
        not_modelled('o'),
        {'D', "", false,
         [](const std::string&) {
             return std::string(
                 "netperf: test option -D is not modelled (warmsched takes -r req,resp after --)");
         }},
    };
    const auto test_stray = parse_options("netperf", test, test_specs, usage);
    if (!test_stray.empty())
        throw usage_error("netperf: unexpected test argument '" + test_stray.front() + "'\n" + usage);

    netperf_params p;
    const std::string tool = "netperf";
    auto count = [&](const char* key, std::uint64_t def) {
        return static_cast<std::uint64_t>(
            params.integer(tool, key, static_cast<long long>(def), 0, 100'000'000));
    };
    p.client_instructions = count("client_instructions", p.client_instructions);
    p.server_instructions = count("server_instructions", p.server_instructions);
    p.client_working_set = static_cast<std::uint64_t>(params.integer(
        tool, "client_working_set", static_cast<long long>(p.client_working_set), 64, 1ll << 34));
    p.server_working_set = static_cast<std::uint64_t>(params.integer(
        tool, "server_working_set", static_cast<long long>(p.server_working_set), 64, 1ll << 34));
    p.user_accesses_per_kilo_instruction = params.number(tool, "user_accesses_per_kilo_instruction",
                                                         p.user_accesses_per_kilo_instruction, 0, 1000);
    p.stack = net_stack_params::read(params, tool);
    return std::make_unique<netperf>(o, p, command);
}

void netperf::start(sim_kernel& k, const std::vector<bool>& allowed) {
    const unsigned n = k.machine().num_cpus();
    auto connection = std::make_shared<loopback_connection>(k, p_.stack, o_.protocol);
    channel& control = k.make_channel(channel_kind::socket);
    auto profile = [&](std::uint64_t ws) {
        auto m = std::make_shared<memory_profile>();
        m->working_set = ws;
        m->accesses_per_kilo_instruction = p_.user_accesses_per_kilo_instruction;
        m->write_fraction = 0.3;
        return m;
    };
    auto server = std::make_shared<spawn_spec>();
    server->comm = "netserver";
    // netserver is not netperf's child in reality: it does not inherit netperf's binding.
    server->allowed = o_.remote_cpu >= 0 ? only_cpu(static_cast<unsigned>(o_.remote_cpu), n)
                      : allowed.empty()  ? std::vector<bool>(n, true)
                                         : allowed;
    server->body =
        std::make_shared<netserver>(connection, control, o_, p_, profile(p_.server_working_set), result_);
    spawn_spec client;
    client.comm = "netperf";
    client.allowed = o_.local_cpu >= 0 ? only_cpu(static_cast<unsigned>(o_.local_cpu), n) : allowed;
    client.body = std::make_shared<netperf_client>(connection, control, server, o_, p_,
                                                   profile(p_.client_working_set), result_);
    unsigned cpu = 0;
    const std::vector<bool>& where = client.allowed;
    while (!where.empty() && cpu + 1 < where.size() && !where[cpu]) ++cpu;
    k.spawn(client, cpu);
}

double netperf::elapsed_seconds() const {
    return static_cast<double>(result_->stop_ns - result_->start_ns) / 1e9;
}

double netperf::transactions_per_second() const {
    const double s = elapsed_seconds();
    return s > 0 ? static_cast<double>(result_->transactions) / s : 0.0;
}

void netperf::report(std::ostream& out) const {
    const bool tcp = o_.protocol == net_protocol::tcp;
    bool inet6 = false;
    is_loopback(o_.host, inet6);
    char line[512];
    if (o_.banner) {
        if (inet6)
            std::snprintf(
                line, sizeof line,
                "MIGRATED %s REQUEST/RESPONSE TEST from ::0 (::) port 0 AF_INET6 to %s (::1) port 0 "
                "AF_INET6 : first burst 0%s\n",
                tcp ? "TCP" : "UDP", o_.host.c_str(),
                o_.local_cpu >= 0 || o_.remote_cpu >= 0 ? " : cpu bind" : "");
        else
            std::snprintf(line, sizeof line,
                          "MIGRATED %s REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to %s () "
                          "port 0 AF_INET : first burst 0%s\n",
                          tcp ? "TCP" : "UDP", o_.host.c_str(),
                          o_.local_cpu >= 0 || o_.remote_cpu >= 0 ? " : cpu bind" : "");
        out << line
            << "Local /Remote\n"
               "Socket Size   Request  Resp.   Elapsed  Trans.\n"
               "Send   Recv   Size     Size    Time     Rate         \n"
               "bytes  Bytes  bytes    bytes   secs.    per sec   \n\n";
    }
    // Socket buffer sizes netperf reports: tcp_wmem[1] / tcp_rmem[1], or wmem_default / rmem_default.
    const int send_size = tcp ? 16384 : 212992, recv_size = tcp ? 131072 : 212992;
    if (!result_->done) {
        out << "netperf: did not finish within the experiment's duration (" << result_->transactions
            << " transactions so far)\n";
        return;
    }
    std::snprintf(line, sizeof line, "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   \n", send_size, recv_size,
                  static_cast<int>(o_.request), static_cast<int>(o_.response), elapsed_seconds(),
                  transactions_per_second());
    out << line;
    std::snprintf(line, sizeof line, "%-6d %-6d\n", send_size, recv_size);
    out << line;
}

} // namespace warmsched::workloads
