// tbench (dbench's network benchmark); see tbench.h.
#include "workloads/bench/tbench.h"

#include "workloads/cli/option_parser.h"
#include "workloads/cli/workload_params.h"
#include "workloads/kernel/sim_kernel.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>

namespace warmsched::workloads {

namespace {

using result = tbench::result;
using phase = tbench::phase;

constexpr scheduler::nsec second = 1'000'000'000;
constexpr scheduler::nsec barrier_poll = 100'000'000;  // dbench polls its start barrier every 100 ms
constexpr std::size_t load_lines = 20000;              // lines of the synthetic loadfile
constexpr std::uint64_t load_seed = 0x4442454e4348ull; // fixed: the real loadfile is a fixed file too

// Operation counts of a published dbench run (8 clients, posted with a btrfs patch series by F. Manana
// on linux-btrfs): the proportions of client.txt's lines.
constexpr std::array<double, nb_op_count> published_mix = {4391359, 3225882, 185953, 886669,  3980281,
                                                           697579,  729780,  357764, 1538861, 2189666,
                                                           6883443, 14298,   14298,  307777};

struct load_line {
    nb_op op;
    std::uint64_t size; // ReadX/WriteX payload
};

// The synthetic loadfile: the published mix in `load_lines` lines, shuffled, with ReadX/WriteX sizes
// drawn from the size mix. Only mt19937_64's output is used, so it is the same on every platform.
std::vector<load_line> make_load(const tbench_params& p) {
    double total = 0;
    for (double c : published_mix) total += c;
    std::vector<load_line> lines;
    for (std::size_t i = 0; i < nb_op_count; ++i) {
        const auto n = static_cast<std::size_t>(std::llround(published_mix[i] / total * load_lines));
        for (std::size_t j = 0; j < std::max<std::size_t>(n, 1); ++j)
            lines.push_back({static_cast<nb_op>(i), 0});
    }
    std::mt19937_64 rng(load_seed);
    for (std::size_t i = lines.size() - 1; i > 0; --i) std::swap(lines[i], lines[rng() % (i + 1)]);
    double shares = 0;
    for (double s : p.io_share) shares += s;
    for (auto& l : lines) {
        if (l.op != nb_op::readx && l.op != nb_op::writex) continue;
        double u = static_cast<double>(rng() >> 11) / 9007199254740992.0 * shares;
        std::size_t c = 0;
        while (c + 1 < p.io_share.size() && u >= p.io_share[c]) u -= p.io_share[c++];
        l.size = p.io_size[c];
    }
    return lines;
}

// What a request says (the SMB header the model's bytes stand for): its size, the reply it asks for,
// and, for the byte counts, its payload and whether it was issued in the execute phase.
struct wire_request {
    std::uint64_t request = 0, reply = 0, payload = 0;
    bool counted = false;
};

struct tb_connection {
    std::shared_ptr<loopback_connection> net;
    std::deque<wire_request> wire; // requests sent and not yet answered
};

// tbench_srv's child for one connection: read the 4-byte length, the rest, reply; exit at EOF.
class tbench_server final : public copyable_program<tbench_server> {
public:
    tbench_server(std::shared_ptr<tb_connection> c, std::uint64_t instructions,
                  std::shared_ptr<memory_profile> user, std::shared_ptr<result> r)
        : c_(std::move(c)), instructions_(instructions), user_(std::move(user)), r_(std::move(r)),
          io_(c_->net->to_client(), c_->net->to_server(), c_->net->costs()) {}
    op next(program_context& ctx) override {
        op o;
        for (;;) {
            if (io_.step(ctx.result, o)) return o;
            switch (phase_) {
            case step::header:
                io_.receive(4);
                phase_ = step::body;
                continue;
            case step::body:
                if (io_.peer_closed()) return op::exit();
                r_->server_bytes += 4;
                io_.receive(c_->wire.front().request - 4);
                phase_ = step::work;
                continue;
            case step::work:
                if (io_.peer_closed()) return op::exit();
                r_->server_bytes += c_->wire.front().request - 4;
                phase_ = step::reply;
                if (instructions_) return op::compute(instructions_, user_.get());
                continue;
            case step::reply: {
                const wire_request w = c_->wire.front();
                c_->wire.pop_front();
                r_->server_bytes += w.reply;
                if (w.counted) r_->server_exec_payload += w.payload;
                io_.send(w.reply);
                phase_ = step::header;
                continue;
            }
            }
        }
    }

private:
    enum class step { header, body, work, reply };
    std::shared_ptr<tb_connection> c_;
    std::uint64_t instructions_;
    std::shared_ptr<memory_profile> user_;
    std::shared_ptr<result> r_;
    socket_end io_;
    step phase_ = step::header;
};

// One client process: its clients' connections (each with a server to fork), set-up, the barrier,
// the loadfile replay until the main process says done, and the close of every connection.
class tbench_child final : public copyable_program<tbench_child> {
public:
    struct slot {
        unsigned id = 0; // client number
        std::shared_ptr<tb_connection> conn;
        std::shared_ptr<spawn_spec> server;
        socket_end io;
    };
    tbench_child(std::vector<slot> slots, std::shared_ptr<const std::vector<load_line>> load,
                 futex_word& gate, const tbench_params& p, std::shared_ptr<memory_profile> user,
                 std::shared_ptr<result> r)
        : slots_(std::move(slots)), load_(std::move(load)), gate_(&gate), p_(p), user_(std::move(user)),
          r_(std::move(r)) {}
    op next(program_context& ctx) override {
        op o;
        for (;;) {
            if (cur_ != none && slots_[cur_].io.step(ctx.result, o)) return o;
            switch (phase_) {
            case step::fork_servers:
                if (k_ < slots_.size()) return op::fork(slots_[k_++].server);
                k_ = 0;
                phase_ = step::setup;
                continue;
            case step::setup: // nb_setup: connect and exchange 8 bytes each way
                if (k_ < slots_.size()) {
                    begin(k_++, {8, 8, 0, false}, step::setup);
                    continue;
                }
                ++r_->prepared;
                phase_ = step::line;
                return op::futex_wait(*gate_, 0);
            case step::line: // the next loadfile line, for each client of the process
                if (r_->now == phase::cleanup) {
                    k_ = 0;
                    phase_ = step::close;
                    continue;
                }
                ++r_->clients[slots_[client_].id].lines;
                phase_ = step::issue;
                if (client_ == 0 && p_.client_instructions)
                    return op::compute(p_.client_instructions, user_.get());
                continue;
            case step::issue: {
                const load_line& l = (*load_)[line_];
                const auto [request, reply] = nb_packet_sizes(l.op, l.size, p_);
                const bool io = l.op == nb_op::readx || l.op == nb_op::writex;
                op_start_ = ctx.now;
                r_->clients[slots_[client_].id].op_start_ns = ctx.now;
                begin(client_, {request, reply, io ? l.size : 0, r_->now == phase::execute}, step::finish);
                continue;
            }
            case step::finish: {
                const load_line& l = (*load_)[line_];
                const wire_request& w = last_;
                tbench::client_state& c = r_->clients[slots_[client_].id];
                const double latency = static_cast<double>(ctx.now - op_start_) / 1e9;
                c.op_start_ns = 0;
                c.bytes += w.payload;
                c.tick_latency_s = std::max(c.tick_latency_s, latency);
                if (w.counted) {
                    c.exec_bytes += w.payload;
                    tbench::op_stats& s = c.ops[static_cast<std::size_t>(l.op)];
                    ++s.count;
                    s.total_s += latency;
                    s.max_s = std::max(s.max_s, latency);
                }
                if (++client_ == slots_.size()) {
                    client_ = 0;
                    line_ = (line_ + 1) % load_->size(); // at the end: rewind and go again
                }
                phase_ = step::line;
                continue;
            }
            case step::close: // exit closes the connections: a FIN on each
                if (k_ < slots_.size()) {
                    cur_ = k_++;
                    slots_[cur_].io.send(0);
                    continue;
                }
                for (const slot& s : slots_) r_->clients[s.id].finished = true;
                phase_ = step::exited;
                return op::exit();
            case step::exited:
                return op::exit();
            case step::packets: // do_packets: send, then read the 4-byte length, then the rest
                if (pk_ == 1) {
                    pk_ = 2;
                    slots_[cur_].io.receive(4);
                } else if (pk_ == 2) {
                    pk_ = 3;
                    slots_[cur_].io.receive(last_.reply - 4);
                } else {
                    phase_ = after_;
                }
                continue;
            }
        }
    }

private:
    enum class step { fork_servers, setup, line, issue, finish, close, exited, packets };
    void begin(std::size_t i, const wire_request& w, step after) {
        slots_[i].conn->wire.push_back(w);
        last_ = w;
        cur_ = i;
        slots_[i].io.send(w.request);
        pk_ = 1;
        after_ = after;
        phase_ = step::packets;
    }

    std::vector<slot> slots_;
    std::shared_ptr<const std::vector<load_line>> load_;
    futex_word* gate_;
    tbench_params p_;
    std::shared_ptr<memory_profile> user_;
    std::shared_ptr<result> r_;
    static constexpr std::size_t none = ~std::size_t{0};
    std::size_t cur_ = none; // the slot whose transfer is under way
    step phase_ = step::fork_servers, after_ = step::setup;
    std::size_t k_ = 0, client_ = 0, line_ = 0;
    int pk_ = 0;
    wire_request last_;
    scheduler::nsec op_start_ = 0;
};

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

// A seconds value of -t or --warmup (fractions allowed, a warmsched extension): the whole text a number in
// [0, 1e6]; `out` is set only then.
bool parse_seconds(const std::string& v, double& out) {
    char* end = nullptr;
    const double s = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !(s >= 0) || s > 1e6) return false;
    out = s;
    return true;
}

// dbench's options.warmup: as given, or timelimit / 5 in whole seconds (an int division in dbench).
double warmup_seconds(const tbench_options& o) {
    if (o.warmup >= 0) return o.warmup;
    return static_cast<double>(static_cast<unsigned>(std::floor(o.timelimit)) / 5);
}

// The tbench process: forks the client processes, waits for them at the barrier, releases them, and
// prints a progress line every second (dbench's sig_alarm), ending the warmup and the run.
class tbench_main final : public copyable_program<tbench_main> {
public:
    tbench_main(std::vector<std::shared_ptr<spawn_spec>> children, futex_word& gate, const tbench_options& o,
                std::shared_ptr<result> r)
        : children_(std::move(children)), gate_(&gate), o_(o), r_(std::move(r)) {
        warmup_ns_ = static_cast<scheduler::nsec>(std::llround(warmup_seconds(o) * 1e9));
    }
    op next(program_context& ctx) override {
        switch (phase_) {
        case step::fork:
            if (forked_ < children_.size()) return op::fork(children_[forked_++]);
            poll_start_ = ctx.now;
            phase_ = step::poll;
            [[fallthrough]];
        case step::poll: {
            const double t = static_cast<double>(ctx.now - poll_start_) / 1e9;
            r_->progress +=
                fmt("%u of %u processes prepared for launch %3.0f sec\n", r_->prepared, o_.nprocs, t);
            if (r_->prepared < o_.nprocs) return op::sleep(barrier_poll);
            r_->progress += "releasing clients\n";
            r_->release_ns = base_ = ctx.now;
            if (warmup_ns_ > 0) {
                r_->now = phase::warmup;
            } else {
                r_->now = phase::execute;
                r_->exec_start_ns = ctx.now;
            }
            phase_ = step::sleep;
            return op::futex_wake(*gate_, 1, o_.nprocs);
        }
        case step::sleep:
            phase_ = step::alarm;
            return op::sleep_until(next_wake());
        case step::alarm:
            if (!on_alarm(ctx.now)) {
                phase_ = step::reap;
                return op::wait_children();
            }
            return op::sleep_until(next_wake());
        case step::reap:
            // dbench's last sig_alarm after the children are gone, then the latency table.
            r_->progress +=
                fmt("%4d  cleanup %3.0f sec\n", 0, static_cast<double>(ctx.now - r_->exec_start_ns) / 1e9);
            r_->done = true;
            phase_ = step::exited;
            [[fallthrough]];
        case step::exited:
            return op::exit();
        }
        return op::exit();
    }

private:
    enum class step { fork, poll, sleep, alarm, reap, exited };
    scheduler::nsec exec_end() const {
        return r_->exec_start_ns + static_cast<scheduler::nsec>(std::llround(o_.timelimit * 1e9));
    }
    scheduler::nsec next_wake() const {
        scheduler::nsec t = base_ + (ticks_ + 1) * second;
        if (r_->now == phase::warmup) t = std::min(t, r_->release_ns + warmup_ns_);
        if (r_->now == phase::execute) t = std::min(t, exec_end());
        return t;
    }
    // One wakeup of the alarm loop at `now`; false once the run is over (the clients told to stop).
    bool on_alarm(scheduler::nsec now) {
        const unsigned n = static_cast<unsigned>(r_->clients.size());
        if (r_->now == phase::execute && now >= exec_end()) {
            r_->now = phase::cleanup;
            r_->exec_end_ns = now;
            unsigned finished = 0;
            for (const auto& c : r_->clients) finished += c.finished;
            r_->progress += fmt("%4u  cleanup %3.0f sec\n", n - finished,
                                static_cast<double>(now - r_->exec_start_ns) / 1e9);
            return false;
        }
        ++ticks_;
        if (r_->now == phase::warmup && now >= r_->release_ns + warmup_ns_) { // warmup over: count from here
            r_->now = phase::execute;
            r_->exec_start_ns = base_ = now;
            ticks_ = 0;
            for (auto& c : r_->clients) c.tick_latency_s = 0;
            return true;
        }
        double latency = 0;
        std::uint64_t lines = 0, bytes = 0;
        unsigned active = 0;
        for (auto& c : r_->clients) {
            latency = std::max(latency, c.tick_latency_s);
            // An operation in flight. Its start is the client's clock, which may run ahead of this timer's
            // (the quantum): an operation that started after `now` has no latency yet.
            if (c.op_start_ns && c.op_start_ns < now)
                latency = std::max(latency, static_cast<double>(now - c.op_start_ns) / 1e9);
            c.tick_latency_s = 0;
            lines += c.lines;
            bytes += r_->now == phase::warmup ? c.bytes : c.exec_bytes;
            active += c.bytes > 0;
        }
        const double t = static_cast<double>(now - base_) / 1e9;
        if (r_->now == phase::warmup) {
            r_->progress += fmt("%4u  %8llu  %7.2f MB/sec  warmup %3.0f sec  latency %.03f ms\n", active,
                                static_cast<unsigned long long>(lines / n),
                                1.0e-6 * static_cast<double>(bytes) / t, t, latency * 1000);
        } else {
            r_->worst_latency = std::max(r_->worst_latency, latency);
            r_->progress += fmt("%4u  %8llu  %7.2f MB/sec  execute %3.0f sec  latency %.03f ms\n", n,
                                static_cast<unsigned long long>(lines / n),
                                1.0e-6 * static_cast<double>(bytes) / t, t, latency * 1000);
        }
        return true;
    }

    std::vector<std::shared_ptr<spawn_spec>> children_;
    futex_word* gate_;
    tbench_options o_;
    std::shared_ptr<result> r_;
    scheduler::nsec warmup_ns_ = 0;
    step phase_ = step::fork;
    std::size_t forked_ = 0;
    scheduler::nsec poll_start_ = 0, base_ = 0;
    scheduler::nsec ticks_ = 0;
};

} // namespace

std::uint64_t tbench::expected_end_ns() const {
    return static_cast<std::uint64_t>((warmup_seconds(o_) + o_.timelimit) * 1e9);
}

const char* nb_op_name(nb_op o) {
    static constexpr const char* names[nb_op_count] = {
        "NTCreateX", "Close", "Rename", "Unlink", "Qpathinfo", "Qfileinfo", "Qfsinfo",
        "Sfileinfo", "Find",  "WriteX", "ReadX",  "LockX",     "UnlockX",   "Flush"};
    return names[static_cast<std::size_t>(o)];
}

std::pair<std::uint64_t, std::uint64_t> nb_packet_sizes(nb_op o, std::uint64_t size, const tbench_params& p) {
    const std::uint64_t name = 2ull * p.fname_length; // UTF-16 on the wire
    switch (o) {
    case nb_op::ntcreatex:
        return {70 + 2 + name + 2, 39 + 12 * 4};
    case nb_op::close:
        return {39 + 8, 39};
    case nb_op::rename:
        return {39 + 8 + 2 * name, 39};
    case nb_op::unlink:
        return {39 + 2 + name + 2, 39};
    case nb_op::qpathinfo:
        return {39 + 16 + name, 39 + 32};
    case nb_op::qfileinfo:
        return {39 + 20, 39 + 32};
    case nb_op::qfsinfo:
        return {39 + 20, 39 + 32};
    case nb_op::sfileinfo:
        return {39 + 32, 39 + 8};
    case nb_op::find:
        return {39 + 20 + name, 39 + 90ull * p.find_entries};
    case nb_op::writex:
        return {39 + 20 + size, 39 + 16};
    case nb_op::readx:
        return {39 + 20, 39 + 20 + size};
    case nb_op::lockx:
        return {39 + 12, 39};
    case nb_op::unlockx:
        return {39 + 12, 39};
    case nb_op::flush:
        return {39 + 2, 39};
    }
    return {0, 0};
}

tbench::tbench(const tbench_options& o, const tbench_params& p, std::string command)
    : o_(o), p_(p), command_(std::move(command)) {}

std::unique_ptr<tbench> tbench::from_command_line(const std::vector<std::string>& args,
                                                  const std::string& command, workload_params& params) {
    const std::string usage =
        "Usage: tbench [OPTION...] NPROCS [server]\n"
        "  -t, --timelimit=seconds          run time after the warmup (default 600; fractions allowed)\n"
        "      --warmup=seconds             warmup before it (default: timelimit / 5, whole seconds; fractions allowed)\n"
        "      --clients-per-process=INT    clients each process runs (default 1)";
    tbench_options o;
    const std::vector<option_spec> specs = {
        {'t', "timelimit", true,
         [&](const std::string& v) -> std::string {
             if (!parse_seconds(v, o.timelimit) || o.timelimit == 0)
                 return "tbench: --timelimit|-t " + v + ": expected seconds > 0";
             return {};
         }},
        {0, "warmup", true,
         [&](const std::string& v) -> std::string {
             if (!parse_seconds(v, o.warmup)) return "tbench: --warmup " + v + ": expected seconds >= 0";
             return {};
         }},
        positive_option(0, "clients-per-process", o.clients_per_process,
                        "tbench: --clients-per-process requires an integer > 0"),
        help_option('h', usage),
    };
    const auto operands = parse_options("tbench", args, specs, usage);
    if (operands.empty()) throw usage_error("You need to specify NPROCS\n" + usage);
    long long n = 0;
    if (!parse_int(operands[0], 1, 100000, n))
        throw usage_error("tbench: NPROCS must be an integer from 1 to 100000, got '" + operands[0] + "'\n" +
                          usage);
    o.nprocs = static_cast<unsigned>(n);
    if (operands.size() >= 2) {
        const std::string& h = operands[1];
        if (h != "localhost" && h.rfind("127.", 0) != 0 && h != "::1")
            throw usage_error("tbench: server '" + h +
                              "': only a loopback server is modelled (localhost, 127.0.0.1 or ::1)\n" +
                              usage);
        o.server = h;
    }
    if (operands.size() > 2) throw usage_error("tbench: unexpected argument '" + operands[2] + "'\n" + usage);
    if (static_cast<unsigned long long>(o.nprocs) * o.clients_per_process > 100000)
        throw usage_error("tbench: at most 100000 clients\n" + usage);

    tbench_params p;
    const std::string tool = "tbench";
    auto count = [&](const char* key, std::uint64_t def, long long min, long long max) {
        return static_cast<std::uint64_t>(params.integer(tool, key, static_cast<long long>(def), min, max));
    };
    p.client_instructions = count("client_instructions", p.client_instructions, 0, 100'000'000);
    p.server_instructions = count("server_instructions", p.server_instructions, 0, 100'000'000);
    p.client_working_set = count("client_working_set", p.client_working_set, 64, 1ll << 34);
    p.server_working_set = count("server_working_set", p.server_working_set, 64, 1ll << 34);
    p.user_accesses_per_kilo_instruction = params.number(tool, "user_accesses_per_kilo_instruction",
                                                         p.user_accesses_per_kilo_instruction, 0, 1000);
    p.fname_length = static_cast<unsigned>(count("fname_length", p.fname_length, 1, 1000));
    p.find_entries = static_cast<unsigned>(count("find_entries", p.find_entries, 0, 700));
    for (std::size_t i = 0; i < p.io_size.size(); ++i) {
        const std::string k = std::to_string(i + 1);
        p.io_size[i] = count(("io_size_" + k).c_str(), p.io_size[i], 1, 65536);
        p.io_share[i] = params.number(tool, "io_share_" + k, p.io_share[i], 0, 100);
    }
    double shares = 0;
    for (double s : p.io_share) shares += s;
    if (!(shares > 0)) throw usage_error("tbench: parameters io_share_1..4: at least one share must be > 0");
    p.stack = net_stack_params::read(params, tool);
    return std::make_unique<tbench>(o, p, command);
}

void tbench::start(sim_kernel& k, const std::vector<bool>& allowed) {
    auto load = std::make_shared<const std::vector<load_line>>(make_load(p_));
    futex_word& gate = k.make_futex();
    auto profile = [&](std::uint64_t ws) {
        auto m = std::make_shared<memory_profile>();
        m->working_set = ws;
        m->accesses_per_kilo_instruction = p_.user_accesses_per_kilo_instruction;
        m->write_fraction = 0.3;
        return m;
    };
    auto client_profile = profile(p_.client_working_set);
    auto server_profile = profile(p_.server_working_set);
    result_->clients.assign(static_cast<std::size_t>(o_.nprocs) * o_.clients_per_process, {});
    std::vector<std::shared_ptr<spawn_spec>> children;
    for (unsigned i = 0; i < o_.nprocs; ++i) {
        std::vector<tbench_child::slot> slots;
        for (unsigned j = 0; j < o_.clients_per_process; ++j) {
            tbench_child::slot s;
            s.id = i * o_.clients_per_process + j;
            s.conn = std::make_shared<tb_connection>();
            s.conn->net = std::make_shared<loopback_connection>(k, p_.stack, net_protocol::tcp);
            s.io = socket_end(s.conn->net->to_server(), s.conn->net->to_client(), s.conn->net->costs());
            s.server = std::make_shared<spawn_spec>();
            s.server->comm = "tbench_srv";
            s.server->body =
                std::make_shared<tbench_server>(s.conn, p_.server_instructions, server_profile, result_);
            slots.push_back(std::move(s));
        }
        auto child = std::make_shared<spawn_spec>();
        child->comm = "tbench";
        child->body =
            std::make_shared<tbench_child>(std::move(slots), load, gate, p_, client_profile, result_);
        children.push_back(child);
    }
    spawn_spec s;
    s.comm = "tbench";
    s.allowed = allowed;
    s.body = std::make_shared<tbench_main>(std::move(children), gate, o_, result_);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(s, cpu);
}

void tbench::report(std::ostream& out) const {
    const result& r = *result_;
    const unsigned nclients = o_.nprocs * o_.clients_per_process;
    out << "dbench version 4.00 - Copyright Andrew Tridgell 1999-2004\n\n";
    if (o_.timelimit == std::floor(o_.timelimit))
        out << fmt("Running for %d seconds", static_cast<int>(o_.timelimit));
    else
        out << fmt("Running for %g seconds", o_.timelimit);
    out << fmt(" with load '/usr/share/dbench/client.txt' and minimum warmup %g secs\n", warmup_seconds(o_));
    out << r.progress;
    if (!r.done) {
        out << "tbench: did not finish within the experiment's duration\n";
        return;
    }
    out << "\n Operation      Count    AvgLat    MaxLat\n ----------------------------------------\n";
    std::array<op_stats, nb_op_count> sum{};
    std::uint64_t exec_bytes = 0;
    double worst = r.worst_latency;
    for (const auto& c : r.clients) {
        exec_bytes += c.exec_bytes;
        for (std::size_t i = 0; i < nb_op_count; ++i) {
            sum[i].count += c.ops[i].count;
            sum[i].total_s += c.ops[i].total_s;
            sum[i].max_s = std::max(sum[i].max_s, c.ops[i].max_s);
        }
    }
    for (std::size_t i = 0; i < nb_op_count; ++i) {
        if (sum[i].count == 0) continue;
        worst = std::max(worst, sum[i].max_s);
        out << fmt(" %-12s %7llu %9.03f %9.03f\n", nb_op_name(static_cast<nb_op>(i)),
                   static_cast<unsigned long long>(sum[i].count),
                   1000 * sum[i].total_s / static_cast<double>(sum[i].count), sum[i].max_s * 1000);
    }
    const double exec_s = static_cast<double>(r.exec_end_ns - r.exec_start_ns) / 1e9;
    const double throughput = exec_s > 0 ? 1.0e-6 * static_cast<double>(exec_bytes) / exec_s : 0.0;
    out << "\n"
        << fmt("Throughput %g MB/sec  %u clients  %u procs  max_latency=%.03f ms\n", throughput, nclients,
               o_.nprocs, worst * 1000);
}

} // namespace warmsched::workloads
