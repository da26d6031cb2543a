// Workload command lines; see command_line.h.
#include "workloads/cli/command_line.h"

#include "workloads/bench/cyclictest.h"
#include "workloads/bench/fio.h"
#include "workloads/bench/kernbench.h"
#include "workloads/bench/massive_intr.h"
#include "workloads/bench/messaging.h"
#include "workloads/bench/netperf.h"
#include "workloads/bench/schbench.h"
#include "workloads/bench/schbench_2021.h"
#include "workloads/bench/sched_pipe.h"
#include "workloads/bench/tbench.h"
#include "workloads/kernel/pid_max.h"
#include "workloads/rtapp/rt_app.h"

#include <sstream>

namespace warmsched::workloads {

namespace {
std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
    return s;
}
} // namespace

std::vector<std::string> split_command_line(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool in_word = false;
    char quote = 0;
    for (char c : line) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                cur += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) out.push_back(cur);
            cur.clear();
            in_word = false;
        } else {
            cur += c;
            in_word = true;
        }
    }
    if (in_word) out.push_back(cur);
    return out;
}

bool parse_cpu_list(const std::string& text, unsigned ncpus, std::vector<bool>& mask) {
    mask.assign(ncpus, false);
    std::stringstream ss(text);
    std::string part;
    bool any = false;
    while (std::getline(ss, part, ',')) {
        // util-linux's cpulist_parse: N, N-M, or N-M:S (every S-th CPU of the range; S >= 1).
        long long stride = 1;
        if (const std::size_t colon = part.find(':'); colon != std::string::npos) {
            if (part.find('-') > colon || !parse_int(part.substr(colon + 1), 1, ncpus, stride)) return false;
            part.resize(colon);
        }
        const std::size_t dash = part.find('-');
        long long lo = 0, hi = 0;
        if (dash == std::string::npos) {
            if (!parse_int(part, 0, ncpus - 1, lo)) return false;
            hi = lo;
        } else if (!parse_int(part.substr(0, dash), 0, ncpus - 1, lo) ||
                   !parse_int(part.substr(dash + 1), 0, ncpus - 1, hi) || hi < lo) {
            return false;
        }
        for (long long c = lo; c <= hi; c += stride) mask[static_cast<std::size_t>(c)] = true;
        any = true;
    }
    return any;
}

workload_command parse_command_line(const std::vector<std::string>& argv, unsigned ncpus,
                                    workload_params params) {
    workload_command wc;
    std::vector<std::string> a = argv;
    const std::string command = join(argv);
    if (!a.empty() && a[0] == "taskset") {
        const std::string usage = "Usage: taskset -c <cpu-list> <command> [<arg>...]";
        if (a.size() < 4 || a[1] != "-c")
            throw usage_error("taskset: expected -c <cpu-list> and a command\n" + usage);
        if (!parse_cpu_list(a[2], ncpus, wc.allowed))
            throw usage_error("taskset: failed to parse CPU list: " + a[2] + " (this machine has CPUs 0-" +
                              std::to_string(ncpus - 1) + ")\n" + usage);
        a.erase(a.begin(), a.begin() + 3);
    }
    if (!a.empty() && a[0] == "hackbench") {
        wc.w = messaging::from_hackbench({a.begin() + 1, a.end()}, command);
        params.finish("hackbench");
    } else if (a.size() >= 4 && a[0] == "perf" && a[1] == "bench" && a[2] == "sched" && a[3] == "messaging") {
        wc.w = messaging::from_perf({a.begin() + 4, a.end()}, command);
        params.finish("perf bench sched messaging");
    } else if (a.size() >= 4 && a[0] == "perf" && a[1] == "bench" && a[2] == "sched" && a[3] == "pipe") {
        wc.w = sched_pipe::from_perf({a.begin() + 4, a.end()}, command);
        params.finish("perf bench sched pipe");
    } else if (!a.empty() && a[0] == "kernbench") {
        wc.w = kernbench::from_kernbench({a.begin() + 1, a.end()}, command, params);
        params.finish("kernbench");
    } else if (!a.empty() && (a[0] == "make" || (a.size() >= 2 && a[0] == "time" && a[1] == "make"))) {
        const std::size_t skip = a[0] == "time" ? 2 : 1;
        wc.w = kernbench::from_make({a.begin() + static_cast<long>(skip), a.end()}, command, params);
        params.finish("make");
    } else if (!a.empty() && a[0] == "fio") {
        wc.w = fio::from_command_line({a.begin() + 1, a.end()}, command, params);
        params.finish("fio");
    } else if (!a.empty() && a[0] == "schbench") {
        const std::vector<std::string> args(a.begin() + 1, a.end());
        if (schbench_2021::release(args) == 2021)
            wc.w = schbench_2021::from_command_line(args, command);
        else
            wc.w = schbench::from_command_line(args, command, ncpus, params);
        params.finish("schbench");
    } else if (!a.empty() && a[0] == "massive_intr") {
        wc.w = massive_intr::from_command_line({a.begin() + 1, a.end()}, command, params);
        params.finish("massive_intr");
    } else if (!a.empty() && a[0] == "cyclictest") {
        wc.w = cyclictest::from_command_line({a.begin() + 1, a.end()}, command, ncpus, params);
        params.finish("cyclictest");
    } else if (!a.empty() && a[0] == "rt-app") {
        wc.w = rt_app::from_command_line({a.begin() + 1, a.end()}, command, ncpus, params);
        params.finish("rt-app");
    } else if (!a.empty() && a[0] == "netperf") {
        wc.w = netperf::from_command_line({a.begin() + 1, a.end()}, command, ncpus, params);
        params.finish("netperf");
    } else if (!a.empty() && a[0] == "tbench") {
        wc.w = tbench::from_command_line({a.begin() + 1, a.end()}, command, params);
        params.finish("tbench");
    } else {
        throw usage_error("warmsched: unknown workload '" + join(a) +
                          "'; known: hackbench, perf bench sched messaging, perf bench sched pipe, "
                          "schbench, massive_intr, cyclictest, netperf, tbench, rt-app, kernbench, make, fio "
                          "(optionally behind taskset -c CPUS)");
    }
    if (const std::uint64_t n = wc.w->tasks_needed(); n > pid_max(ncpus))
        throw usage_error(a[0] + ": needs " + std::to_string(n) + " tasks, more than the simulated kernel's pid_max of " +
                          std::to_string(pid_max(ncpus)) + " on " + std::to_string(ncpus) +
                          " CPUs (Linux: max(32768, 1024 x CPUs)); the real tool's fork() would fail with EAGAIN");
    wc.params = std::move(params);
    return wc;
}

} // namespace warmsched::workloads
