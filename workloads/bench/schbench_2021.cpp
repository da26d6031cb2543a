// schbench before its 2023 rewrite; see schbench_2021.h.
#include "workloads/bench/schbench_2021.h"

#include "workloads/bench/schbench_parts.h"

#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>

namespace warmsched::workloads {

namespace {
using namespace schbench_parts;
using scheduler::nsec;
// show_latencies of 2021: "Latency percentiles (usec) runtime R (s) (N total samples)", every percentile of
// its list with 99.0 starred, then min and max.
void show_latencies(const latency_histogram& h, std::ostream& out, const std::string& runtime) {
    using lh = latency_histogram;
    h.print(out, "Latency", "usec", runtime, lh::all_2021, lh::p99_2021, lh::percentiles_2021.data(),
            lh::percentiles_2021.size());
}
} // namespace

struct schbench_2021::run_state {
    schbench_2021_options o;
    std::uint64_t seed = 0;
    bool stopping = false, done = false;
    struct message {
        futex_word* futex = nullptr;
        std::vector<unsigned> list; // workers waiting for a reply, newest last
    };
    struct worker {
        futex_word* futex = nullptr;
        nsec wake_time = 0;
        latency_histogram stats;
        std::uint64_t loop_count = 0;
    };
    std::vector<message> msgs;
    std::vector<worker> ws; // message thread i's workers are i*workers ... (i+1)*workers-1
    std::vector<std::shared_ptr<spawn_spec>> msg_specs, worker_specs;
    std::string log; // what schbench prints while it runs, in order
    totals final;

    bool fpost(futex_word& f) { // CAS BLOCKED -> RUNNING; true if the FUTEX_WAKE system call follows
        ++final.fposts;
        if (f.value != blocked) return false;
        f.value = running;
        ++final.futex_wakes;
        return true;
    }
    latency_histogram combined() const { // combine_message_thread_stats
        latency_histogram h;
        for (const auto& w : ws) h.combine(w.stats);
        return h;
    }
    void reset_stats() {
        for (auto& w : ws) w.stats.reset();
    }
};

namespace {
using run_ptr = std::shared_ptr<schbench_2021::run_state>;

// worker_thread: spin, then post the message thread and wait for its reply; until `stopping`.
class worker_program final : public copyable_program<worker_program> {
public:
    worker_program(run_ptr r, unsigned id, unsigned workers)
        : r_(std::move(r)), id_(id), msg_(id / workers) {}
    op next(program_context& ctx) override {
        auto& r = *r_;
        auto& me = r.ws[id_];
        for (;;) {
            switch (phase_) {
            case phase::top:
                if (r.stopping) return op::exit();
                phase_ = phase::worked;
                if (r.o.cputime_usec > 0) return op::spin_until(spin_deadline(ctx.now, r.o.cputime_usec));
                continue;
            case phase::worked: { // loop_count++, then msg_and_wait
                ++me.loop_count;
                auto& msg = r.msgs[msg_];
                me.futex->value = blocked;
                me.wake_time = ctx.now;
                msg.list.push_back(id_);
                phase_ = phase::posted;
                if (r.fpost(*msg.futex)) return op::futex_wake(*msg.futex, running, 1);
                continue;
            }
            case phase::posted:
                phase_ = r.stopping ? phase::woken : phase::waiting;
                continue;
            case phase::waiting: // fwait
                if (me.futex->value == running) {
                    me.futex->value = blocked;
                    phase_ = phase::woken;
                    continue;
                }
                return op::futex_wait(*me.futex, blocked);
            case phase::woken: {
                const std::uint64_t delta = usec_delta(me.wake_time, ctx.now);
                if (delta > 0) me.stats.add(clamp_u32(static_cast<double>(delta)));
                phase_ = phase::top;
                continue;
            }
            }
        }
    }

private:
    enum class phase { top, worked, posted, waiting, woken };
    run_ptr r_;
    unsigned id_, msg_;
    phase phase_ = phase::top;
};

// message_thread: create the workers, run_msg_thread until `stopping`, then post and join every worker.
class message_program final : public copyable_program<message_program> {
public:
    message_program(run_ptr r, unsigned index, unsigned workers)
        : r_(std::move(r)), index_(index), workers_(workers), rng_(r_->seed ^ (0x7363686265ull + index)) {
    } // rand_r's per-thread seed
    op next(program_context& ctx) override {
        auto& r = *r_;
        auto& me = r.msgs[index_];
        for (;;) {
            switch (phase_) {
            case phase::create:
                if (forked_ < workers_)
                    return op::fork(std::move(r.worker_specs[index_ * workers_ + forked_++]));
                phase_ = phase::top;
                continue;
            case phase::top: // td->futex = FUTEX_BLOCKED; xlist_wake_all
                ++r.final.rounds;
                me.futex->value = blocked;
                splice(r, me, ctx.now);
                phase_ = phase::waking;
                continue;
            case phase::waking:
                while (!pending_.empty()) {
                    const unsigned w = pending_.back();
                    pending_.pop_back();
                    if (r.fpost(*r.ws[w].futex)) return op::futex_wake(*r.ws[w].futex, running, 1);
                }
                if (final_pass_) {
                    phase_ = phase::release;
                    continue;
                }
                if (r.stopping) { // xlist_wake_all once more, then leave the loop
                    final_pass_ = true;
                    splice(r, me, ctx.now);
                    continue;
                }
                phase_ = r.o.sleep_usec ? phase::waiting : phase::think;
                continue;
            case phase::waiting: // fwait
                if (me.futex->value == running) {
                    me.futex->value = blocked;
                    phase_ = phase::think;
                    continue;
                }
                return op::futex_wait(*me.futex, blocked);
            case phase::think: // usec_spin(message_cputime): "messages shouldn't be instant"
                phase_ = phase::sleep;
                if (r.o.message_cputime > 0)
                    return op::spin_until(spin_deadline(ctx.now, r.o.message_cputime));
                continue;
            case phase::sleep: {
                phase_ = phase::top;
                if (!r.o.sleep_usec) continue;
                const unsigned max_jitter = r.o.sleep_usec / 4;
                const unsigned jitter = max_jitter ? static_cast<unsigned>(rng_() % max_jitter) : 0;
                return op::sleep(static_cast<nsec>(r.o.sleep_usec + jitter) * 1000);
            }
            case phase::release:
                while (released_ < workers_) {
                    auto& w = r.ws[index_ * workers_ + released_++];
                    if (r.fpost(*w.futex)) return op::futex_wake(*w.futex, running, 1);
                }
                phase_ = phase::joined;
                return op::wait_children();
            case phase::joined:
                return op::exit();
            }
        }
    }

private:
    enum class phase { create, top, waking, waiting, think, sleep, release, joined };
    // xlist_splice and one gettimeofday for every waiter, woken newest first.
    void splice(schbench_2021::run_state& r, schbench_2021::run_state::message& me, nsec now) {
        for (unsigned w : me.list) r.ws[w].wake_time = now;
        pending_.insert(pending_.begin(), me.list.begin(), me.list.end());
        me.list.clear();
    }

    run_ptr r_;
    unsigned index_, workers_;
    std::mt19937_64 rng_;
    phase phase_ = phase::create;
    unsigned forked_ = 0, released_ = 0;
    std::vector<unsigned> pending_; // taken from the back: newest first
    bool final_pass_ = false;
};

// main: start the message threads, then sleep_for_runtime a second at a time, then stop and join.
class main_program final : public copyable_program<main_program> {
public:
    explicit main_program(run_ptr r) : r_(std::move(r)) {}
    op next(program_context& ctx) override {
        auto& r = *r_;
        const auto& o = r.o;
        for (;;) {
            switch (phase_) {
            case phase::create:
                if (forked_ < r.msg_specs.size()) return op::fork(std::move(r.msg_specs[forked_++]));
                start_ = last_calc_ = zero_time_ = ctx.now;
                phase_ = phase::sample;
                continue;
            case phase::sample: {
                const std::uint64_t runtime_delta = usec_delta(start_, ctx.now);
                const auto runtime_usec = static_cast<std::uint64_t>(std::llround(o.runtime_s * 1e6));
                if (runtime_delta >= runtime_usec) {
                    r.stopping = true;
                    phase_ = phase::release;
                    continue;
                }
                if (runtime_delta > static_cast<std::uint64_t>(o.warmup_s) * 1'000'000 && !warmup_done_ &&
                    o.warmup_s) {
                    warmup_done_ = true;
                    r.log += "warmup done, zeroing stats\n";
                    zero_time_ = ctx.now;
                    r.reset_stats();
                } else if (usec_delta(last_calc_, ctx.now) >=
                           static_cast<std::uint64_t>(o.interval_s) * 1'000'000) {
                    std::ostringstream text;
                    show_latencies(r.combined(), text, std::to_string(runtime_delta / 1'000'000));
                    r.log += text.str();
                    last_calc_ = ctx.now;
                }
                if (o.zero_s &&
                    usec_delta(zero_time_, ctx.now) > static_cast<std::uint64_t>(o.zero_s) * 1'000'000) {
                    zero_time_ = ctx.now;
                    r.reset_stats();
                }
                nsec pause = 1'000'000'000; // sleep(1)
                const nsec end = start_ + static_cast<nsec>(std::llround(o.runtime_s * 1e9));
                if (o.runtime_s != std::floor(o.runtime_s) && end > ctx.now && end - ctx.now < pause)
                    pause = end - ctx.now; // fractional -r: the last round ends at the runtime
                return op::sleep(pause);
            }
            case phase::release:
                while (released_ < r.msgs.size()) {
                    auto& m = r.msgs[released_++];
                    if (r.fpost(*m.futex)) return op::futex_wake(*m.futex, running, 1);
                }
                phase_ = phase::joined;
                return op::wait_children();
            case phase::joined:
                r.final.wakeup = r.combined();
                for (const auto& w : r.ws) r.final.loops += w.loop_count;
                r.done = true;
                phase_ = phase::exited;
                return op::exit();
            case phase::exited:
                return op::exit();
            }
        }
    }

private:
    enum class phase { create, sample, release, joined, exited };
    run_ptr r_;
    phase phase_ = phase::create;
    std::size_t forked_ = 0, released_ = 0;
    nsec start_ = 0, last_calc_ = 0, zero_time_ = 0;
    bool warmup_done_ = false;
};

} // namespace

schbench_2021::schbench_2021(const schbench_2021_options& o, std::string command)
    : o_(o), command_(std::move(command)), run_(std::make_shared<run_state>()) {
    run_->o = o_;
}

std::uint64_t schbench_2021::tasks_needed() const {
    return 1 + static_cast<std::uint64_t>(o_.message_threads) * (1 + o_.worker_threads);
}

void schbench_2021::start(sim_kernel& k, const std::vector<bool>& allowed) {
    run_state& r = *run_;
    r.seed = k.seed();
    const unsigned m = o_.message_threads, workers = o_.worker_threads;
    r.msgs.resize(m);
    r.ws.resize(static_cast<std::size_t>(m) * workers);
    for (auto& msg : r.msgs) msg.futex = &k.make_futex();
    for (auto& w : r.ws) w.futex = &k.make_futex();
    for (unsigned i = 0; i < m; ++i) {
        auto spec = std::make_shared<spawn_spec>();
        spec->comm = "schbench";
        spec->thread = true;
        spec->body = std::make_shared<message_program>(run_, i, workers);
        r.msg_specs.push_back(spec);
        for (unsigned w = 0; w < workers; ++w) {
            auto ws = std::make_shared<spawn_spec>();
            ws->comm = "schbench";
            ws->thread = true;
            ws->body = std::make_shared<worker_program>(run_, i * workers + w, workers);
            r.worker_specs.push_back(ws);
        }
    }
    spawn_main(k, allowed, std::make_shared<main_program>(run_));
}

bool schbench_2021::finished() const {
    return run_->done;
}

const schbench_2021::totals& schbench_2021::outcome() const {
    return run_->final;
}

void schbench_2021::report(std::ostream& out) const {
    out << run_->log;
    if (!run_->done) {
        out << "schbench: did not finish (the experiment's duration ended first)\n";
        return;
    }
    show_latencies(run_->final.wakeup, out, seconds_text(o_.runtime_s));
}

unsigned schbench_2021::release(const std::vector<std::string>& args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--") break;
        std::string value;
        if (args[i] == "--release") {
            if (i + 1 >= args.size()) throw usage_error("schbench: option '--release' requires an argument");
            value = args[i + 1];
        } else if (args[i].rfind("--release=", 0) == 0) {
            value = args[i].substr(10);
        } else {
            continue;
        }
        if (value == "2021") return 2021;
        if (value == "2024") return 2024;
        throw usage_error(
            "schbench: --release (warmsched): expected 2021 (schbench before its 2023 rewrite) or "
            "2024 (the current one), got '" +
            value + "'");
    }
    return 2024;
}

std::unique_ptr<schbench_2021> schbench_2021::from_command_line(const std::vector<std::string>& args,
                                                                const std::string& command) {
    const std::string usage =
        "schbench usage:\n"
        "\t-m (--message-threads): number of message threads (def: 2)\n"
        "\t-t (--threads): worker threads per message thread (def: 16)\n"
        "\t-r (--runtime): How long to run before exiting (seconds, def: 30; warmsched: fractions allowed)\n"
        "\t-s (--sleeptime): Message thread latency (usec, def: 30000\n"
        "\t-C (--message_cputime): Message thread think time (usec, def: 30000\n"
        "\t-c (--cputime): How long to think during loop (usec, def: 30000\n"
        "\t-w (--warmuptime): how long to warmup before resettings stats (seconds, def: 5)\n"
        "\t-i (--intervaltime): interval for printing latencies (seconds, def: 10)\n"
        "\t-z (--zerotime): interval for zeroing latencies (seconds, def: never)\n"
        "\t--release 2021 (warmsched): this release of schbench";
    schbench_2021_options o;
    unsigned ignored_message_cputime = 0;
    const auto number = number_option;
    const auto unsupported = unsupported_option;
    const std::vector<option_spec> specs = {
        number('m', "message-threads", o.message_threads, 1),
        number('t', "threads", o.worker_threads, 1),
        runtime_option(o.runtime_s),
        number('s', "sleeptime", o.sleep_usec, 0),
        number('C', "message_cputime", ignored_message_cputime, 0),
        number('c', "cputime", o.cputime_usec, 0),
        number('w', "warmuptime", o.warmup_s, 0),
        number('i', "intervaltime", o.interval_s, 0),
        number('z', "zerotime", o.zero_s, 0),
        unsupported('a', "auto", false, "the auto mode (it reruns with more threads) is not modelled"),
        unsupported('j', "jitter", false, "the jitter of the spin is not modelled"),
        unsupported('A', "auto-rps", true, "the auto-rps mode (it reads /proc/stat) is not modelled"),
        unsupported('R', "rps", true, "the requests-per-second mode is not modelled"),
        unsupported('p', "pipe", true, "pipe mode is not modelled"),
        unsupported('n', "operations", true,
                    "the matrix mode of 2021-12 is not modelled (release 2024 has it)"),
        unsupported('F', "cache_footprint", true,
                    "the matrix mode of 2021-12 is not modelled (release 2024 has it)"),
        {0, "release", true,
         [](const std::string& v) {
             return v == "2021" ? std::string()
                                : "schbench: --release: spell it out as --release 2021 (got '" + v + "')";
         }},
        help_option(0, usage),
    };
    const auto operands = parse_options("schbench", args, specs, usage);
    if (!operands.empty()) throw usage_error("Error Extra arguments '" + operands.front() + "'");
    return std::make_unique<schbench_2021>(o, command);
}

} // namespace warmsched::workloads
