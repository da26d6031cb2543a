// cyclictest; see cyclictest.h.
#include "workloads/bench/cyclictest.h"
#include "base/files/output_file.h"

#include "workloads/bench/periodic_timer.h"
#include "workloads/cli/command_line.h"
#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>

namespace warmsched::workloads {

namespace {
using scheduler::nsec;

const char* const usage_text =
    "Usage:\ncyclictest <options>\n\n"
    "-a [CPUSET] --affinity     Run thread #N on processor #N, if possible, or if CPUSET\n"
    "                           given, pin threads to that set of processors in round-\n"
    "                           robin order.\n"
    "-d DIST  --distance=DIST   distance of thread intervals in us, default=500\n"
    "-D       --duration=TIME   specify a length for the test run.\n"
    "                           Append 'm', 'h', or 'd' to specify minutes, hours or days.\n"
    "-h       --histogram=US    dump a latency histogram to stdout after the run\n"
    "-i INTV  --interval=INTV   base interval of thread in us default=1000\n"
    "-l LOOPS --loops=LOOPS     number of loops: default=0(endless)\n"
    "-m       --mlockall        lock current and future memory allocations\n"
    "-n       --nanosleep       use clock_nanosleep\n"
    "-p PRIO  --priority=PRIO   priority of highest prio thread\n"
    "         --policy=NAME     policy of measurement thread, where NAME may be one\n"
    "                           of: other, normal, batch, idle, fifo or rr.\n"
    "         --priospread      spread priority levels starting at specified value\n"
    "-q       --quiet           print a summary only on exit\n"
    "-S       --smp             Standard SMP testing: options -a -t and same priority\n"
    "                           of all threads\n"
    "         --json=FILENAME   write final results into FILENAME, JSON formatted\n"
    "-t [NUM] --threads=NUM     number of threads:\n"
    "                           without NUM, threads = max_cpus\n"
    "                           without -t default = 1";

[[noreturn]] void fail(const std::string& what) {
    throw usage_error("cyclictest: " + what + "\n" + usage_text);
}

long long int_value(const std::string& opt, const std::string& v, long long min, long long max) {
    long long n = 0;
    if (!parse_int(v, min, max, n))
        fail("invalid value '" + v + "' for " + opt + " (expected an integer from " + std::to_string(min) +
             " to " + std::to_string(max) + ")");
    return n;
}

// parse_time_string: a number with an optional s, m, h or d suffix (warmsched: fractional allowed).
double duration_value(const std::string& v) {
    char* end = nullptr;
    double t = std::strtod(v.c_str(), &end);
    std::string suffix(end ? end : "");
    double scale = 1;
    if (suffix == "s" || suffix.empty())
        scale = 1;
    else if (suffix == "m")
        scale = 60;
    else if (suffix == "h")
        scale = 3600;
    else if (suffix == "d")
        scale = 86400;
    else
        fail("invalid duration '" + v + "' for -D (a number of seconds, optionally with s, m, h or d)");
    if (v.empty() || end == v.c_str() || !(t > 0) || t * scale > 1e7)
        fail("invalid duration '" + v + "' for -D (a number of seconds > 0, optionally with s, m, h or d)");
    return t * scale;
}

bool is_number(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos && std::atoi(s.c_str()) != 0;
}

bool looks_like_cpu_list(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789,-") == std::string::npos &&
           std::atoi(s.c_str()) != 0;
}

struct thread_setup {
    unsigned index = 0;
    nsec interval = 0;
    std::uint64_t loop_instructions = 0;
    const memory_profile* profile = nullptr;
    unsigned long max_cycles = 0;
    nsec duration = 0;
    unsigned histogram = 0;
};

// timerthread(): clock_gettime, then loop { clock_nanosleep(ABSTIME, next); clock_gettime(now);
// diff = now - next; statistics; next += interval (and past missed expiries) } until -l or -D.
class timer_thread final : public copyable_program<timer_thread> {
public:
    timer_thread(thread_setup s, std::shared_ptr<cyclictest::state> st)
        : s_(s), st_(std::move(st)), timer_(s.interval, periodic_timer::overrun::skip_missed) {}
    op next(program_context& ctx) override {
        cyclictest::thread_stat& stat = st_->threads[s_.index];
        if (!timer_.started()) {
            stat.tid = ctx.pid;
            timer_.start(ctx.now + s_.interval);
            stop_ = ctx.now + s_.duration;
            return *timer_.arm(ctx.now);
        }
        if (phase_ == phase::woke) {
            phase_ = phase::work;
            const nsec expiry = timer_.expiry();
            // calcdiff: microseconds, truncated toward zero.
            const long diff =
                static_cast<long>((static_cast<long long>(ctx.now) - static_cast<long long>(expiry)) / 1000);
            timer_.woke(ctx.now);
            if (diff < stat.min) stat.min = diff;
            if (diff > stat.max) stat.max = diff;
            stat.avg += static_cast<double>(diff);
            if (s_.duration && ctx.now >= stop_) st_->shutdown = true;
            stat.act = diff;
            if (s_.histogram) {
                if (diff < 0 || static_cast<unsigned long>(diff) >= s_.histogram) {
                    ++stat.hist_overflow;
                    if (stat.outliers.size() < s_.histogram) stat.outliers.push_back(stat.cycles);
                } else {
                    ++stat.hist[static_cast<std::size_t>(diff)];
                }
            }
            ++stat.cycles;
            if (s_.loop_instructions) return op::compute(s_.loop_instructions, s_.profile);
        }
        phase_ = phase::woke;
        if ((s_.max_cycles && stat.cycles >= s_.max_cycles) || st_->shutdown) {
            stat.stopped = true;
            return op::exit();
        }
        return *timer_.arm(ctx.now);
    }

private:
    enum class phase { woke, work };
    thread_setup s_;
    std::shared_ptr<cyclictest::state> st_;
    periodic_timer timer_;
    nsec stop_ = 0;
    phase phase_ = phase::woke;
};

// main(): create the threads, then usleep(10000) until every thread stopped (or -D ended the run).
class main_thread final : public copyable_program<main_thread> {
public:
    main_thread(std::vector<std::shared_ptr<spawn_spec>> threads, std::shared_ptr<cyclictest::state> st)
        : threads_(std::move(threads)), st_(std::move(st)) {}
    op next(program_context& ctx) override {
        if (created_ == 0) st_->start_ns = ctx.now;
        if (created_ < threads_.size()) return op::fork(threads_[created_++]);
        bool all = true;
        for (const auto& t : st_->threads) all = all && t.stopped;
        if (!all) return op::sleep(10'000'000);
        st_->done = true;
        st_->end_ns = ctx.now;
        return op::exit();
    }

private:
    std::vector<std::shared_ptr<spawn_spec>> threads_;
    std::shared_ptr<cyclictest::state> st_;
    std::size_t created_ = 0;
};

} // namespace

cyclictest::cyclictest(const cyclictest_options& o, const cyclictest_model& m, std::string command,
                       unsigned ncpus)
    : o_(o), m_(m), command_(std::move(command)), ncpus_(ncpus) {}

std::unique_ptr<cyclictest> cyclictest::from_command_line(const std::vector<std::string>& args,
                                                          const std::string& command, unsigned ncpus,
                                                          workload_params& params) {
    cyclictest_options o;
    const auto flag = [](char c, const char* name, bool& field) { return flag_option(c, name, field); };
    const auto valued = [](char c, const char* name, std::function<void(const std::string&)> set) {
        return option_spec{c, name, true, [set](const std::string& v) {
                               set(v);
                               return std::string();
                           }};
    };
    bool smp = false;
    const std::vector<option_spec> specs = {
        flag('n', "nanosleep", o.nanosleep),
        flag('q', "quiet", o.quiet),
        flag('m', "mlockall", o.mlockall),
        flag(0, "priospread", o.priospread),
        flag('S', "smp", smp),
        valued('p', "priority",
               [&](const std::string& v) {
                   o.priority = static_cast<int>(int_value("-p", v, 0, 99));
                   if (o.policy != cyclictest_options::sched::fifo &&
                       o.policy != cyclictest_options::sched::rr)
                       o.policy = cyclictest_options::sched::fifo;
               }),
        valued(0, "policy",
               [&](const std::string& p) {
                   if (p == "other" || p == "normal")
                       o.policy = cyclictest_options::sched::other;
                   else if (p == "batch")
                       o.policy = cyclictest_options::sched::batch;
                   else if (p == "idle")
                       o.policy = cyclictest_options::sched::idle;
                   else if (p == "fifo")
                       o.policy = cyclictest_options::sched::fifo;
                   else if (p == "rr")
                       o.policy = cyclictest_options::sched::rr;
                   else
                       fail("invalid value '" + p +
                            "' for --policy (other, normal, batch, idle, fifo or rr)");
               }),
        {'t', "threads", false,
         [&](const std::string& v) {
             o.threads = v.empty() ? ncpus : static_cast<unsigned>(int_value("-t", v, 1, 4096));
             return std::string();
         },
         &is_number},
        valued('i', "interval",
               [&](const std::string& v) {
                   o.interval_us = static_cast<long>(int_value("-i", v, 1, 1'000'000'000));
               }),
        valued('d', "distance",
               [&](const std::string& v) {
                   o.distance_us = static_cast<long>(int_value("-d", v, 0, 1'000'000'000));
               }),
        valued('l', "loops",
               [&](const std::string& v) {
                   o.loops = static_cast<unsigned long>(int_value("-l", v, 0, 1'000'000'000'000));
               }),
        valued('D', "duration", [&](const std::string& v) { o.duration_s = duration_value(v); }),
        valued('h', "histogram",
               [&](const std::string& v) {
                   o.histogram_us = static_cast<unsigned>(int_value("-h", v, 0, 1'000'000)); // HIST_MAX
               }),
        valued(0, "json",
               [&](const std::string& v) {
                   if (v.empty() || v.back() == '/') fail("invalid file name '" + v + "' for --json");
                   o.json_file = v;
               }),
        {'a', "affinity", false,
         [&](const std::string& v) {
             if (v.empty()) {
                 o.affinity_mode = cyclictest_options::affinity::use_all;
                 return std::string();
             }
             std::vector<bool> mask;
             if (!parse_cpu_list(v, ncpus, mask))
                 fail("invalid CPU list '" + v + "' for -a (this machine has CPUs 0-" +
                      std::to_string(ncpus - 1) + ")");
             o.affinity_mode = cyclictest_options::affinity::specified;
             o.affinity_cpus.clear();
             for (unsigned c = 0; c < ncpus; ++c)
                 if (mask[c]) o.affinity_cpus.push_back(c);
             return std::string();
         },
         &looks_like_cpu_list},
    };
    const auto operands = parse_options("cyclictest", args, specs, usage_text);
    if (!operands.empty()) fail("unexpected argument '" + operands.front() + "'");
    if (smp) { // -S: "options -a -t and same priority of all threads"
        if (o.affinity_mode == cyclictest_options::affinity::specified)
            fail("-S runs a thread on every CPU: it does not take -a CPUSET");
        o.affinity_mode = cyclictest_options::affinity::use_all;
        o.threads = ncpus;
        o.priospread = false;
    }
    if (o.priospread && o.priority == 0) o.priority = static_cast<int>(o.threads) + 1;
    const bool rt = o.policy == cyclictest_options::sched::fifo || o.policy == cyclictest_options::sched::rr;
    if (o.priority && !rt) o.policy = cyclictest_options::sched::fifo; // "policy and priority don't match"
    if (rt && o.priority == 0) o.priority = static_cast<int>(o.threads) + 1; // "defaulting realtime priority"
    if (o.priospread && o.priority - static_cast<int>(o.threads) + 1 < 1)
        fail("--priospread: -p " + std::to_string(o.priority) + " leaves thread " +
             std::to_string(o.threads - 1) + " below priority 1 (use a -p of at least " +
             std::to_string(o.threads) + ")");
    cyclictest_model m;
    m.loop_instructions = params.number("cyclictest", "loop_instructions", m.loop_instructions, 0, 1e9);
    m.working_set_kb = params.number("cyclictest", "working_set_kb", m.working_set_kb, 0, 1e6);
    return std::make_unique<cyclictest>(o, m, command, ncpus);
}

long cyclictest::thread_interval_us(unsigned k) const {
    if (o_.histogram_us) return o_.interval_us; // same interval on CPUs
    const long d = o_.distance_us < 0 ? 500 : o_.distance_us;
    return o_.interval_us + static_cast<long>(k) * d;
}

int cyclictest::thread_priority(unsigned k) const {
    return o_.priospread ? o_.priority - static_cast<int>(k) : o_.priority;
}

int cyclictest::thread_cpu(unsigned k) const {
    switch (o_.affinity_mode) {
    case cyclictest_options::affinity::use_all:
        return static_cast<int>(k % ncpus_);
    case cyclictest_options::affinity::specified:
        return static_cast<int>(o_.affinity_cpus[k % o_.affinity_cpus.size()]);
    case cyclictest_options::affinity::unspecified:
        break;
    }
    return -1;
}

void cyclictest::start(sim_kernel& k, const std::vector<bool>& allowed) {
    auto profile = std::make_shared<memory_profile>();
    profile->working_set = static_cast<std::uint64_t>(std::llround(m_.working_set_kb * 1024));
    profile->pattern = access_pattern::uniform;
    // Every instruction of the statistics code touches the stack or the thread's stat lines at about
    // the x86 average of loads and stores (~1 in 3 instructions).
    profile->accesses_per_kilo_instruction = profile->working_set ? 330 : 0;
    profile->write_fraction = 0.3;
    profile_ = profile;
    state_->threads.assign(o_.threads, thread_stat{});
    state_->release = k.uname_release();
    std::vector<std::shared_ptr<spawn_spec>> specs;
    for (unsigned i = 0; i < o_.threads; ++i) {
        thread_stat& st = state_->threads[i];
        st.prio = thread_priority(i);
        st.interval_us = thread_interval_us(i);
        st.cpu = thread_cpu(i);
        if (st.cpu < 0) { // rt-tests 2.40 names thread k's CPU round robin and its node (--json)
            const unsigned cpu = i % k.machine().num_cpus();
            st.node = static_cast<int>(k.sched().layout().node_of[cpu]);
            st.json_cpu = static_cast<int>(cpu);
        } else {
            st.json_cpu = st.cpu;
        }
        if (o_.histogram_us) st.hist.assign(o_.histogram_us, 0);
        thread_setup s;
        s.index = i;
        s.interval = static_cast<nsec>(st.interval_us) * 1000;
        s.loop_instructions = static_cast<std::uint64_t>(std::llround(m_.loop_instructions));
        s.profile = profile_.get();
        s.max_cycles = o_.loops;
        s.duration = static_cast<nsec>(std::llround(o_.duration_s * 1e9));
        s.histogram = o_.histogram_us;
        auto spec = std::make_shared<spawn_spec>();
        spec->comm = "cyclictest";
        spec->thread = true;
        using P = cyclictest_options::sched;
        const bool rt = st.prio > 0 && (o_.policy == P::fifo || o_.policy == P::rr);
        spec->policy = !rt                  ? (o_.policy == P::batch  ? scheduler::sched_policy::batch
                                               : o_.policy == P::idle ? scheduler::sched_policy::idle
                                                                      : scheduler::sched_policy::normal)
                       : o_.policy == P::rr ? scheduler::sched_policy::rr
                                            : scheduler::sched_policy::fifo;
        spec->rt_priority = rt ? st.prio : 0;
        if (!rt) st.prio = o_.priority; // printed as given (0 without -p)
        if (st.cpu >= 0) {
            spec->allowed.assign(k.machine().num_cpus(), false);
            spec->allowed[static_cast<unsigned>(st.cpu)] = true;
        }
        spec->body = std::make_shared<timer_thread>(s, state_);
        specs.push_back(spec);
    }
    spawn_spec p;
    p.comm = "cyclictest";
    p.allowed = allowed;
    p.body = std::make_shared<main_thread>(std::move(specs), state_);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(p, cpu);
}

void cyclictest::report(std::ostream& out) const {
    char line[256];
    const auto& ts = state_->threads;
    if (!(o_.quiet && o_.histogram_us)) {
        for (std::size_t i = 0; i < ts.size(); ++i) {
            const thread_stat& s = ts[i];
            std::snprintf(line, sizeof line,
                          "T:%2d (%5d) P:%2d I:%ld C:%7lu Min:%7ld Act:%5ld Avg:%5ld Max:%8ld\n",
                          static_cast<int>(i), s.tid, s.prio, s.interval_us,
                          static_cast<unsigned long>(s.cycles), s.min, s.act,
                          s.cycles ? static_cast<long>(s.avg / static_cast<double>(s.cycles)) : 0L, s.max);
            out << line;
        }
    }
    if (o_.histogram_us) {
        out << "# Histogram\n";
        std::vector<unsigned long long> total(ts.size(), 0);
        for (unsigned us = 0; us < o_.histogram_us; ++us) {
            std::snprintf(line, sizeof line, "%06d ", static_cast<int>(us));
            out << line;
            for (std::size_t j = 0; j < ts.size(); ++j) {
                std::snprintf(line, sizeof line, "%06lu", static_cast<unsigned long>(ts[j].hist[us]));
                out << line << (j + 1 < ts.size() ? "\t" : "");
                total[j] += ts[j].hist[us];
            }
            out << "\n";
        }
        const auto row = [&](const char* title, const char* fmt, auto value) {
            out << title;
            for (std::size_t j = 0; j < ts.size(); ++j) {
                std::snprintf(line, sizeof line, fmt, value(j));
                out << line;
            }
            out << "\n";
        };
        row("# Total:", " %09llu", [&](std::size_t j) { return total[j]; });
        row("# Min Latencies:", " %05lu",
            [&](std::size_t j) { return static_cast<unsigned long>(ts[j].min); });
        row("# Avg Latencies:", " %05lu", [&](std::size_t j) {
            return static_cast<unsigned long>(
                ts[j].cycles ? static_cast<long>(ts[j].avg / static_cast<double>(ts[j].cycles)) : 0L);
        });
        row("# Max Latencies:", " %05lu",
            [&](std::size_t j) { return static_cast<unsigned long>(ts[j].max); });
        row("# Histogram Overflows:", " %05lu",
            [&](std::size_t j) { return static_cast<unsigned long>(ts[j].hist_overflow); });
        out << "# Histogram Overflow at cycle number:\n";
        for (std::size_t i = 0; i < ts.size(); ++i) {
            out << "# Thread " << i << ":";
            for (std::uint64_t c : ts[i].outliers) {
                std::snprintf(line, sizeof line, " %05lu", static_cast<unsigned long>(c));
                out << line;
            }
            if (ts[i].outliers.size() < ts[i].hist_overflow) {
                std::snprintf(line, sizeof line, " # %05lu others",
                              static_cast<unsigned long>(ts[i].hist_overflow - ts[i].outliers.size()));
                out << line;
            }
            out << "\n";
        }
        out << "\n";
    }
    if (!state_->done) out << "cyclictest: did not finish (the experiment's duration ended first)\n";
}

namespace {
// rt-tests' time stamps ("Thu, 03 Dec 2026 10:03:52 +0000"), here the simulated time from the epoch:
// the same run prints the same file.
std::string json_time(scheduler::nsec ns) {
    const std::time_t t = static_cast<std::time_t>(ns / 1'000'000'000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[64];
    std::strftime(b, sizeof b, "%a, %d %b %Y %H:%M:%S +0000", &tm);
    return b;
}
std::string json_escaped(const std::string& s) {
    std::string o;
    for (char c : s) o += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return o;
}
} // namespace

void cyclictest::write_json(std::ostream& out) const {
    // rt_write_json (rt-utils.c) and cyclictest's write_stats, field for field as rt-tests 2.40 prints
    // them (the keys "cmdline:" and "rt_test_version:" with their colons included).
    const auto& ts = state_->threads;
    char b[128];
    out << "{\n  \"file_version\": 1,\n"
        << "  \"cmdline:\": \"" << json_escaped(command_) << "\",\n"
        << "  \"rt_test_version:\": \"2.40\",\n"
        << "  \"start_time\": \"" << json_time(state_->start_ns) << "\",\n"
        << "  \"end_time\": \"" << json_time(state_->end_ns) << "\",\n"
        << "  \"return_code\": " << (state_->done ? 0 : 1) << ",\n"
        << "  \"sysinfo\": {\n    \"sysname\": \"Linux\",\n    \"nodename\": \"warmsched\",\n"
        << "    \"release\": \"" << state_->release << "\",\n    \"version\": \"#1 SMP PREEMPT_DYNAMIC\",\n"
        << "    \"machine\": \"x86_64\",\n    \"realtime\": 0\n  },\n"
        << "  \"num_threads\": " << ts.size() << ",\n  \"resolution_in_ns\": 0,\n  \"thread\": {\n";
    for (std::size_t i = 0; i < ts.size(); ++i) {
        const thread_stat& s = ts[i];
        out << "    \"" << i << "\": {\n      \"histogram\": {";
        bool comma = false;
        for (std::size_t us = 0; us < s.hist.size(); ++us) {
            if (!s.hist[us]) continue;
            out << (comma ? ",\n" : "\n") << "        \"" << us << "\": " << s.hist[us];
            comma = true;
        }
        if (comma) out << "\n";
        std::snprintf(b, sizeof b, "%.2f", s.cycles ? s.avg / static_cast<double>(s.cycles) : 0.0);
        out << "      },\n      \"cycles\": " << s.cycles << ",\n      \"min\": " << s.min
            << ",\n      \"max\": " << s.max << ",\n      \"avg\": " << b
            << ",\n      \"cpu\": " << s.json_cpu << ",\n      \"node\": " << s.node << "\n    }"
            << (i + 1 < ts.size() ? "," : "") << "\n";
    }
    out << "  }\n}\n";
}

void cyclictest::write_files(const std::string& dir) const {
    if (o_.json_file.empty()) return;
    base::output_file out((std::filesystem::path(dir) / std::filesystem::path(o_.json_file).filename()).string());
    write_json(out);
    out.close();
}

} // namespace warmsched::workloads
