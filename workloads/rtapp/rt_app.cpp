// rt-app; see rt_app.h.
#include "workloads/rtapp/rt_app.h"
#include "base/files/output_file.h"

#include "workloads/cli/option_parser.h"
#include "workloads/kernel/sim_kernel.h"
#include "workloads/rtapp/rtapp_thread.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace warmsched::workloads {

using namespace rtapp;

namespace {

// rt-app's main(): create the threads, sleep the duration, stop and wake them, join them.
class rtapp_main final : public copyable_program<rtapp_main> {
public:
    explicit rtapp_main(std::shared_ptr<world> w) : w_(std::move(w)) {}
    op next(program_context& ctx) override {
        world& w = *w_;
        for (;;) {
            if (!outbox_.empty()) {
                op o = outbox_.front();
                outbox_.pop_front();
                return o;
            }
            switch (stage_) {
            case 0:
                w.t_start = ctx.now; // the use case's start: rel_st is measured from here
                stage_ = 1;
                break;
            case 1:
                if (created_ < w.cfg.threads) return op::fork(rtapp_thread::spec(w_, created_++, false));
                stage_ = 2;
                break;
            case 2:
                if (w.cfg.global.duration_s > 0)
                    outbox_.push_back(
                        op::sleep(static_cast<scheduler::nsec>(w.cfg.global.duration_s) * 1'000'000'000));
                stage_ = w.cfg.global.duration_s > 0 ? 3 : 4;
                break;
            case 3: // shutdown: continue_running = 0, then wake every thread blocked on a condition
                w.stop = true;
                for (const waiter& v : take_all_waiters(w))
                    outbox_.push_back(op::futex_wake(*v.word, v.token + 1, 1));
                w.stop_woke = true;
                stage_ = 4;
                break;
            case 4: // pthread_join every thread (the forked ones too)
                if (w.live_threads > 0) {
                    outbox_.push_back(op::futex_wait(*w.main_word, w.main_word->value));
                    break;
                }
                w.main_done = true;
                stage_ = 5;
                return op::exit();
            default:
                return op::exit();
            }
        }
    }

private:
    std::shared_ptr<world> w_;
    std::deque<op> outbox_;
    int stage_ = 0, created_ = 0;
};

const char* usage_text = "usage:\n"
                         "rt-app [options] <taskset.json>\n\n"
                         "OPTIONS:\n"
                         "    -h, --help\t\t: show this help\n"
                         "    -l, --log\t\t: set verbosity level (10: ERROR/CRITICAL, 50: NOTICE (default), "
                         "75: INFO, 100: DEBUG)";

const kernel_task* find_task(const sim_kernel& k, int pid) {
    for (const auto& t : k.tasks())
        if (t->t.pid == pid) return t.get();
    return nullptr;
}

} // namespace

rt_app::rt_app(config cfg, const rtapp_params& params, int log_level, std::string command)
    : w_(std::make_shared<world>()), log_level_(log_level), command_(std::move(command)) {
    w_->cfg = std::move(cfg);
    w_->params = params;
}

std::uint64_t rt_app::tasks_needed() const {
    return 1 + static_cast<std::uint64_t>(w_->cfg.threads);
}

std::unique_ptr<rt_app> rt_app::from_command_line(const std::vector<std::string>& args,
                                                  const std::string& command, unsigned ncpus,
                                                  workload_params& params) {
    unsigned level = 50;
    const std::vector<option_spec> specs = {
        {'l', "log", true,
         [&](const std::string& v) {
             long long n = 0;
             if (!parse_int(v, 0, 1000, n)) return std::string("rt-app: invalid log level '" + v + "'");
             level = static_cast<unsigned>(n);
             return std::string();
         }},
        help_option('h', usage_text),
    };
    const auto operands = parse_options("rt-app", args, specs, usage_text);
    if (operands.size() != 1)
        throw usage_error(std::string(operands.empty() ? "rt-app: no taskset file given"
                                                       : "rt-app: more than one taskset file given") +
                          "\n" + usage_text);
    if (operands[0] == "-")
        throw usage_error("rt-app: reading the taskset from stdin ('-') is not supported: give a file");
    rtapp_params p;
    p.instructions_per_loop = static_cast<unsigned>(
        params.integer("rt-app", "instructions_per_loop", p.instructions_per_loop, 1, 1'000'000));
    p.mem_instructions_per_line = static_cast<unsigned>(
        params.integer("rt-app", "mem_instructions_per_line", p.mem_instructions_per_line, 1, 10'000));
    p.memrun_instructions_per_access = static_cast<unsigned>(params.integer(
        "rt-app", "memrun_instructions_per_access", p.memrun_instructions_per_access, 1, 10'000));
    return std::make_unique<rt_app>(read_config(operands[0], ncpus), p, static_cast<int>(level), command);
}

void rt_app::start(sim_kernel& k, const std::vector<bool>& allowed) {
    world& w = *w_;
    init_world(w, k);
    if (w.cfg.global.calib_ns > 0) {
        w.p_load = static_cast<long>(w.cfg.global.calib_ns);
    } else { // rt-app's calibration on an idle core: whole ns per loop, truncated
        const auto& core = k.machine().platform().core;
        const double ns = w.params.instructions_per_loop * core.base_cpi / core.frequency_hz * 1e9;
        w.p_load = std::max(1L, static_cast<long>(std::floor(ns)));
    }
    w.threads.clear();
    for (std::size_t t = 0; t < w.cfg.tasks.size(); ++t)
        for (int i = 0; i < w.cfg.tasks[t].instances; ++i) {
            thread_record r;
            r.task = static_cast<int>(t);
            r.ind = static_cast<int>(w.threads.size());
            r.name = w.cfg.tasks[t].name + "-" + std::to_string(r.ind);
            w.threads.push_back(r);
        }
    w.live_threads = w.cfg.threads;
    spawn_spec s;
    s.comm = "rt-app";
    s.allowed = allowed;
    s.body = std::make_shared<rtapp_main>(w_);
    unsigned cpu = 0;
    while (!allowed.empty() && cpu + 1 < allowed.size() && !allowed[cpu]) ++cpu;
    k.spawn(s, cpu);
}

std::vector<std::pair<std::string, std::string>> rt_app::cgroups_named() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& t : w_->cfg.tasks)
        if (!t.taskgroup.empty())
            out.emplace_back(t.taskgroup, "rt-app: " + w_->cfg.file + ": " + t.taskgroup_path);
    return out;
}

void rt_app::use_cgroups(const scheduler::cgroup_tree& tree) {
    w_->task_groups.clear();
    for (const auto& t : w_->cfg.tasks)
        w_->task_groups.push_back(t.taskgroup.empty() ? 0 : tree.find(t.taskgroup).value_or(0));
}

std::string rt_app::log_file_name(int ind) const {
    return w_->cfg.global.log_basename + "-" + w_->threads[static_cast<std::size_t>(ind)].name + ".log";
}

std::string rt_app::log_file_text(int ind) const {
    std::string text;
    char line[256];
    std::snprintf(line, sizeof line, "%s %8s %8s %8s %15s %15s %15s %10s %10s %10s %10s\n", "#idx", "perf",
                  "run", "period", "start", "end", "rel_st", "slack", "c_duration", "c_period", "wu_lat");
    text += line;
    for (const log_row& r : w_->threads[static_cast<std::size_t>(ind)].rows) {
        std::snprintf(line, sizeof line, "%4d %8lu %8lu %8lu %15llu %15llu %15llu %10ld %10lu %10lu %10lu\n",
                      r.ind, r.perf, r.run, r.period, r.start, r.end, r.rel_start, r.slack, r.c_duration,
                      r.c_period, r.wu_lat);
        text += line;
    }
    return text;
}

std::uint64_t rt_app::expected_end_ns() const {
    return w_->cfg.global.duration_s > 0 ? static_cast<std::uint64_t>(w_->cfg.global.duration_s) * 1'000'000'000 : 0;
}

std::string rt_app::runs_until_stopped() const {
    const rtapp::config& c = w_->cfg;
    if (c.global.duration_s > 0) return {};
    for (const auto& t : c.tasks) {
        if (t.loop == -1)
            return t.path + " loops forever and global.duration is not set (rt-app runs until Ctrl+C)";
        for (const auto& ph : t.phases)
            if (ph.loop == -1)
                return ph.path + " loops forever and global.duration is not set (rt-app runs until Ctrl+C)";
    }
    return {};
}

std::string rt_app::blocked_for_good() const {
    const world& w = *w_;
    if (w.deadlock.empty()) return {};
    char at[48];
    std::snprintf(at, sizeof at, "%.6f", static_cast<double>(w.deadlock_at) / 1e9);
    return "rt-app: " + w.cfg.file + ": every thread is blocked at " + at + " simulated s, for good: " + w.deadlock;
}

void rt_app::write_files(const std::string& dir) const {
    const world& w = *w_;
    if (w.cfg.global.log_disabled) return;
    namespace fs = std::filesystem;
    for (std::size_t i = 0; i < w.threads.size(); ++i)
        base::write_file((fs::path(dir) / log_file_name(static_cast<int>(i))).string(),
                         log_file_text(static_cast<int>(i)));
    if (!w.cfg.global.gnuplot) return;
    // rt-app's gnuplot scripts: one per thread (load, run and period of each phase iteration), and one of
    // every thread's period and run.
    const std::string& base = w.cfg.global.log_basename;
    for (const thread_record& r : w.threads) {
        base::output_file p((fs::path(dir) / (base + "-" + r.name + ".plot")).string());
        p << "set terminal postscript enhanced color\nset output '" << base << "-" << r.name << ".eps'\n"
          << "set grid\nset key outside right\nset title \"Measured " << r.name << " Loop stats\"\n"
          << "set xlabel \"Loop start time [msec]\"\nset ylabel \"Period/Run Time [usec]\"\n"
          << "set y2label \"Load [number of 1000 loops executed]\"\nset y2tics  \nset xtics rotate by "
             "-45\nplot "
          << "\"" << base << "-" << r.name << ".log\" u ($5/1000000):2 w l title \"load \" axes x1y2, "
          << "\"" << base << "-" << r.name << ".log\" u ($5/1000000):3 w l title \"run \", "
          << "\"" << base << "-" << r.name << ".log\" u ($5/1000000):4 w l title \"period \" \n"
          << "set terminal wxt\nreplot\n";
        p.close();
    }
    for (const char* what : {"period", "run"}) {
        base::output_file p((fs::path(dir) / (base + "-" + what + ".plot")).string());
        const bool period = std::string(what) == "period";
        p << "set terminal postscript enhanced color\nset output '" << base << "-" << what << ".eps'\n"
          << "set grid\nset key outside right\nset title \"Measured " << (period ? "time" : "run time")
          << " per loop\"\nset xlabel \"Loop start time [usec]\"\nset ylabel \""
          << (period ? "Period" : "Run")
          << " Time [usec]\"\nset xtics rotate by -45\nset key noenhanced\nplot ";
        for (std::size_t i = 0; i < w.threads.size(); ++i) {
            const thread_record& r = w.threads[i];
            p << "\"" << base << "-" << r.name << ".log\" u ($5/1000):" << (period ? 4 : 3)
              << " w l title \"thread [" << r.name << "] ("
              << policy_name(w.cfg.tasks[static_cast<std::size_t>(r.task)].pol) << ")\""
              << (i + 1 == w.threads.size() ? "\n" : ", ");
        }
        p << "set terminal wxt\nreplot\n";
        p.close();
    }
}

void rt_app::report(std::ostream& out) const {
    const world& w = *w_;
    const global_options& g = w.cfg.global;
    char line[512];
    if (log_level_ >= 50) {
        if (g.calib_ns > 0)
            std::snprintf(line, sizeof line, "[rt-app] <notice> pLoad = %ldns\n", w.p_load);
        else
            std::snprintf(line, sizeof line, "[rt-app] <notice> pLoad = %ldns : calib_cpu %d\n", w.p_load,
                          g.calib_cpu);
        out << line;
        if (g.ftrace != "none")
            out << "[rt-app] <notice> ftrace \"" << g.ftrace
                << "\": rt-app's trace_marker events are not written (the run's scheduler trace is)\n";
    }
    if (log_level_ >= 10)
        for (const std::string& e : w.errors) out << "[rt-app] <error> " << e << "\n";
    // How long it ran: the file's duration, or shorter when the run's own duration stopped it first.
    const scheduler::nsec now = w.k ? w.k->now() : 0;
    char ran[160];
    std::snprintf(ran, sizeof ran, "ran %.6f s", static_cast<double>(now) / 1e9);
    std::string span = ran;
    if (g.duration_s > 0)
        span += w.main_done ? " (duration " + std::to_string(g.duration_s) + " s)"
                            : " of its " + std::to_string(g.duration_s) + " s duration (the run's duration ended it)";
    else if (!w.main_done)
        span += " (the run's duration ended it)";
    std::snprintf(line, sizeof line, "# rt-app: %zu threads of %zu tasks, %s; logs: %s\n", w.threads.size(),
                  w.cfg.tasks.size(), span.c_str(),
                  g.log_disabled ? "disabled (log_size)" : (g.log_basename + "-<thread>.log").c_str());
    out << line;
    std::snprintf(line, sizeof line, "%-20s %7s %-14s %4s %6s %10s %10s %10s %6s %10s %9s %9s %9s\n",
                  "#thread", "pid", "policy", "prio", "loops", "c_run_us", "run_us", "cpu_us", "util%",
                  "period_us", "slack_us", "wu_lat_us", "wu_max_us");
    out << line;
    for (const thread_record& r : w.threads) {
        const task& t = w.cfg.tasks[static_cast<std::size_t>(r.task)];
        unsigned long long c_run = 0, run = 0, wu_max = 0;
        double period = 0, wu = 0;
        long slack_min = 0;
        for (std::size_t i = 0; i < r.rows.size(); ++i) {
            const log_row& x = r.rows[i];
            c_run += x.c_duration;
            run += x.run;
            period += static_cast<double>(x.period);
            wu += static_cast<double>(x.wu_lat);
            wu_max = std::max<unsigned long long>(wu_max, x.wu_lat);
            slack_min = i == 0 ? x.slack : std::min(slack_min, x.slack);
        }
        const double n = r.rows.empty() ? 1.0 : static_cast<double>(r.rows.size());
        double cpu_us = 0, util = 0;
        if (const kernel_task* kt = w.k && r.pid ? find_task(*w.k, r.pid) : nullptr) {
            // As the kernel's task_sched_runtime: a thread on a CPU has run since its exec_start too.
            scheduler::nsec ran = kt->t.se.sum_exec_runtime;
            if (kt->t.on_cpu && now > kt->t.se.exec_start) ran += now - kt->t.se.exec_start;
            cpu_us = static_cast<double>(ran) / 1000.0;
            const scheduler::nsec end = kt->t.state == scheduler::task_state::dead ? kt->exited : now;
            if (end > kt->created) util = 100.0 * cpu_us * 1000.0 / static_cast<double>(end - kt->created);
        }
        std::snprintf(line, sizeof line,
                      "%-20s %7d %-14s %4d %6zu %10llu %10llu %10.0f %6.2f %10.1f %9ld %9.1f %9llu\n",
                      r.name.c_str(), r.pid, policy_name(t.pol), t.priority, r.rows.size(), c_run, run,
                      cpu_us, util, period / n, slack_min, wu / n, wu_max);
        out << line;
    }
}

} // namespace warmsched::workloads
