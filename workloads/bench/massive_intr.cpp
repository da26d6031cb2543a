// massive_intr; see massive_intr.h.
#include "workloads/bench/massive_intr.h"

#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace warmsched::workloads {

namespace {
using scheduler::nsec;

struct shared_setup {
    futex_word* start_signal = nullptr; // SIGUSR1: 0 until the parent sends it
    std::uint64_t work_instructions = 0;
    nsec sleep_ns = 0, start_delay_ns = 0, runtime_ns = 0;
};

// test_job: usleep(200 ms), sigsuspend until SIGUSR1, then work/sleep/count until runtime is up.
class child_program final : public copyable_program<child_program> {
public:
    child_program(shared_setup s, std::shared_ptr<massive_intr::result> r) : s_(s), r_(std::move(r)) {}
    op next(program_context& ctx) override {
        switch (phase_) {
        case phase::start_delay:
            phase_ = phase::signal;
            if (s_.start_delay_ns) return op::sleep(s_.start_delay_ns);
            [[fallthrough]];
        case phase::signal:
            phase_ = phase::work;
            return op::futex_wait(*s_.start_signal, 0); // returns at once if the signal is pending
        case phase::work:
            if (started_ == 0) started_ = ctx.now;
            phase_ = phase::sleep;
            return op::compute(s_.work_instructions, nullptr);
        case phase::sleep:
            phase_ = phase::check;
            return op::sleep(s_.sleep_ns);
        case phase::check:
            ++count_;
            if (ctx.now - r_->first_ns < s_.runtime_ns) {
                phase_ = phase::sleep;
                return op::compute(s_.work_instructions, nullptr);
            }
            r_->children.push_back({ctx.pid, count_, started_, ctx.now});
            phase_ = phase::exited;
            return op::exit();
        case phase::exited:
            break;
        }
        return op::exit();
    }

private:
    enum class phase { start_delay, signal, work, sleep, check, exited };
    shared_setup s_;
    std::shared_ptr<massive_intr::result> r_;
    phase phase_ = phase::start_delay;
    std::uint64_t count_ = 0;
    nsec started_ = 0;
};

// main: fork the children, take the start time, signal them all, wait for them.
class parent_program final : public copyable_program<parent_program> {
public:
    parent_program(unsigned nproc, std::shared_ptr<spawn_spec> child, futex_word& signal,
                   std::shared_ptr<massive_intr::result> r)
        : nproc_(nproc), child_(std::move(child)), signal_(&signal), r_(std::move(r)) {}
    op next(program_context& ctx) override {
        if (forked_ < nproc_) {
            ++forked_;
            return op::fork(child_);
        }
        switch (phase_) {
        case 0:
            phase_ = 1;
            r_->first_ns = ctx.now;                     // time(first)
            return op::futex_wake(*signal_, 1, nproc_); // kill(0, SIGUSR1)
        case 1:
            phase_ = 2;
            return op::wait_children();
        case 2:
            phase_ = 3;
            r_->done = true;
            return op::exit();
        default:
            return op::exit();
        }
    }

private:
    unsigned nproc_;
    std::shared_ptr<spawn_spec> child_;
    futex_word* signal_;
    std::shared_ptr<massive_intr::result> r_;
    unsigned forked_ = 0;
    int phase_ = 0;
};

} // namespace

massive_intr::massive_intr(const massive_intr_options& o, const massive_intr_model& m, std::string command)
    : o_(o), m_(m), command_(std::move(command)) {}

std::unique_ptr<massive_intr> massive_intr::from_command_line(const std::vector<std::string>& args,
                                                              const std::string& command,
                                                              workload_params& params) {
    const std::string usage = "Usage : massive_intr <nproc> <runtime>\n"
                              "\t\tnproc  : number of processes\n"
                              "\t\truntime   : execute time[sec]";
    if (args.size() != 2)
        throw usage_error("massive_intr: expected 2 arguments, got " + std::to_string(args.size()) + "\n" +
                          usage);
    massive_intr_options o;
    long long n = 0;
    if (!parse_int(args[0], 1, 1024, n))
        throw usage_error(
            "massive_intr: invalid multinum: nproc must be an integer from 1 to 1024 (MAX_PROC), got '" +
            args[0] + "'\n" + usage);
    o.nproc = static_cast<unsigned>(n);
    char* end = nullptr;
    o.runtime_s = std::strtod(args[1].c_str(), &end);
    if (args[1].empty() || end != args[1].c_str() + args[1].size() || !(o.runtime_s > 0) || o.runtime_s > 1e6)
        throw usage_error("massive_intr: invalid runtime: expected seconds > 0, got '" + args[1] + "'\n" +
                          usage);
    massive_intr_model m;
    m.work_ms = params.number("massive_intr", "work_ms", m.work_ms, 0.001, 1e6);
    m.sleep_ms = params.number("massive_intr", "sleep_ms", m.sleep_ms, 0, 1e6);
    m.start_delay_ms = params.number("massive_intr", "start_delay_ms", m.start_delay_ms, 0, 1e6);
    return std::make_unique<massive_intr>(o, m, command);
}

void massive_intr::start(sim_kernel& k, const std::vector<bool>& allowed) {
    shared_setup s;
    s.start_signal = &k.make_futex();
    // loop_per_msec() on an idle CPU: the empty loop runs at the core's base CPI.
    const double ps_per_instruction =
        static_cast<double>(k.machine().cpu(0).params().cycle_ps) * k.machine().platform().core.base_cpi;
    s.work_instructions = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::llround(m_.work_ms * 1e9 / ps_per_instruction)));
    s.sleep_ns = static_cast<nsec>(std::llround(m_.sleep_ms * 1e6));
    s.start_delay_ns = static_cast<nsec>(std::llround(m_.start_delay_ms * 1e6));
    s.runtime_ns = static_cast<nsec>(std::llround(o_.runtime_s * 1e9));
    result_->work_instructions = s.work_instructions;
    auto child = std::make_shared<spawn_spec>();
    child->comm = "massive_intr";
    child->body = std::make_shared<child_program>(s, result_);
    spawn_spec p;
    p.comm = "massive_intr";
    p.allowed = allowed;
    p.body = std::make_shared<parent_program>(o_.nproc, child, *s.start_signal, result_);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(p, cpu);
}

void massive_intr::report(std::ostream& out) const {
    char line[64];
    for (const auto& c : result_->children) {
        std::snprintf(line, sizeof line, "%06d\t%08llu\n", c.pid, static_cast<unsigned long long>(c.loops));
        out << line;
    }
    if (!result_->done) out << "massive_intr: did not finish (the experiment's duration ended first)\n";
}

} // namespace warmsched::workloads
