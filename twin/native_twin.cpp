// `warmsched twin --native`; see native_twin.h.
#include "twin/native_twin.h"

#include "base/files/output_file.h"
#include "platforms/config/config_error.h"
#include "platforms/platform_catalog.h"
#include "sim/file_text.h"
#include "sim/results_dir.h"
#include "twin/child_process.h"
#include "twin/kernel_counters.h"
#include "twin/model_side.h"
#include "twin/qemu_guest.h"
#include "twin/tracefs_session.h"
#include "twin/twin_report.h"
#include "workloads/cli/command_line.h"

#include <signal.h>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <map>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace warmsched::twin {
namespace {

[[noreturn]] void refuse(const std::string& key, const std::string& what) {
    throw config::config_error(config::origin{"<command line>", 0, 0}, key, what);
}

bool on_path(const std::string& program) {
    if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
    std::string d;
    while (std::getline(dirs, d, ':'))
        if (!d.empty() && ::access((d + "/" + program).c_str(), X_OK) == 0) return true;
    return false;
}

// The Debian package of each tool the model knows (what `make deps` installs).
std::string package_of(const std::string& tool) {
    if (tool == "hackbench" || tool == "cyclictest") return "rt-tests";
    if (tool == "perf") return "linux-perf";
    if (tool == "tbench" || tool == "tbench_srv") return "dbench";
    if (tool == "schbench") return "none: Debian has no schbench package; build it from its git repository";
    return tool;
}

void alarm_handler(int) {}

// Runs every argv (twin_runner DIR ... -- COMMAND) at once, stdout and stderr into DIR/stdout, and waits
// for all; after `timeout_s` kills them and their commands' process groups. The wait blocks in waitpid
// (a polling parent would wake a CPU the measurement uses). Returns the exit statuses in argv order.
std::vector<int> run_all(const std::vector<std::vector<std::string>>& argvs, unsigned timeout_s, bool& timed_out) {
    struct sigaction sa {}, old {};
    sa.sa_handler = alarm_handler; // no SA_RESTART: waitpid returns EINTR
    sigaction(SIGALRM, &sa, &old);
    std::vector<pid_t> pids;
    static volatile pid_t running[64]; // for a SIGTERM to end them (tracefs_session's handler)
    for (std::size_t i = 0; i < argvs.size(); ++i) {
        pids.push_back(spawn(argvs[i], (fs::path(argvs[i][1]) / "stdout").string()));
        if (i < 64) running[i] = pids.back();
    }
    terminate_on_stop(running, std::min<std::size_t>(pids.size(), 64));
    ::alarm(timeout_s);
    std::vector<int> rcs(argvs.size(), 0);
    timed_out = false;
    for (std::size_t left = pids.size(); left > 0;) {
        int st = 0;
        const pid_t p = waitpid(-1, &st, 0);
        if (p < 0 && errno == EINTR) {
            timed_out = true;
            for (std::size_t i = 0; i < pids.size(); ++i) {
                std::ifstream pf(fs::path(argvs[i][1]) / "pid");
                long group = 0;
                if (pf >> group && group > 0) ::kill(static_cast<pid_t>(-group), SIGKILL);
                ::kill(pids[i], SIGKILL);
            }
            continue;
        }
        if (p < 0) break;
        const auto it = std::find(pids.begin(), pids.end(), p);
        if (it == pids.end()) continue; // not one of the runners
        rcs[static_cast<std::size_t>(it - pids.begin())] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        --left;
    }
    ::alarm(0);
    sigaction(SIGALRM, &old, nullptr);
    terminate_on_stop(nullptr, 0);
    return rcs;
}

// utime_us / stime_us / nvcsw / nivcsw of twin_runner's rusage file.
std::map<std::string, double> read_rusage(const fs::path& p) {
    std::map<std::string, double> m;
    std::istringstream in(sim::file_text(p));
    std::string k;
    double v = 0;
    while (in >> k >> v) m[k] = v;
    return m;
}

std::string kernel_release() {
    utsname u{};
    if (::uname(&u) != 0) return "unknown";
    return std::string(u.release) + " " + u.version;
}

// The host kernel's preemption model, which decides when a wakeup preemption takes effect: debugfs'
// sched/preempt ("none (voluntary) full": the current one in parentheses) where it is readable, else the
// boot log's "Dynamic Preempt: MODE", else what uname says it was built with.
std::string host_preemption() {
    const std::string dbg = sim::file_text("/sys/kernel/debug/sched/preempt");
    const auto open = dbg.find('('), close = dbg.find(')');
    if (open != std::string::npos && close > open)
        return dbg.substr(open + 1, close - open - 1) + " (debugfs sched/preempt)";
    std::string log(1 << 20, '\0');
    const int n = ::klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log.data(), static_cast<int>(log.size()));
    if (n > 0) {
        log.resize(static_cast<std::size_t>(n));
        std::smatch m;
        if (std::regex_search(log, m, std::regex(R"(Dynamic Preempt: ([a-z]+))")))
            return m[1].str() + " (the boot log's Dynamic Preempt)";
    }
    utsname u{};
    if (::uname(&u) == 0) {
        const std::string v = u.version;
        if (v.find("PREEMPT_RT") != std::string::npos) return "rt (uname)";
        if (v.find("PREEMPT_DYNAMIC") != std::string::npos) return "dynamic, mode unknown (uname)";
        if (v.find("PREEMPT") != std::string::npos) return "full (uname)";
    }
    return "unknown";
}

double load_average() {
    std::istringstream in(sim::file_text("/proc/loadavg"));
    double l = 0;
    in >> l;
    return l;
}

} // namespace

std::vector<std::string> command_programs(const std::vector<std::string>& words) {
    std::vector<std::string> progs;
    std::size_t i = 0;
    while (i < words.size()) {
        const std::string& w = words[i];
        progs.push_back(w);
        if (w != "taskset" && w != "chrt" && w != "nice" && w != "time") break;
        ++i;
        // Skip the wrapper's options and their values: taskset [-c] LIST, chrt [-f|-r|-o] PRIO, nice [-n N].
        const bool takes_value = w == "taskset" || w == "chrt";
        bool value_taken = !takes_value;
        while (i < words.size()) {
            const std::string& x = words[i];
            if (x.size() > 1 && x[0] == '-') {
                if (x == "-n" && w == "nice") ++i; // its value
                ++i;
                continue;
            }
            if (!value_taken) {
                value_taken = true;
                ++i;
                continue;
            }
            break;
        }
    }
    return progs;
}

std::vector<std::string> command_with_absolute_files(const std::vector<std::string>& words) {
    std::vector<std::string> v = words;
    for (std::size_t i = 1; i < v.size(); ++i) {
        const fs::path p(v[i]);
        std::error_code ec;
        // Numbers and CPU lists stay as they are, even if a file of that name happens to be here.
        const bool number = v[i].find_first_not_of("0123456789.,:-") == std::string::npos;
        if (v[i].empty() || v[i][0] == '-' || number || p.is_absolute() || !fs::is_regular_file(p, ec)) continue;
        v[i] = fs::absolute(p, ec).lexically_normal().string();
    }
    return v;
}

int run_native_twin(const native_settings& s, std::ostream& out) {
    if (s.command.words.empty() && s.experiment_file.empty())
        refuse("--native", "give the command to run after --, or an experiment file whose workloads are commands");
    if (::geteuid() != 0) // tracefs_session says the same, but only after a calibration of a minute
        refuse("--native", "a native run traces the host's scheduler with tracefs, which needs root (run warmsched as root)");
    // The model must know the command: read it as `run` would, before anything runs natively.
    std::vector<std::string> overrides = s.overrides;
    if (!s.platform_file.empty()) overrides.insert(overrides.begin(), "platform=" + s.platform_file);
    overrides.push_back("trace.enabled=true");
    overrides.push_back("trace.formats=ftrace");
    const std::string experiment_file =
        s.experiment_file.empty() ? platform::configs_dir() + "/experiments/default.yaml" : s.experiment_file;
    // With no platform yet (calibrate comes first), the workloads are checked against the file's platform.
    const sim::experiment checked = sim::read_experiment(experiment_file, overrides, s.command);
    if (checked.workloads.empty())
        refuse("--native", "the experiment has no workloads: a native twin runs commands, not the probes");
    bool tbench = false;
    std::vector<std::vector<std::string>> commands;
    for (std::size_t i = 0; i < checked.workloads.size(); ++i) {
        const std::string key = checked.workloads_from_command_line ? "--" : "workloads." + std::to_string(i);
        if (i < checked.workload_groups.size() && checked.workload_groups[i] != 0)
            refuse(key, "a native twin runs in the host's own cgroups: give the workload no cgroup");
        commands.push_back(command_with_absolute_files(workloads::split_command_line(checked.workloads[i])));
        for (const auto& p : command_programs(commands.back())) {
            if (p == "make")
                refuse(key, "make builds a generated tree in the model and the QEMU twin; a native twin does not "
                            "build on the host");
            if (!on_path(p))
                refuse(key, p + " is not installed on this machine (Debian package: " + package_of(p) +
                                "; `make deps` installs the tools the twin runs)");
            if (p == "tbench") tbench = true;
        }
    }
    if (tbench && !on_path("tbench_srv"))
        refuse("--native", "tbench_srv is not installed on this machine (Debian package: dbench)");
    const std::string runner = (fs::path(self_exe()).parent_path() / "twin" / "twin_runner").string();
    if (!fs::is_regular_file(runner)) throw twin_failure(runner + " is missing: build the project (make build)");

    const std::string dir = s.out_dir.empty() ? sim::default_results_dir("native-") : s.out_dir;
    sim::results_dir::check_usable(dir, true, "--out");
    base::make_directories(dir);
    sim::write_results_manifest(dir);
    std::vector<std::string> notes;

    // The platform: the file given, or calibrate this machine now (in a child, as the model runs).
    std::string platform_file = s.platform_file;
    if (platform_file.empty()) {
        platform_file = (fs::path(dir) / "platform.yaml").string();
        out << "twin --native: calibrating this machine (warmsched calibrate --repeat " << s.calibrate_repeat
            << ", log " << dir << "/calibrate.log)\n"
            << std::flush;
        const std::string log = (fs::path(dir) / "calibrate.log").string();
        const int rc = run_to_end({self_exe(), "calibrate", "-o", platform_file, "--repeat",
                                   std::to_string(s.calibrate_repeat)},
                                  log);
        if (rc == 2) refuse("--native", "calibrate refused: " + last_line_of(log));
        if (rc != 0) throw twin_failure("calibrate failed (" + log + "): " + last_line_of(log));
        overrides.insert(overrides.begin(), "platform=" + platform_file);
        notes.push_back("the model's platform: this machine calibrated now (" + platform_file + ")");
    } else {
        notes.push_back("the model's platform: " + s.platform_file);
    }
    const sim::experiment e = sim::read_experiment(experiment_file, overrides, s.command);

    // The native runs.
    const double load = load_average();
    out << "twin --native: " << kernel_release() << ", load average " << load << "; " << s.repeat
        << " native run" << (s.repeat > 1 ? "s" : "") << " of:";
    for (const auto& c : commands) {
        out << (&c == &commands.front() ? "" : " |");
        for (const auto& w : c) out << " " << w;
    }
    out << "\n" << std::flush;
    if (load > 0.5)
        notes.push_back("the host's load average was " + std::to_string(load).substr(0, 4) +
                        " when the native runs began: a neighbour distorts them");
    std::vector<side_counters> real_runs;
    std::string first_tool_output;
    // tbench's server, as the QEMU twin's guest starts it: outside the workload (not traced as its task).
    pid_t tbench_srv = -1;
    if (tbench) {
        tbench_srv = spawn({"tbench_srv"}, (fs::path(dir) / "tbench_srv.log").string());
        ::sleep(1);
    }
    struct stop_server {
        pid_t pid;
        ~stop_server() {
            if (pid > 0) {
                ::kill(pid, SIGTERM);
                ::waitpid(pid, nullptr, 0);
            }
        }
    } server{tbench_srv};
    {
        tracefs_session trace(s.trace_buffer_kb);
        for (unsigned k = 1; k <= s.repeat; ++k) {
            const fs::path rdir = fs::path(dir) / "native" / ("r" + std::to_string(k));
            // Each repeat runs the commands twice: untraced, for the tools' own figures and their rusage
            // (tracing costs every switch and wakeup its events: perf bench sched pipe on one CPU takes 6.6
            // instead of 5.0 us a round trip here), then traced, for the kernel's counters.
            auto run_once = [&](const fs::path& base, bool traced, std::uint64_t& lost) {
                std::vector<std::vector<std::string>> argvs;
                for (std::size_t i = 0; i < commands.size(); ++i) {
                    const fs::path wdir = commands.size() == 1 ? base : base / ("w" + std::to_string(i));
                    base::make_directories(wdir.string());
                    std::vector<std::string> argv = {runner, wdir.string(), "--cwd", wdir.string()};
                    if (e.duration_ns) argv.insert(argv.end(), {"--duration-ns", std::to_string(e.duration_ns)});
                    argv.push_back("--");
                    argv.insert(argv.end(), commands[i].begin(), commands[i].end());
                    argvs.push_back(argv);
                }
                std::vector<int> rcs;
                bool timed_out = false;
                if (traced)
                    lost = trace.record([&] { rcs = run_all(argvs, s.run_timeout_s, timed_out); },
                                        (base / "trace.txt").string());
                else
                    rcs = run_all(argvs, s.run_timeout_s, timed_out);
                if (timed_out)
                    throw twin_failure("native run " + std::to_string(k) + " took more than " +
                                       std::to_string(s.run_timeout_s) + " s and was killed (" + base.string() + ")");
                for (std::size_t i = 0; i < commands.size(); ++i) {
                    const fs::path wdir = commands.size() == 1 ? base : base / ("w" + std::to_string(i));
                    if (rcs[i] != 0 && !(e.duration_ns && rcs[i] == 128 + SIGKILL))
                        throw twin_failure("native run " + std::to_string(k) + ": " + commands[i][0] +
                                           " exited with " + std::to_string(rcs[i]) + ": " +
                                           last_line_of((wdir / "stdout").string()) + " (" + wdir.string() +
                                           "/stdout)");
                }
            };
            std::uint64_t lost = 0, none = 0;
            run_once(rdir / "untraced", false, none);
            run_once(rdir, true, lost);
            side_counters r;
            r.has_schedstat = false; // this host's kernel: see the note below
            r.user_s = r.system_s = 0;
            double rusage_switches = 0;
            for (std::size_t i = 0; i < commands.size(); ++i) {
                const std::string w = commands.size() == 1 ? "" : "w" + std::to_string(i);
                const fs::path wdir = rdir / w, udir = rdir / "untraced" / w;
                r.tool_output += sim::file_text(udir / "stdout");
                const auto ru = read_rusage(udir / "rusage");
                auto get = [&](const std::map<std::string, double>& m, const char* key) {
                    return m.count(key) ? m.at(key) : 0.0;
                };
                r.user_s += get(ru, "utime_us") / 1e6;
                r.system_s += get(ru, "stime_us") / 1e6;
                const auto tr = read_rusage(wdir / "rusage");
                rusage_switches += get(tr, "nvcsw") + get(tr, "nivcsw");
                r.roots.push_back(std::strtol(sim::file_text(wdir / "pid").c_str(), nullptr, 10));
                r.workload_names.push_back(std::to_string(i) + " " + commands[i][0]);
            }
            if (lost)
                notes.push_back("native run " + std::to_string(k) + ": tracefs lost " + std::to_string(lost) +
                                " events (raise --trace-buffer-kb)");
            try {
                r.trace = parse_trace((rdir / "trace.txt").string(), "twin_runner");
            } catch (const std::runtime_error& ex) {
                throw twin_failure(ex.what());
            }
            const task_counters t = r.trace.total();
            char b[300];
            std::snprintf(b, sizeof b,
                          "native run %u: %zu tasks, %llu switches in the trace, getrusage of the command %.0f; "
                          "untraced: user %.3f s, system %.3f s",
                          k, r.trace.tasks.size(), static_cast<unsigned long long>(t.nvcsw + t.nivcsw), rusage_switches,
                          r.user_s, r.system_s);
            notes.push_back(b);
            if (k == 1) first_tool_output = r.tool_output;
            real_runs.push_back(std::move(r));
            out << "twin --native: run " << k << " done\n" << std::flush;
        }
    }
    notes.push_back("this kernel's preemption: " + host_preemption() +
                    "; the model takes a preemption between a task's operations (at the end of a system call), "
                    "which is preempt=none's return to user for the paths the tools take (issue 44)");
    if (!fs::exists("/proc/schedstat"))
        notes.push_back("this kernel has no /proc/schedstat (CONFIG_SCHEDSTATS off): the schedstat rows are left out");

    // The model, once: it is deterministic for a seed.
    const fs::path mdir = fs::path(dir) / "model";
    const std::string log = (fs::path(dir) / "model.log").string();
    const int rc = run_to_end(model_run_argv(experiment_file, mdir.string(), overrides, s.command), log);
    const std::string model_output = sim::file_text(log);
    if (rc == 2) refuse("--native", "the model refused the command: " + last_line_of(log));
    if (rc != 0) throw twin_failure("the model's run failed (" + log + "): " + last_line_of(log));
    side_counters model = read_model_side(e, mdir.string(), model_output);
    std::smatch m;
    if (std::regex_search(model_output, m, std::regex(R"(CPU time\s+user ([0-9.]+) s, system ([0-9.]+) s)"))) {
        model.user_s = std::stod(m[1]);
        model.system_s = std::stod(m[2]);
    }
    out << "\n--- the model\n" << model_output;

    const auto rows = make_repeat_rows(real_runs, model);
    std::ostringstream table;
    table << "\n--- twin --native: this machine's kernel (" << kernel_release() << ") beside the model, " << s.repeat
          << " native run" << (s.repeat > 1 ? "s" : "") << "\n";
    table << "the real tool printed (run 1, untraced):\n" << first_tool_output;
    print_rows(table, rows, 0);
    for (const auto& n : notes) table << "note: " << n << "\n";
    out << table.str();
    base::write_file((fs::path(dir) / "comparison.txt").string(), table.str());
    write_rows_json((fs::path(dir) / "comparison.json").string(), rows, 0, notes);
    sim::write_results_manifest(dir);
    out << "results: " << dir << " (native/rK: each traced native run's output, rusage and trace, and "
           "native/rK/untraced the untraced one's; model/: the model's run)\n";
    return 0;
}

} // namespace warmsched::twin
