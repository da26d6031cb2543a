// What a run says of its policy's ejection; see policy_exit_report.h.
#include "sim/policy_exit_report.h"

#include "scheduler/ext/ext_class.h"

#include <cstdio>

namespace warmsched::sim {

using scheduler::ext_exit_info;

namespace {
std::string seconds(scheduler::nsec t) {
    char b[48];
    std::snprintf(b, sizeof b, "%.6f", static_cast<double>(t) / 1e9);
    return b;
}

// "task hackbench[12] on CPU 3, in ops.dispatch" (the parts known).
std::string where(const ext_exit_info& ei) {
    std::string s;
    if (ei.pid >= 0) s += "task " + ei.comm + "[" + std::to_string(ei.pid) + "]";
    if (ei.cpu >= 0) s += std::string(s.empty() ? "" : " ") + "on CPU " + std::to_string(ei.cpu);
    if (!ei.op.empty()) s += std::string(s.empty() ? "" : ", ") + "in ops." + ei.op;
    return s;
}
} // namespace

void add_policy_exit_stats(stats::group& kernel, const scheduler::scheduler& s) {
    if (!s.ext()) return;
    using stats::kind;
    using stats::unit;
    const ext_exit_info& ei = s.policy_exit();
    stats::group& g = kernel.child("ext");
    g.add("ejected", std::uint64_t{ei.ejected}, unit::count,
          "1: the kernel ejected the policy and its tasks ran on under the fair class", kind::level);
    g.add("exitKind", std::uint64_t{static_cast<unsigned>(ei.kind)}, unit::count,
          "why (scx_exit_kind): 0 none, 1024 SCX_EXIT_ERROR, 1025 SCX_EXIT_ERROR_BPF, 1026 SCX_EXIT_ERROR_STALL",
          kind::level);
    if (!ei.failed()) return;
    g.add("exitSeconds", static_cast<double>(ei.at) / 1e9, unit::second,
          "simulated time of the policy's error", kind::level);
    g.add("ejectSeconds", static_cast<double>(ei.ejected_at) / 1e9, unit::second,
          "simulated time its tasks went to the fair class (the disable work)", kind::level);
    g.add("tasksMoved", std::uint64_t{ei.tasks_moved}, unit::count, "tasks moved to the fair class", kind::level);
    if (ei.pid >= 0)
        g.add("exitPid", static_cast<std::uint64_t>(ei.pid), unit::count, "the task the error is about",
              kind::level);
    if (ei.cpu >= 0)
        g.add("exitCpu", static_cast<std::uint64_t>(ei.cpu), unit::count, "the CPU the error is about",
              kind::level);
}

void print_policy_exit(std::ostream& out, const scheduler::scheduler& s) {
    if (!s.ext() || !s.policy_exit().failed()) return;
    const ext_exit_info& ei = s.policy_exit();
    char b[96];
    std::snprintf(b, sizeof b, "%-18s ", "policy");
    out << b << ei.policy << " ejected (" << scheduler::exit_reason(ei.kind) << ", "
        << scheduler::exit_kind_name(ei.kind) << ") at " << seconds(ei.at) << " s";
    if (const std::string w = where(ei); !w.empty()) out << ", " << w;
    out << "\n";
    std::snprintf(b, sizeof b, "%-18s ", "");
    out << b << ei.msg << "\n";
    out << b << "from " << seconds(ei.ejected_at) << " s its tasks ran on under the fair class (" << ei.tasks_moved
        << (ei.tasks_moved == 1 ? " task" : " tasks") << " moved): the figures above are not the policy's alone\n";
}

nlohmann::ordered_json policy_exit_json(const scheduler::scheduler& s) {
    using json = nlohmann::ordered_json;
    if (!s.ext()) return nullptr;
    const ext_exit_info& ei = s.policy_exit();
    json j;
    j["name"] = s.ext()->policy_name();
    j["ejected"] = ei.ejected;
    if (!ei.failed()) return j;
    json x;
    x["kind"] = static_cast<unsigned>(ei.kind);
    x["kindName"] = scheduler::exit_kind_name(ei.kind);
    x["reason"] = scheduler::exit_reason(ei.kind);
    x["msg"] = ei.msg;
    x["seconds"] = static_cast<double>(ei.at) / 1e9;
    x["op"] = ei.op.empty() ? json(nullptr) : json(ei.op);
    x["pid"] = ei.pid >= 0 ? json(ei.pid) : json(nullptr);
    x["comm"] = ei.pid >= 0 ? json(ei.comm) : json(nullptr);
    x["cpu"] = ei.cpu >= 0 ? json(ei.cpu) : json(nullptr);
    x["ejectSeconds"] = static_cast<double>(ei.ejected_at) / 1e9;
    x["tasksMoved"] = ei.tasks_moved;
    j["exit"] = x;
    return j;
}

std::string policy_exit_stderr_line(const scheduler::scheduler& s) {
    if (!s.ext() || !s.policy_exit().failed()) return "";
    const ext_exit_info& ei = s.policy_exit();
    const std::string w = where(ei);
    return "warmsched: " + ei.line() + (w.empty() ? "" : " (" + w + ")") +
           "; its tasks ran on under the fair class to the end of the run (exit status 1)";
}

} // namespace warmsched::sim
