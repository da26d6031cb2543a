// perf bench sched pipe; see sched_pipe.h.
#include "workloads/bench/sched_pipe.h"

#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"

#include <cstdio>

namespace warmsched::workloads {

namespace {

// One end of the ping-pong: end 0 reads first, end 1 writes first (perf's worker_thread).
class pipe_end final : public copyable_program<pipe_end> {
public:
    pipe_end(int nr, channel& in, channel& out, long long loops)
        : nr_(nr), in_(in), out_(out), loops_(loops) {}
    op next(program_context&) override {
        if (done_ == 2 * loops_) return op::exit();
        const bool read_now = (done_ % 2 == 0) == (nr_ == 0);
        ++done_;
        return read_now ? op::read(in_, sizeof(int)) : op::write(out_, sizeof(int));
    }

private:
    int nr_;
    channel &in_, &out_;
    long long loops_, done_ = 0;
};

// Main: times the run. Process mode: forks the peer (end 0), runs end 1 itself, then waits.
// Threaded: creates both ends as threads and waits.
class pipe_main final : public copyable_program<pipe_main> {
public:
    pipe_main(sim_kernel& k, long long loops, bool threaded, std::shared_ptr<sched_pipe::result> r)
        : threaded_(threaded), r_(std::move(r)) {
        channel& p1 = k.make_channel(channel_kind::pipe);
        channel& p2 = k.make_channel(channel_kind::pipe);
        for (int nr = 0; nr < 2; ++nr) {
            auto s = std::make_shared<spawn_spec>();
            s->comm = "perf";
            s->thread = threaded;
            s->body = nr == 0 ? std::make_shared<pipe_end>(0, p1, p2, loops)
                              : std::make_shared<pipe_end>(1, p2, p1, loops);
            ends_.push_back(s);
        }
    }
    op next(program_context& ctx) override {
        if (phase_ == 0) {
            r_->start_ns = ctx.now;
            phase_ = 1;
        }
        if (phase_ == 1) {
            if (forked_ < (threaded_ ? 2u : 1u)) return op::fork(ends_[forked_++]);
            phase_ = 2;
            if (!threaded_) self_ = ends_[1]->body;
        }
        if (phase_ == 2 && self_) {
            op o = self_->next(ctx);
            if (o.kind != op_kind::exit) return o;
            self_.reset();
        }
        if (phase_ == 2) {
            phase_ = 3;
            return op::wait_children();
        }
        if (phase_ == 3) {
            r_->stop_ns = ctx.now;
            r_->done = true;
            phase_ = 4;
        }
        return op::exit();
    }

private:
    bool threaded_;
    std::shared_ptr<sched_pipe::result> r_;
    std::vector<std::shared_ptr<spawn_spec>> ends_;
    std::shared_ptr<program> self_;
    unsigned forked_ = 0;
    int phase_ = 0;
};

} // namespace

sched_pipe::sched_pipe(long long loops, bool threaded, std::string command)
    : loops_(loops), threaded_(threaded), command_(std::move(command)) {}

std::unique_ptr<sched_pipe> sched_pipe::from_perf(const std::vector<std::string>& args,
                                                  const std::string& command) {
    const std::string usage = "\n Usage: perf bench sched pipe <options>\n\n"
                              "    -l, --loop <n>        Specify number of loops\n"
                              "    -T, --threaded        Specify threads/process based task setup\n";
    long long loops = 1'000'000;
    bool threaded = false;
    const std::vector<option_spec> specs = {
        {'l', "loop", true,
         [&](const std::string& v) -> std::string {
             if (!parse_int(v, 1, 1'000'000'000'000, loops))
                 return " Error: switch `l' expects a numerical value";
             return {};
         }},
        flag_option('T', "threaded", threaded),
    };
    const auto operands = parse_options("perf", args, specs, usage, option_dialect::perf);
    if (!operands.empty()) throw usage_error(" Error: unknown argument `" + operands.front() + "'\n" + usage);
    return std::make_unique<sched_pipe>(loops, threaded, command);
}

void sched_pipe::start(sim_kernel& k, const std::vector<bool>& allowed) {
    spawn_spec s;
    s.comm = "perf";
    s.allowed = allowed;
    s.body = std::make_shared<pipe_main>(k, loops_, threaded_, result_);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(s, cpu);
}

double sched_pipe::usecs_per_op() const {
    return static_cast<double>(result_->stop_ns - result_->start_ns) / 1e3 / static_cast<double>(loops_);
}

void sched_pipe::report(std::ostream& out) const {
    out << "# Running 'sched/pipe' benchmark:\n"
        << "# Executed " << loops_ << " pipe operations between two " << (threaded_ ? "threads" : "processes")
        << "\n\n";
    if (!result_->done) {
        out << "     Total time: (did not finish)\n";
        return;
    }
    const std::uint64_t ns = result_->stop_ns - result_->start_ns;
    char buf[160];
    std::snprintf(buf, sizeof buf, " %14s: %llu.%03llu [sec]\n\n", "Total time",
                  static_cast<unsigned long long>(ns / 1'000'000'000ull),
                  static_cast<unsigned long long>(ns % 1'000'000'000ull / 1'000'000ull));
    out << buf;
    const double usec = static_cast<double>(ns / 1000);
    std::snprintf(buf, sizeof buf, " %14lf usecs/op\n %14d ops/sec\n", usec / static_cast<double>(loops_),
                  static_cast<int>(static_cast<double>(loops_) / (usec / 1e6)));
    out << buf;
}

} // namespace warmsched::workloads
