// kernbench and make -jN; see kernbench.h.
#include "workloads/bench/kernbench.h"

#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

namespace warmsched::workloads {

namespace {

constexpr std::uint64_t sec = 1'000'000'000ull;

// The compiler: one object's compile, then exit.
class cc1_program final : public copyable_program<cc1_program> {
public:
    cc1_program(std::uint64_t instructions, std::shared_ptr<const memory_profile> p)
        : instructions_(instructions), p_(std::move(p)) {}
    op next(program_context&) override {
        if (done_) return op::exit();
        done_ = true;
        return op::compute(instructions_, p_.get());
    }

private:
    std::uint64_t instructions_;
    std::shared_ptr<const memory_profile> p_;
    bool done_ = false;
};

// What make's child does: exec the compiler.
class job_child final : public copyable_program<job_child> {
public:
    explicit job_child(std::shared_ptr<spawn_spec> image) : image_(std::move(image)) {}
    op next(program_context&) override {
        if (execed_) return op::exit(); // exec failed (it cannot here): exit as the shell would
        execed_ = true;
        return op::exec(image_);
    }

private:
    std::shared_ptr<spawn_spec> image_;
    bool execed_ = false;
};

struct build_tree {
    std::shared_ptr<const std::vector<std::uint64_t>> objects;
    std::shared_ptr<const memory_profile> cc1, make;
    double make_instructions = 0;
};

// The job server: keeps `jobs` jobs running (0: no limit) until every object is built.
class make_program final : public copyable_program<make_program> {
public:
    make_program(build_tree tree, unsigned jobs, std::shared_ptr<kernbench::result> r, std::size_t run,
                 std::uint64_t deadline_ns)
        : tree_(std::move(tree)), jobs_(jobs), r_(std::move(r)), run_(run), deadline_(deadline_ns) {}
    op next(program_context& ctx) override {
        if (waiting_) {
            waiting_ = false;
            if (ctx.result) {
                --running_;
                ++r_->runs[run_].objects;
                ++r_->jobs_reaped;
            }
        }
        if (deadline_ && ctx.now >= deadline_) stopped_ = true;
        const auto& objects = *tree_.objects;
        if (!stopped_ && next_ < objects.size() && (jobs_ == 0 || running_ < jobs_)) {
            if (!worked_ && tree_.make_instructions >= 1) { // read the rules, check the timestamps
                worked_ = true;
                return op::compute(static_cast<std::uint64_t>(tree_.make_instructions), tree_.make.get());
            }
            worked_ = false;
            auto image = std::make_shared<spawn_spec>();
            image->comm = "cc1";
            image->body = std::make_shared<cc1_program>(objects[next_], tree_.cc1);
            auto job = std::make_shared<spawn_spec>();
            job->comm = "make";
            job->body = std::make_shared<job_child>(std::move(image));
            ++next_;
            ++running_;
            ++r_->jobs_forked;
            return op::fork(std::move(job));
        }
        if (running_ > 0) {
            waiting_ = true;
            return op::wait_child();
        }
        return op::exit();
    }

private:
    build_tree tree_;
    unsigned jobs_;
    std::shared_ptr<kernbench::result> r_;
    std::size_t run_;
    std::uint64_t deadline_;
    std::size_t next_ = 0;
    unsigned running_ = 0;
    bool waiting_ = false, worked_ = false, stopped_ = false;
};

struct step {
    std::string load;
    unsigned jobs = 0;
    bool warmup = false;
    unsigned repeats = 1; // 0: until the deadline
};

// The kernbench script (or the shell running `time make`): for each run, fork make, wait for it, and
// take GNU time's figures over make's process tree.
class kernbench_main final : public copyable_program<kernbench_main> {
public:
    kernbench_main(sim_kernel& k, build_tree tree, std::vector<step> plan, bool pause,
                   std::shared_ptr<kernbench::result> r, double time_limit_s)
        : k_(&k), tree_(std::move(tree)), plan_(std::move(plan)), pause_(pause), r_(std::move(r)),
          time_limit_ns_(static_cast<std::uint64_t>(time_limit_s * 1e9)) {}
    op next(program_context& ctx) override {
        for (;;) {
            switch (phase_) {
            case 0: // the next run
                if (time_limit_ns_ && !deadline_) deadline_ = ctx.now + time_limit_ns_;
                if (step_ == plan_.size() || (deadline_ && ctx.now >= deadline_)) {
                    r_->done = true;
                    return op::exit();
                }
                phase_ = 1;
                if (pause_ && !plan_[step_].warmup) return op::sleep(5 * sec); // sync; sleep 5
                break;
            case 1: {
                phase_ = 2;
                kernbench::run run;
                run.load = plan_[step_].load;
                run.jobs = plan_[step_].jobs;
                run.warmup = plan_[step_].warmup;
                run.start_ns = ctx.now;
                r_->runs.push_back(run);
                first_task_ = k_->tasks().size();
                auto make = std::make_shared<spawn_spec>();
                make->comm = "make";
                make->body =
                    std::make_shared<make_program>(tree_, run.jobs, r_, r_->runs.size() - 1, deadline_);
                return op::fork(std::move(make));
            }
            case 2:
                make_pid_ = static_cast<int>(ctx.result);
                phase_ = 3;
                return op::wait_children();
            case 3: {
                kernbench::run& run = r_->runs.back();
                run.stop_ns = ctx.now;
                run.done = run.objects == tree_.objects->size();
                rusage(run);
                phase_ = 0;
                const step& s = plan_[step_];
                if (s.repeats && ++done_in_step_ >= s.repeats) {
                    ++step_;
                    done_in_step_ = 0;
                }
                break;
            }
            }
        }
    }

private:
    // wait4's rusage of make: make and every descendant it reaped.
    void rusage(kernbench::run& run) const {
        const auto& tasks = k_->tasks();
        const kernel_task* make = nullptr;
        for (std::size_t i = first_task_; i < tasks.size() && !make; ++i)
            if (tasks[i]->t.pid == make_pid_) make = tasks[i].get();
        if (!make) return;
        for (std::size_t i = first_task_; i < tasks.size(); ++i) {
            const kernel_task* t = tasks[i].get();
            const kernel_task* a = t;
            while (a && a != make) a = a->parent;
            if (!a) continue;
            const double busy = static_cast<double>(t->t.se.sum_exec_runtime) / 1e9;
            const double user = static_cast<double>(t->utime) / 1e9;
            run.user_s += user;
            run.sys_s += std::max(0.0, busy - user);
            run.involuntary += t->t.stats.nr_involuntary_switches;
            run.voluntary += t->t.stats.nr_voluntary_switches;
        }
    }

    sim_kernel* k_;
    build_tree tree_;
    std::vector<step> plan_;
    bool pause_;
    std::shared_ptr<kernbench::result> r_;
    std::uint64_t time_limit_ns_, deadline_ = 0;
    std::size_t step_ = 0, first_task_ = 0;
    unsigned done_in_step_ = 0;
    int make_pid_ = 0;
    int phase_ = 0;
};

// A standard normal draw from two uniforms of `rng` (Box-Muller), the same on every standard library.
double normal(std::mt19937_64& rng) {
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) / 9007199254740993.0; // (0, 1]
    const double u2 = static_cast<double>(rng() >> 11) / 9007199254740992.0;         // [0, 1)
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

// GNU time's "%ld.%02ld" seconds (hundredths, truncated).
double hundredths(double s) {
    return std::floor(s * 100.0 + 1e-9) / 100.0;
}

// awk's print of a number: an integral value as an integer, else OFMT ("%.6g").
std::string awk_number(double v) {
    char buf[64];
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

double round6(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    return std::strtod(buf, nullptr);
}

// kernbench's add_data_point / show_statistics over the runs' values.
std::string statistics(const std::vector<double>& values) {
    double sum = 0, sumsq = 0;
    for (double x : values) { // printf "%.6f %.6f %d", $1 + $2, $1 * $1 + $3, $4 + 1
        sum = round6(x + sum);
        sumsq = round6(x * x + sumsq);
    }
    char buf[64];
    switch (values.size()) {
    case 0:
        return "No data";
    case 1:
        std::snprintf(buf, sizeof buf, "%.6f", sum);
        return buf;
    default: {
        const double n = static_cast<double>(values.size());
        const double var = (sumsq - sum * sum / n) / (n - 1);
        return awk_number(sum / n) + " (" + awk_number(std::sqrt(std::max(0.0, var))) + ")";
    }
    }
}

std::string bash_time(double s) { // bash's `time`: 0m12.345s
    const long long ms = static_cast<long long>(std::floor(s * 1000.0 + 1e-9));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%lldm%lld.%03llds", ms / 60000, ms / 1000 % 60, ms % 1000);
    return buf;
}

} // namespace

kernbench::kernbench(const kernbench_options& o, const kernbench_params& p, style s, unsigned make_jobs,
                     std::string command)
    : o_(o), p_(p), style_(s), make_jobs_(make_jobs), command_(std::move(command)) {}

kernbench_params kernbench::read_params(workload_params& params, const std::string& tool) {
    kernbench_params p;
    p.objects = static_cast<unsigned>(params.integer(tool, "objects", p.objects, 1, 10'000'000));
    p.job_instructions_median =
        params.number(tool, "job_instructions_median", p.job_instructions_median, 1, 1e13);
    p.job_instructions_sigma = params.number(tool, "job_instructions_sigma", p.job_instructions_sigma, 0, 4);
    p.cc1_working_set_mib = params.number(tool, "cc1_working_set_mib", p.cc1_working_set_mib, 0, 1 << 20);
    p.cc1_accesses_per_kilo_instruction = params.number(tool, "cc1_accesses_per_kilo_instruction",
                                                        p.cc1_accesses_per_kilo_instruction, 0, 1000);
    p.cc1_write_fraction = params.number(tool, "cc1_write_fraction", p.cc1_write_fraction, 0, 1);
    p.cc1_hot_fraction = params.number(tool, "cc1_hot_fraction", p.cc1_hot_fraction, 0.0001, 1);
    p.cc1_hot_access = params.number(tool, "cc1_hot_access", p.cc1_hot_access, 0, 1);
    p.make_instructions_per_job =
        params.number(tool, "make_instructions_per_job", p.make_instructions_per_job, 0, 1e12);
    return p;
}

std::unique_ptr<kernbench> kernbench::from_kernbench(const std::vector<std::string>& args,
                                                     const std::string& command, workload_params& params) {
    const std::string usage = "Usage:\n"
                              "kernbench [-n runs] [-o jobs] [-s] [-H] [-O] [-M] [-h] [-v]\n"
                              "n : number of times to perform benchmark (default 5)\n"
                              "o : number of jobs for optimal run (default 4 * cpu)\n"
                              "s : perform single threaded runs (default don't)\n"
                              "H : don't perform half load runs (default do)\n"
                              "O : don't perform optimal load runs (default do)\n"
                              "M : don't perform maximal load runs (default do)\n"
                              "f : fast run\n"
                              "h : print this help\n"
                              "v : print version number\n"
                              "warmsched: -j N = -o N -H -M (only the load -j N); -t SECONDS: repeat the "
                              "runs until SECONDS of simulated time have passed";
    kernbench_options o;
    // bash getopts "vsHOMn:o:hfj:t:": grouped flags, a value attached or in the next word.
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() < 2 || a[0] != '-')
            throw usage_error("kernbench: unexpected argument '" + a + "'\n" + usage);
        for (std::size_t j = 1; j < a.size(); ++j) {
            const char c = a[j];
            if (c == 'n' || c == 'o' || c == 'j' || c == 't') { // options with a value
                std::string v;
                if (j + 1 < a.size())
                    v = a.substr(j + 1);
                else if (i + 1 < args.size())
                    v = args[++i];
                else
                    throw usage_error("kernbench: option requires an argument -- " + std::string(1, c) +
                                      "\n" + usage);
                long long n = 0;
                if (c == 't') {
                    char* end = nullptr;
                    const double s = std::strtod(v.c_str(), &end);
                    if (v.empty() || end != v.c_str() + v.size() || !(s > 0 && s <= 1e6))
                        throw usage_error("kernbench: -t " + v + ": expected seconds of simulated time > 0");
                    o.time_limit_s = s;
                } else if (!parse_int(v, c == 'n' ? 0 : 1, 1'000'000, n)) {
                    throw usage_error("kernbench: -" + std::string(1, c) + " " + v +
                                      ": expected a whole number" + (c == 'n' ? "" : " > 0"));
                } else if (c == 'n') {
                    o.runs = static_cast<unsigned>(n);
                    o.runs_given = true;
                } else if (c == 'o') {
                    o.opti_jobs = static_cast<unsigned>(n);
                } else { // -j N: only the load -j N
                    o.opti_jobs = static_cast<unsigned>(n);
                    o.half = o.max = o.single = false;
                    o.opti = true;
                }
                break;
            }
            switch (c) {
            case 's':
                o.single = true;
                break;
            case 'H':
                o.half = false;
                break;
            case 'O':
                o.opti = false;
                break;
            case 'M':
                o.max = false;
                break;
            case 'f':
                o.fast = true;
                break;
            case 'h':
                throw usage_error("kernbench v0.42 by Con Kolivas <kernbench@kolivas.org>\n" + usage);
            case 'v':
                throw usage_error("kernbench Version 0.42 by Con Kolivas <kernbench@kolivas.org>");
            default:
                throw usage_error("kernbench: illegal option -- " + std::string(1, c) + "\n" + usage);
            }
        }
    }
    if (o.runs_given && o.runs < 1) throw usage_error("kernbench: -n 0: Nothing to do; exiting");
    if (!o.single && !o.half && !o.opti && !o.max)
        throw usage_error("kernbench: -H, -O and -M leave no load to run (add -s, or drop one of them)");
    return std::make_unique<kernbench>(o, read_params(params, "kernbench"), style::kernbench, 0, command);
}

std::unique_ptr<kernbench> kernbench::from_make(const std::vector<std::string>& args,
                                                const std::string& command, workload_params& params) {
    const std::string usage = "Usage: [time] make [-j [N]] [--jobs[=N]] (warmsched: one kernel build)";
    unsigned jobs = 1;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string v;
        bool has_value = false;
        if (a == "-j" || a == "--jobs") { // the count is optional: a number in the next word
            jobs = 0;
            long long n = 0;
            if (i + 1 < args.size() && parse_int(args[i + 1], 0, 1'000'000, n)) {
                v = args[++i];
                has_value = true;
            }
        } else if (a.rfind("--jobs=", 0) == 0) {
            v = a.substr(7);
            has_value = true;
        } else if (a.rfind("-j", 0) == 0) {
            v = a.substr(2);
            has_value = true;
        } else {
            throw usage_error("make: warmsched models only -j/--jobs, not '" + a + "'\n" + usage);
        }
        if (has_value) {
            long long n = 0;
            if (!parse_int(v, 1, 1'000'000, n))
                throw usage_error("make: the '-j' option requires a positive integer argument\n" + usage);
            jobs = static_cast<unsigned>(n);
        }
    }
    kernbench_options o;
    o.runs = 1;
    o.fast = true;
    return std::make_unique<kernbench>(o, read_params(params, "make"), style::make, jobs, command);
}

void kernbench::start(sim_kernel& k, const std::vector<bool>& allowed) {
    // The tree: each object's compile size, fixed for the run's seed.
    std::mt19937_64 rng(k.seed() ^ 0x6b65726e62656e63ull); // "kernbenc"
    objects_->clear();
    const double mu = std::log(p_.job_instructions_median);
    for (unsigned i = 0; i < p_.objects; ++i)
        objects_->push_back(std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>(std::exp(mu + p_.job_instructions_sigma * normal(rng)))));
    cc1_->working_set = static_cast<std::uint64_t>(p_.cc1_working_set_mib * 1024 * 1024);
    cc1_->pattern = access_pattern::hot_cold;
    cc1_->accesses_per_kilo_instruction = p_.cc1_accesses_per_kilo_instruction;
    cc1_->write_fraction = p_.cc1_write_fraction;
    cc1_->hot_fraction = p_.cc1_hot_fraction;
    cc1_->hot_access = p_.cc1_hot_access;
    make_->working_set = 8ull << 20; // make's rule database and dependency files (estimate)
    make_->pattern = access_pattern::hot_cold;
    make_->accesses_per_kilo_instruction = 10;
    make_->write_fraction = 0.2;

    result& r = *result_;
    r.cpus = k.machine().num_cpus();
    r.kernel_release =
        k.sched().config().kernel == scheduler::kernel_version::cfs_v5_15 ? "5.15.0" : "6.12.0";
    std::vector<step> plan;
    const unsigned repeats = o_.time_limit_s > 0 ? 0 : o_.runs;
    if (style_ == style::make) {
        plan.push_back({"make", make_jobs_, false, repeats ? 1u : 0u});
    } else {
        auto& pre = r.preamble;
        unsigned runs = o_.runs;
        if (o_.fast && !o_.runs_given) {
            pre.push_back("Dropping to 3 runs for fast run");
            runs = 3;
        }
        if (runs > 10) {
            pre.push_back("Are you crazy? trimming number of runs to 10");
            runs = 10;
        }
        pre.push_back(std::to_string(r.cpus) + " cpus found");
        pre.push_back("Cleaning source tree...");
        if (!o_.fast) pre.push_back("Caching kernel source in ram...");
        pre.push_back("Making oldconfig...");
        unsigned halfjobs = r.cpus / 2;
        const unsigned optijobs = o_.opti_jobs ? o_.opti_jobs : r.cpus * 4;
        bool half = o_.half;
        if (half && halfjobs < 2) {
            pre.push_back("Half load is no greater than single; disabling");
            half = false;
        } else if (half && halfjobs == 2) {
            pre.push_back("Half load is 2 jobs, changing to 3 as a kernel compile won't guarantee 2 jobs");
            halfjobs = 3;
        }
        pre.push_back("Kernel " + r.kernel_release);
        pre.push_back("Performing " + std::to_string(runs) + " runs of");
        if (o_.single) pre.push_back("make");
        if (half) pre.push_back("make -j " + std::to_string(halfjobs));
        if (o_.opti) pre.push_back("make -j " + std::to_string(optijobs));
        if (o_.max) pre.push_back("make -j");
        pre.push_back("");
        pre.push_back("All data logged to kernbench.log");
        if (!o_.fast) {
            pre.push_back("Warmup run...");
            plan.push_back({"Warmup", optijobs, true, 1});
        }
        const unsigned n = repeats ? runs : 0;
        if (o_.single) plan.push_back({"Single threaded", 1, false, n});
        if (half) plan.push_back({"Half load -j " + std::to_string(halfjobs), halfjobs, false, n});
        if (o_.opti) plan.push_back({"Optimal load -j " + std::to_string(optijobs), optijobs, false, n});
        if (o_.max) plan.push_back({"Maximal load -j", 0, false, n});
    }
    build_tree tree{objects_, cc1_, make_, p_.make_instructions_per_job};
    spawn_spec s;
    s.comm = style_ == style::make ? "bash" : "kernbench";
    s.allowed = allowed;
    s.body = std::make_shared<kernbench_main>(
        k, tree, std::move(plan), style_ == style::kernbench && !o_.fast, result_, o_.time_limit_s);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(s, cpu);
}

bool kernbench::finished() const {
    return result_->done;
}

void kernbench::report(std::ostream& out) const {
    const result& r = *result_;
    if (style_ == style::make) {
        for (const run& x : r.runs) {
            if (!x.done) {
                out << "make: (did not finish: " << x.objects << " of " << p_.objects << " objects built)\n";
                continue;
            }
            const double elapsed = static_cast<double>(x.stop_ns - x.start_ns) / 1e9;
            out << "\nreal\t" << bash_time(elapsed) << "\nuser\t" << bash_time(x.user_s) << "\nsys\t"
                << bash_time(x.sys_s) << "\n";
        }
        return;
    }
    for (const auto& line : r.preamble) out << line << "\n";
    // Runs grouped by load, in order; a load's block follows its runs.
    std::size_t i = 0;
    while (i < r.runs.size()) {
        if (r.runs[i].warmup) {
            ++i;
            continue;
        }
        const std::string load = r.runs[i].load;
        std::vector<double> elapsed, user, sys, percent, ctx, sleeps;
        unsigned number = 0;
        for (; i < r.runs.size() && r.runs[i].load == load; ++i) {
            const run& x = r.runs[i];
            out << load << " run number " << ++number << "...\n";
            if (!x.done) continue; // cut off by the run's duration or -t: not measured
            // GNU time -f "%e %U %S %P %c %w", read back by the script.
            const double e = hundredths(static_cast<double>(x.stop_ns - x.start_ns) / 1e9);
            const double u = hundredths(x.user_s), s = hundredths(x.sys_s);
            elapsed.push_back(e);
            user.push_back(u);
            sys.push_back(s);
            // %P: (user + system) x 100 / elapsed, from the millisecond values, truncated.
            const long long ems = static_cast<long long>((x.stop_ns - x.start_ns) / 1'000'000);
            const long long cpu_ms = static_cast<long long>(std::floor((x.user_s + x.sys_s) * 1000));
            percent.push_back(ems > 0 ? static_cast<double>(cpu_ms * 100 / ems) : 0.0);
            ctx.push_back(static_cast<double>(x.involuntary));
            sleeps.push_back(static_cast<double>(x.voluntary));
        }
        out << "Average " << load << " Run (std deviation):\n"
            << "Elapsed Time " << statistics(elapsed) << "\n"
            << "User Time " << statistics(user) << "\n"
            << "System Time " << statistics(sys) << "\n"
            << "Percent CPU " << statistics(percent) << "\n"
            << "Context Switches " << statistics(ctx) << "\n"
            << "Sleeps " << statistics(sleeps) << "\n\n";
    }
}

} // namespace warmsched::workloads
