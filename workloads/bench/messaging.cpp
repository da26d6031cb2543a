// hackbench / perf bench sched messaging; see messaging.h.
#include "workloads/bench/messaging.h"

#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"

#include <cstdio>
#include <sstream>

namespace warmsched::workloads {

namespace {
// hackbench -F: sched_setscheduler(0, SCHED_FIFO, 1) in main; fork keeps the policy (no
// SCHED_RESET_ON_FORK), so every sender and receiver is SCHED_FIFO 1 too.
void fifo_if(const messaging_options& o, spawn_spec& s) {
    if (!o.fifo) return;
    s.policy = scheduler::sched_policy::fifo;
    s.rt_priority = 1;
}

// The wait for the start signal: write one byte to the ready pipe, then block until the gate opens.
struct startup {
    channel* ready;
    futex_word* gate;
};

class receiver final : public copyable_program<receiver> {
public:
    receiver(startup s, channel& in, unsigned datasize, std::uint64_t packets, messaging::result& r)
        : s_(s), in_(in), datasize_(datasize), packets_(packets), r_(r) {}
    op next(program_context& ctx) override {
        switch (phase_) {
        case 0:
            phase_ = 1;
            return op::write(*s_.ready, 1);
        case 1:
            phase_ = 2;
            return op::futex_wait(*s_.gate, 0);
        case 2:
            phase_ = 3;
            break;
        default: // a read returned
            done_ += ctx.result;
            if (done_ >= datasize_) {
                done_ = 0;
                ++received_;
                ++r_.messages;
            }
        }
        if (received_ == packets_) return op::exit();
        return op::read(in_, datasize_ - done_);
    }

private:
    startup s_;
    channel& in_;
    unsigned datasize_;
    std::uint64_t packets_, received_ = 0, done_ = 0;
    messaging::result& r_;
    int phase_ = 0;
};

class sender final : public copyable_program<sender> {
public:
    sender(startup s, std::vector<channel*> out, unsigned datasize, unsigned loops)
        : s_(s), out_(std::move(out)), datasize_(datasize), loops_(loops) {}
    op next(program_context&) override {
        switch (phase_) {
        case 0:
            phase_ = 1;
            return op::write(*s_.ready, 1);
        case 1:
            phase_ = 2;
            return op::futex_wait(*s_.gate, 0);
        default:
            break;
        }
        if (sent_ == static_cast<std::uint64_t>(loops_) * out_.size()) return op::exit();
        channel& c = *out_[sent_ % out_.size()];
        ++sent_;
        return op::write(c, datasize_); // a write of up to PIPE_BUF bytes is never partial
    }

private:
    startup s_;
    std::vector<channel*> out_;
    unsigned datasize_, loops_;
    std::uint64_t sent_ = 0;
    int phase_ = 0;
};

class messaging_main final : public copyable_program<messaging_main> {
public:
    messaging_main(const messaging_options& o, sim_kernel& k, std::shared_ptr<messaging::result> r)
        : o_(o), r_(std::move(r)) {
        const channel_kind kind = o.pipes ? channel_kind::pipe : channel_kind::socket;
        ready_ = &k.make_channel(kind);
        gate_ = &k.make_futex();
        const startup s{ready_, gate_};
        for (unsigned g = 0; g < o.groups; ++g) {
            std::vector<channel*> chans;
            for (unsigned i = 0; i < o.fds; ++i) {
                chans.push_back(&k.make_channel(kind));
                auto spec = std::make_shared<spawn_spec>();
                spec->comm = "hackbench";
                spec->thread = o.threads;
                fifo_if(o, *spec);
                spec->body = std::make_shared<receiver>(s, *chans.back(), o.datasize,
                                                        static_cast<std::uint64_t>(o.fds) * o.loops, *r_);
                spawns_.push_back(spec);
            }
            for (unsigned i = 0; i < o.fds; ++i) {
                auto spec = std::make_shared<spawn_spec>();
                spec->comm = "hackbench";
                spec->thread = o.threads;
                fifo_if(o, *spec);
                spec->body = std::make_shared<sender>(s, chans, o.datasize, o.loops);
                spawns_.push_back(spec);
            }
        }
    }
    op next(program_context& ctx) override {
        const std::size_t workers = spawns_.size();
        if (forked_ < workers) return op::fork(spawns_[forked_++]);
        if (ready_read_ < workers) { // one byte per worker
            ++ready_read_;
            return op::read(*ready_, 1);
        }
        switch (phase_) {
        case 0:
            phase_ = 1;
            r_->start_ns = ctx.now;
            return op::futex_wake(*gate_, 1, workers);
        case 1:
            phase_ = 2;
            return op::wait_children();
        case 2:
            phase_ = 3;
            r_->stop_ns = ctx.now;
            r_->done = true;
            return op::exit();
        default:
            return op::exit();
        }
    }

private:
    messaging_options o_;
    std::shared_ptr<messaging::result> r_;
    channel* ready_;
    futex_word* gate_;
    std::vector<std::shared_ptr<spawn_spec>> spawns_;
    std::size_t forked_ = 0, ready_read_ = 0;
    int phase_ = 0;
};

// "0.890": seconds with milliseconds, truncated like the tools' tv_usec / 1000.
std::string seconds_ms(std::uint64_t ns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(ns / 1'000'000'000ull),
                  static_cast<unsigned long long>(ns % 1'000'000'000ull / 1'000'000ull));
    return buf;
}

// hackbench has no limit; the model copies every byte through the simulated pipe buffer and caches, so a
// 1GB message takes hours of host time per loop. 1MiB is 16 pipe buffers and 10^4 times the default.
constexpr unsigned max_datasize = 1u << 20;

} // namespace

messaging::messaging(const messaging_options& o, style s, std::string command)
    : o_(o), style_(s), command_(std::move(command)) {}

std::unique_ptr<messaging> messaging::from_hackbench(const std::vector<std::string>& args,
                                                     const std::string& command) {
    const std::string usage =
        "Usage: hackbench [-p|--pipe] [-s|--datasize <bytes>] [-l|--loops <num loops>]\n"
        "\t\t [-g|--groups <num groups] [-f|--fds <num fds>]\n"
        "\t\t [-T|--threads] [-P|--process] [-F|--fifo] [--help]";
    messaging_options o;
    const std::vector<option_spec> specs = {
        flag_option('p', "pipe", o.pipes),
        positive_option('s', "datasize", o.datasize, "hackbench: --datasize|-s requires an integer > 0"),
        positive_option('l', "loops", o.loops, "hackbench: --loops|-l requires an integer > 0"),
        positive_option('g', "groups", o.groups, "hackbench: --groups|-g requires an integer > 0"),
        positive_option('f', "fds", o.fds, "hackbench: --fds|-f requires an integer > 0"),
        flag_option('T', "threads", o.threads, true),
        flag_option('P', "processes", o.threads, false),
        flag_option('F', "fifo", o.fifo),
        help_option('h', usage),
    };
    const auto operands = parse_options("hackbench", args, specs, usage);
    if (!operands.empty())
        throw usage_error("hackbench: unexpected argument '" + operands.front() + "'\n" + usage);
    if (o.datasize > max_datasize)
        throw usage_error("hackbench: --datasize " + std::to_string(o.datasize) + ": the model's limit is " +
                          std::to_string(max_datasize) +
                          " bytes per message (every byte goes through the pipe and the caches; "
                          "docs/workloads.md)");
    return std::make_unique<messaging>(o, style::rt_tests, command);
}

std::unique_ptr<messaging> messaging::from_perf(const std::vector<std::string>& args,
                                                const std::string& command) {
    const std::string usage =
        "\n Usage: perf bench sched messaging <options>\n\n"
        "    -p, --pipe            Use pipe() instead of socketpair()\n"
        "    -t, --thread          Be multi thread instead of multi process\n"
        "    -g, --group <n>       Specify number of groups\n"
        "    -l, --nr_loops <n>    Specify the number of loops to run (default: 100)\n"
        "    -f, --fd <n>          Specify the number of file descriptors per group (default: 20)\n";
    messaging_options o;
    const auto numeric = [](char c) {
        return std::string(" Error: switch `") + c + "' expects a numerical value";
    };
    const std::vector<option_spec> specs = {
        flag_option('p', "pipe", o.pipes),
        flag_option('t', "thread", o.threads),
        positive_option('g', "group", o.groups, numeric('g')),
        positive_option('l', "nr_loops", o.loops, numeric('l')),
        positive_option('f', "fd", o.fds, numeric('f')),
    };
    const auto operands = parse_options("perf", args, specs, usage, option_dialect::perf);
    if (!operands.empty()) throw usage_error(" Error: unknown argument `" + operands.front() + "'\n" + usage);
    return std::make_unique<messaging>(o, style::perf, command);
}

void messaging::start(sim_kernel& k, const std::vector<bool>& allowed) {
    spawn_spec s;
    s.comm = style_ == style::perf ? "perf" : "hackbench";
    s.allowed = allowed;
    fifo_if(o_, s);
    s.body = std::make_shared<messaging_main>(o_, k, result_);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(s, cpu);
}

double messaging::seconds() const {
    return static_cast<double>(result_->stop_ns - result_->start_ns) / 1e9;
}

void messaging::report(std::ostream& out) const {
    const unsigned tasks = o_.groups * o_.fds * 2;
    const std::string elapsed =
        result_->done ? seconds_ms(result_->stop_ns - result_->start_ns) : "(did not finish)";
    if (style_ == style::rt_tests) {
        out << "Running in " << (o_.threads ? "threaded" : "process") << " mode with " << o_.groups
            << " groups using " << 2 * o_.fds << " file descriptors each (== " << tasks << " tasks)\n"
            << "Each sender will pass " << o_.loops << " messages of " << o_.datasize << " bytes\n"
            << "Time: " << elapsed << "\n";
    } else {
        const char* what = o_.threads ? "threads" : "processes";
        out << "# Running 'sched/messaging' benchmark:\n"
            << "# " << o_.fds << " sender and receiver " << what << " per group\n"
            << "# " << o_.groups << " groups == " << tasks << " " << what << " run\n\n";
        char line[64];
        std::snprintf(line, sizeof line, " %14s: ", "Total time");
        out << line << elapsed << " [sec]\n";
    }
}

} // namespace warmsched::workloads
