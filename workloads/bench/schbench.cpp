// schbench; see schbench.h.
#include "workloads/bench/schbench.h"
#include "base/files/output_file.h"

#include "workloads/bench/schbench_parts.h"

#include "workloads/cli/command_line.h"
#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace warmsched::workloads {

namespace {
using namespace schbench_parts;
using scheduler::nsec;

kernel_task* find_task(sim_kernel& k, int pid) {
    for (const auto& t : k.tasks())
        if (t->t.pid == pid) return t.get();
    return nullptr;
}
} // namespace

struct schbench::run_state {
    std::uint64_t end_ns = 0; // when main saw the workers joined (the JSON's "time")
    std::string release;      // uname -r of the simulated kernel (the JSON's "version")
    schbench_options o;
    unsigned workers = 0; // per message thread
    sim_kernel* k = nullptr;
    memory_profile profile; // the matrices of one worker
    std::uint64_t request_instructions = 0, spin_instructions = 1;
    bool locking = true;

    struct message {
        futex_word* futex = nullptr;
        std::vector<unsigned> list; // workers waiting for a reply, in the order they posted
    };
    struct worker {
        futex_word* futex = nullptr;
        nsec wake_time = 0;
        latency_histogram wakeup, request;
        std::uint64_t loop_count = 0;
    };
    std::vector<message> msgs;
    std::vector<worker> ws; // message thread i's workers are i*workers ... (i+1)*workers-1
    std::vector<std::shared_ptr<spawn_spec>> msg_specs, worker_specs;
    std::vector<int> lock_owner; // per CPU: the worker holding its lock, -1 free
    bool stopping = false;
    latency_histogram rps;
    std::string log; // what schbench prints while it runs, in order
    totals final;
    bool done = false;

    // fpost: CAS BLOCKED -> RUNNING; true if the FUTEX_WAKE system call follows.
    bool fpost(futex_word& f) {
        ++final.fposts;
        if (f.value != blocked) return false;
        f.value = running;
        ++final.futex_wakes;
        return true;
    }
    std::uint64_t loop_count() const {
        std::uint64_t n = 0;
        for (const auto& w : ws) n += w.loop_count;
        return n;
    }
    void combine(latency_histogram& wakeup, latency_histogram& request) const {
        for (const auto& w : ws) {
            wakeup.combine(w.wakeup);
            request.combine(w.request);
        }
    }
    void reset_stats() {
        rps.reset();
        for (auto& w : ws) {
            w.wakeup.reset();
            w.request.reset();
        }
    }
};

namespace {
using run_ptr = std::shared_ptr<schbench::run_state>;

// worker_thread: post the message thread, wait for its reply, run a request; until `stopping`.
class worker_program final : public copyable_program<worker_program> {
public:
    worker_program(run_ptr r, unsigned id) : r_(std::move(r)), id_(id) {}
    op next(program_context& ctx) override {
        auto& r = *r_;
        auto& me = r.ws[id_];
        auto& msg = r.msgs[id_ / r.workers];
        if (!pid_) pid_ = ctx.pid;
        for (;;) {
            switch (phase_) {
            case phase::top: // msg_and_wait
                if (r.stopping) return op::exit();
                me.futex->value = blocked;
                me.wake_time = ctx.now;
                msg.list.push_back(id_);
                phase_ = phase::posted;
                if (r.fpost(*msg.futex)) return op::futex_wake(*msg.futex, running, 1);
                continue;
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
                if (delta > 0) me.wakeup.add(clamp_u32(static_cast<double>(delta)));
                if (!r.o.calibrate) work_start_ = ctx.now; // the usleep counts, except in calibration
                phase_ = phase::slept;
                if (r.o.sleep_usec > 0) return op::sleep(static_cast<nsec>(r.o.sleep_usec) * 1000);
                continue;
            }
            case phase::slept:
                if (r.o.calibrate) work_start_ = ctx.now;
                phase_ = r.locking ? phase::lock_this_cpu : phase::work;
                continue;
            case phase::lock_this_cpu:
                lock_cpu_ = cpu(r);
                phase_ = phase::trylock;
                continue;
            case phase::trylock:
                if (r.lock_owner[lock_cpu_] >= 0) { // spin ("rep; nop") and try again
                    ++r.final.lock_spins;
                    return op::compute(r.spin_instructions, nullptr);
                }
                r.lock_owner[lock_cpu_] = static_cast<int>(id_);
                if (cpu(r) != lock_cpu_) { // got the lock but migrated meanwhile
                    r.lock_owner[lock_cpu_] = -1;
                    phase_ = phase::lock_this_cpu;
                    continue;
                }
                phase_ = phase::work;
                continue;
            case phase::work:
                phase_ = phase::worked;
                if (r.o.cputime_usec > 0) return op::spin_until(spin_deadline(ctx.now, r.o.cputime_usec));
                if (r.request_instructions > 0) return op::compute(r.request_instructions, &r.profile);
                continue;
            case phase::worked: {
                if (r.locking && r.lock_owner[lock_cpu_] == static_cast<int>(id_))
                    r.lock_owner[lock_cpu_] = -1;
                ++me.loop_count;
                const std::uint64_t delta = usec_delta(work_start_, ctx.now);
                if (delta > 0) me.request.add(clamp_u32(static_cast<double>(delta)));
                phase_ = phase::top;
                continue;
            }
            }
        }
    }

private:
    enum class phase { top, posted, waiting, woken, slept, lock_this_cpu, trylock, work, worked };
    unsigned cpu(schbench::run_state& r) { // sched_getcpu()
        if (!self_) self_ = find_task(*r.k, pid_);
        return self_ ? self_->t.cpu : 0;
    }

    run_ptr r_;
    unsigned id_;
    phase phase_ = phase::top;
    nsec work_start_ = 0;
    unsigned lock_cpu_ = 0;
    int pid_ = 0;
    kernel_task* self_ = nullptr;
};

// message_thread: create the workers, then reply to their posts until `stopping`, then join them.
class message_program final : public copyable_program<message_program> {
public:
    message_program(run_ptr r, unsigned index) : r_(std::move(r)), index_(index) {}
    op next(program_context& ctx) override {
        auto& r = *r_;
        auto& me = r.msgs[index_];
        for (;;) {
            switch (phase_) {
            case phase::create:
                // Handed over, not kept: a spec's body holds run_state, so run_state holding it too would
                // be a cycle that is never freed (LeakSanitizer found it).
                if (forked_ < r.workers)
                    return op::fork(std::move(r.worker_specs[index_ * r.workers + forked_++]));
                if (!r.o.message_cpus.empty()) {
                    char line[96];
                    std::snprintf(line, sizeof line, "Pinning to message thread index %u cpu %u\n", index_,
                                  message_cpu(r.o.message_cpus, index_));
                    r.log += line;
                }
                phase_ = phase::top;
                continue;
            case phase::top: // run_msg_thread
                me.futex->value = blocked;
                splice(r, me, ctx.now);
                phase_ = phase::waking;
                continue;
            case phase::waking: // xlist_wake_all
                while (!pending_.empty()) {
                    const unsigned w = pending_.back();
                    pending_.pop_back();
                    if (r.fpost(*r.ws[w].futex)) return op::futex_wake(*r.ws[w].futex, running, 1);
                }
                if (final_pass_) {
                    phase_ = phase::release;
                    continue;
                }
                if (r.stopping) { // wake whoever queued meanwhile, then leave
                    final_pass_ = true;
                    splice(r, me, ctx.now);
                    continue;
                }
                phase_ = phase::waiting;
                continue;
            case phase::waiting: // fwait
                if (me.futex->value == running) {
                    me.futex->value = blocked;
                    phase_ = phase::top;
                    continue;
                }
                return op::futex_wait(*me.futex, blocked);
            case phase::release: // fpost every worker, then join them
                while (released_ < r.workers) {
                    auto& w = r.ws[index_ * r.workers + released_++];
                    if (r.fpost(*w.futex)) return op::futex_wake(*w.futex, running, 1);
                }
                phase_ = phase::joined;
                return op::wait_children();
            case phase::joined:
                return op::exit();
            }
        }
    }
    static unsigned message_cpu(const std::vector<bool>& set, unsigned index) { // pin_message_cpu
        std::vector<unsigned> cpus;
        for (unsigned c = 0; c < set.size(); ++c)
            if (set[c]) cpus.push_back(c);
        return cpus[index % cpus.size()];
    }

private:
    enum class phase { create, top, waking, waiting, release, joined };
    // xlist_splice: take the whole list (newest first) and stamp every waiter with one gettimeofday.
    void splice(schbench::run_state& r, schbench::run_state::message& me, nsec now) {
        for (unsigned w : me.list) r.ws[w].wake_time = now;
        pending_.insert(pending_.begin(), me.list.begin(), me.list.end());
        me.list.clear();
    }

    run_ptr r_;
    unsigned index_;
    phase phase_ = phase::create;
    unsigned forked_ = 0, released_ = 0;
    std::vector<unsigned> pending_; // taken from the back: newest first
    bool final_pass_ = false;
};

// main: start the message threads, sample RPS every second and print interval reports until the
// runtime is up, then stop everything and print the totals.
class main_program final : public copyable_program<main_program> {
public:
    explicit main_program(run_ptr r) : r_(std::move(r)) {}
    op next(program_context& ctx) override {
        auto& r = *r_;
        const auto& o = r.o;
        for (;;) {
            switch (phase_) {
            case phase::create:
                if (forked_ < r.msg_specs.size())
                    return op::fork(std::move(r.msg_specs[forked_++])); // as above
                start_ = last_calc_ = last_rps_ = zero_time_ = ctx.now;
                phase_ = phase::sample;
                continue;
            case phase::sample: { // sleep_for_runtime, one round
                const std::uint64_t runtime_usec =
                    static_cast<std::uint64_t>(std::llround(o.runtime_s * 1e6));
                const std::uint64_t runtime_delta = usec_delta(start_, ctx.now);
                const bool done = runtime_delta >= runtime_usec;
                const std::uint64_t warmup_usec = static_cast<std::uint64_t>(warmup_s()) * 1'000'000;
                if (runtime_delta > warmup_usec && !warmup_done_ && warmup_s()) {
                    warmup_done_ = true;
                    r.log += "warmup done, zeroing stats\n";
                    zero_time_ = ctx.now;
                    r.reset_stats();
                } else {
                    const std::uint64_t delta = usec_delta(last_rps_, ctx.now);
                    const std::uint64_t loops = r.loop_count();
                    const double rps =
                        static_cast<double>((loops - last_loops_) * 1'000'000) / static_cast<double>(delta);
                    last_loops_ = loops;
                    last_rps_ = ctx.now;
                    r.rps.add(std::isfinite(rps) ? clamp_u32(rps) : 0);
                    if (usec_delta(last_calc_, ctx.now) >=
                        static_cast<std::uint64_t>(o.interval_s) * 1'000'000) {
                        latency_histogram wakeup, request;
                        r.combine(wakeup, request);
                        last_calc_ = ctx.now;
                        std::ostringstream text;
                        const std::string secs = std::to_string(runtime_delta / 1'000'000);
                        wakeup.print(text, "Wakeup Latencies", "usec", secs, latency_histogram::for_latency,
                                     latency_histogram::p99);
                        request.print(text, "Request Latencies", "usec", secs, latency_histogram::for_latency,
                                      latency_histogram::p99);
                        r.rps.print(text, "RPS", "requests", secs, latency_histogram::for_rps,
                                    latency_histogram::p50);
                        char line[64];
                        std::snprintf(line, sizeof line, "current rps: %.2f\n",
                                      std::isfinite(rps) ? rps : 0.0);
                        r.log += text.str() + line;
                    }
                }
                if (o.zero_s &&
                    usec_delta(zero_time_, ctx.now) > static_cast<std::uint64_t>(o.zero_s) * 1'000'000) {
                    zero_time_ = ctx.now;
                    r.reset_stats();
                }
                if (!done) {
                    nsec pause = 1'000'000'000; // sleep(1)
                    const nsec end = start_ + static_cast<nsec>(std::llround(o.runtime_s * 1e9));
                    if (o.runtime_s != std::floor(o.runtime_s) && end > ctx.now && end - ctx.now < pause)
                        pause = end - ctx.now; // fractional -r: the last round ends at the runtime
                    return op::sleep(pause);
                }
                r.stopping = true;
                phase_ = phase::release;
                continue;
            }
            case phase::release:
                while (released_ < r.msgs.size()) {
                    auto& m = r.msgs[released_++];
                    if (r.fpost(*m.futex)) return op::futex_wake(*m.futex, running, 1);
                }
                phase_ = phase::joined;
                return op::wait_children();
            case phase::joined:
                r.combine(r.final.wakeup, r.final.request);
                r.final.rps = r.rps;
                r.final.requests = r.loop_count();
                r.end_ns = ctx.now;
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
    unsigned warmup_s() const { return r_->o.runtime_s < 30 ? 0 : r_->o.warmup_s; }

    run_ptr r_;
    phase phase_ = phase::create;
    std::size_t forked_ = 0, released_ = 0;
    nsec start_ = 0, last_calc_ = 0, last_rps_ = 0, zero_time_ = 0;
    std::uint64_t last_loops_ = 0;
    bool warmup_done_ = false;
};

} // namespace

schbench::schbench(const schbench_options& o, const schbench_model& m, unsigned ncpus, std::string command)
    : o_(o), m_(m), ncpus_(ncpus), command_(std::move(command)), run_(std::make_shared<run_state>()) {
    run_->o = o_;
    run_->workers =
        o_.worker_threads ? o_.worker_threads : (ncpus + o_.message_threads - 1) / o_.message_threads;
}

std::uint64_t schbench::tasks_needed() const { // the main thread, message threads and their workers
    return 1 + static_cast<std::uint64_t>(o_.message_threads) * (1 + run_->workers);
}

unsigned schbench::matrix_size() const {
    return static_cast<unsigned>(std::sqrt(static_cast<double>(o_.cache_footprint_kb) * 1024 / 3 / 8));
}

std::uint64_t schbench::instructions_per_request() const {
    const double n = matrix_size();
    return static_cast<std::uint64_t>(
        std::llround(o_.operations * n * n * n * m_.instructions_per_iteration));
}

void schbench::start(sim_kernel& k, const std::vector<bool>& allowed) {
    run_state& r = *run_;
    r.k = &k;
    r.release = k.uname_release();
    r.locking = !(o_.no_locking || o_.calibrate);
    // The three matrices (3 n^2 longs, malloc'd per worker). Per multiplication the k-loop walks m2 a
    // column at a time: n lines per column, each line serving 8 consecutive columns, so all of m2's
    // n^2/8 lines leave L1 once per row i -- n^3/8 line accesses -- plus a row of m1 and of m3 per i.
    // Those accesses are spread uniformly over the footprint (every line of it is touched in each
    // request, as the real loop does; a uniform walk also lets settled compute be fast-forwarded).
    const double n = matrix_size();
    r.profile.working_set = static_cast<std::uint64_t>(3 * n * n * 8);
    r.profile.pattern = access_pattern::uniform;
    if (n > 0) {
        const double lines = n * n * n / 8 + n * n / 4;
        r.profile.accesses_per_kilo_instruction =
            1000.0 * lines / (n * n * n * m_.instructions_per_iteration);
        r.profile.write_fraction = n * n / 8 / lines;
    }
    r.request_instructions = o_.operations ? instructions_per_request() : 0;
    const auto& hart = k.machine().cpu(0).params();
    const double ps_per_instruction =
        static_cast<double>(hart.cycle_ps) * k.machine().platform().core.base_cpi;
    r.spin_instructions =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(m_.spin_check_us * 1e6 / ps_per_instruction));
    r.lock_owner.assign(k.machine().num_cpus(), -1);

    const unsigned m = o_.message_threads;
    r.msgs.resize(m);
    r.ws.resize(static_cast<std::size_t>(m) * r.workers);
    for (auto& msg : r.msgs) msg.futex = &k.make_futex();
    for (auto& w : r.ws) w.futex = &k.make_futex();
    std::vector<bool> all(k.machine().num_cpus(), true);
    for (unsigned i = 0; i < m; ++i) {
        auto spec = std::make_shared<spawn_spec>();
        spec->comm = "schbench";
        spec->thread = true;
        if (!o_.message_cpus.empty()) {
            spec->allowed.assign(k.machine().num_cpus(), false);
            spec->allowed[message_program::message_cpu(o_.message_cpus, i)] = true;
        } else if (!o_.worker_cpus.empty()) {
            spec->allowed = o_.worker_cpus; // pin_worker_cpus pins the message thread itself too
        }
        spec->body = std::make_shared<message_program>(run_, i);
        r.msg_specs.push_back(spec);
        for (unsigned w = 0; w < r.workers; ++w) {
            auto ws = std::make_shared<spawn_spec>();
            ws->comm = "schbench";
            ws->thread = true;
            // Workers are created before the message thread pins itself: they inherit -W, or else the
            // process's affinity.
            ws->allowed = !o_.worker_cpus.empty() ? o_.worker_cpus : (allowed.empty() ? all : allowed);
            ws->body = std::make_shared<worker_program>(run_, i * r.workers + w);
            r.worker_specs.push_back(ws);
        }
    }
    spawn_main(k, allowed, std::make_shared<main_program>(run_));
}

bool schbench::finished() const {
    return run_->done;
}

const schbench::totals& schbench::outcome() const {
    return run_->final;
}

void schbench::report(std::ostream& out) const {
    if (o_.auto_pin) out << "auto pinning message and worker threads\n";
    if (o_.workers_defaulted) out << "setting worker threads to " << run_->workers << "\n";
    out << run_->log;
    if (!run_->done) {
        out << "schbench: did not finish (the experiment's duration ended first)\n";
        return;
    }
    if (o_.json_file == "-") {
        write_json(out);
        out << "\n";
    }
    const auto& f = run_->final;
    const std::string secs = seconds_text(o_.runtime_s);
    f.wakeup.print(out, "Wakeup Latencies", "usec", secs, latency_histogram::for_latency,
                   latency_histogram::p99);
    f.request.print(out, "Request Latencies", "usec", secs, latency_histogram::for_latency,
                    latency_histogram::p99);
    f.rps.print(out, "RPS", "requests", secs, latency_histogram::for_rps, latency_histogram::p50);
    char line[64];
    std::snprintf(line, sizeof line, "average rps: %.2f\n", static_cast<double>(f.requests) / o_.runtime_s);
    out << line;
}

std::unique_ptr<schbench> schbench::from_command_line(const std::vector<std::string>& args,
                                                      const std::string& command, unsigned ncpus,
                                                      workload_params& params) {
    const std::string usage =
        "schbench usage:\n"
        "\t-C (--calibrate): run our work loop and report on timing\n"
        "\t-L (--no-locking): don't spinlock during CPU work (def: locking on)\n"
        "\t-m (--message-threads): number of message threads (def: 1)\n"
        "\t-M (--message-cpus): pin message threads to these CPUs 'a-m,n-z' or 'auto' (def: no pinning)\n"
        "\t-W (--worker-cpus): pin worker threads to these CPUs 'a-m,n-z' or 'auto' (def: no pinning)\n"
        "\t-t (--threads): worker threads per message thread (def: num_cpus)\n"
        "\t-r (--runtime): How long to run before exiting (seconds, def: 30; warmsched: fractions allowed)\n"
        "\t-F (--cache_footprint): cache footprint (kb, def: 256)\n"
        "\t-n (--operations): think time operations to perform (def: 5)\n"
        "\t-s (--sleep_usec): think time sleep (usecs) per request\n"
        "\t-c (--cputime): warmsched: spin this many usecs per request instead of the matrix math\n"
        "\t-w (--warmuptime): how long to warmup before resetting stats (seconds, def: 0)\n"
        "\t-i (--intervaltime): interval for printing latencies (seconds, def: 10)\n"
        "\t-z (--zerotime): interval for zeroing latencies (seconds, def: never)\n"
        "\t-j (--json) <file>: output in json format (def: false)\n"
        "\t-J (--jobname) <name>: an optional jobname to add to the json output (def: none)\n"
        "\t--release 2024|2021 (warmsched): this schbench (def), or the one before its 2023 rewrite";
    schbench_options o;
    bool threads_given = false;
    const auto number = number_option;
    auto cpus = [ncpus, &o](char c, const char* name, std::vector<bool>& field) {
        return option_spec{c, name, true, [c, name, ncpus, &o, &field](const std::string& v) {
                               if (v == "auto") {
                                   o.auto_pin = true;
                                   return std::string();
                               }
                               if (!parse_cpu_list(v, ncpus, field))
                                   return "schbench: -" + std::string(1, c) + " (--" + name +
                                          "): failed to parse cpuset information '" + v +
                                          "' (this machine has CPUs 0-" + std::to_string(ncpus - 1) + ")";
                               return std::string();
                           }};
    };
    auto unsupported = [](char c, const char* name, const char* why) {
        return unsupported_option(c, name, true, why);
    };
    const std::vector<option_spec> specs = {
        flag_option('C', "calibrate", o.calibrate),
        flag_option('L', "no-locking", o.no_locking),
        number('m', "message-threads", o.message_threads, 1),
        {'t', "threads", true,
         [&](const std::string& v) {
             long long x = 0;
             if (!parse_int(v, 0, 1'000'000, x))
                 return "schbench: -t (--threads) requires an integer >= 0, got '" + v + "'";
             o.worker_threads = static_cast<unsigned>(x);
             threads_given = true;
             return std::string();
         }},
        runtime_option(o.runtime_s),
        number('w', "warmuptime", o.warmup_s, 0),
        number('i', "intervaltime", o.interval_s, 0),
        number('z', "zerotime", o.zero_s, 0),
        number('F', "cache_footprint", o.cache_footprint_kb, 0),
        number('n', "operations", o.operations, 0),
        number('s', "sleep_usec", o.sleep_usec, 0),
        number('c', "cputime", o.cputime_usec, 0),
        cpus('M', "message-cpus", o.message_cpus),
        cpus('W', "worker-cpus", o.worker_cpus),
        unsupported('p', "pipe", "pipe mode is not modelled"),
        unsupported('R', "rps", "the requests-per-second mode is not modelled"),
        unsupported('A', "auto-rps", "the auto-rps mode (it reads /proc/stat) is not modelled"),
        {'j', "json", true,
         [&](const std::string& v) {
             if (v.empty() || v.back() == '/') return "schbench: -j (--json): invalid file name '" + v + "'";
             o.json_file = v;
             return std::string();
         }},
        {'J', "jobname", true,
         [&](const std::string& v) {
             o.jobname = v;
             return std::string();
         }},
        {0, "release", true,
         [](const std::string& v) {
             return v == "2024"
                        ? std::string()
                        : "schbench: --release: spell it out as --release 2021 or 2024 (got '" + v + "')";
         }},
        help_option(0, usage),
    };
    const auto operands = parse_options("schbench", args, specs, usage);
    if (!operands.empty()) throw usage_error("Error Extra arguments '" + operands.front() + "'");
    if (o.auto_pin) { // give each message thread its own CPU and the workers the rest
        o.message_cpus.assign(ncpus, false);
        o.worker_cpus.assign(ncpus, true);
        if (o.message_threads >= ncpus)
            throw usage_error("schbench: -M/-W auto: " + std::to_string(o.message_threads) +
                              " message threads leave no CPU for the workers on " + std::to_string(ncpus) +
                              " CPUs");
        for (unsigned i = 0; i < o.message_threads; ++i) {
            o.message_cpus[i] = true;
            o.worker_cpus[i] = false;
        }
    }
    o.workers_defaulted = !threads_given || o.worker_threads == 0;
    schbench_model m;
    m.instructions_per_iteration =
        params.number("schbench", "instructions_per_iteration", m.instructions_per_iteration, 0.1, 1000);
    m.spin_check_us = params.number("schbench", "spin_check_us", m.spin_check_us, 0.01, 1000);
    return std::make_unique<schbench>(o, m, ncpus, command);
}

void schbench::write_json(std::ostream& out) const {
    // write_json_header / write_json_stats / write_json_footer of upstream schbench, byte for byte: one
    // line without a newline; "time" is the simulated clock from the epoch, "runtime" -r (a fraction as
    // given: upstream's is an integer), sched_ext "disabled" (no /sys/kernel/sched_ext here).
    std::string cmdline;
    for (char c : command_) cmdline += c == '"' ? std::string("\\\"") : std::string(1, c);
    out << "{\"normal\": {\"version\": \"" << run_->release << "\",";
    if (!o_.jobname.empty()) out << "\"jobname\": \"" << o_.jobname << "\",";
    out << "\"hostname\": \"warmsched\",\"sched_ext\": \"disabled\",\"cmdline\": \"" << cmdline << "\"},"
        << "\"int\": {\"time\": " << run_->end_ns / 1'000'000'000;
    const auto stats = [&](const latency_histogram& h, const char* label) {
        const auto pcts = h.compute();
        std::string text;
        if (pcts.empty()) return text;
        char b[96];
        for (std::size_t i = 0; i < pcts.size(); ++i) {
            std::snprintf(b, sizeof b, "%s\"%s_pct%2.1f\": %u", i ? ", " : "", label, pcts[i].pct,
                          pcts[i].value);
            text += b;
        }
        return text + ", \"" + label + "_min\": " + std::to_string(h.min()) + ",\"" + label +
               "_max\": " + std::to_string(h.max());
    };
    // Upstream writes ", " between the blocks even when one is empty (no samples), which breaks the
    // JSON; an empty block is left out here.
    const auto& f = run_->final;
    for (const std::string& block :
         {stats(f.wakeup, "wakeup_latency"), stats(f.request, "request_latency"), stats(f.rps, "rps")})
        if (!block.empty()) out << ", " << block;
    out << ", \"runtime\": " << seconds_text(o_.runtime_s) << "}}";
}

void schbench::write_files(const std::string& dir) const {
    if (o_.json_file.empty() || o_.json_file == "-") return;
    base::output_file out((std::filesystem::path(dir) / std::filesystem::path(o_.json_file).filename()).string());
    write_json(out);
    out.close();
}

} // namespace warmsched::workloads
