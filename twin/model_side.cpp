// The model's side of a twin comparison; see model_side.h.
#include "twin/model_side.h"

#include "sim/file_text.h"
#include "twin/child_process.h"
#include "twin/qemu_guest.h"
#include "workloads/kernel/sim_kernel.h"

#include <filesystem>
#include <stdexcept>
#include <string>

namespace fs = std::filesystem;

namespace warmsched::twin {

std::vector<std::string> model_run_argv(const std::string& experiment_file, const std::string& run_dir,
                                        const std::vector<std::string>& overrides,
                                        const sim::command_workload& command, double dilation) {
    std::vector<std::string> argv = {self_exe(), "run", experiment_file, "--out", run_dir};
    for (const auto& ov : overrides) argv.insert(argv.end(), {"-p", ov});
    if (dilation != 1.0) argv.insert(argv.end(), {"-p", "platform.time_dilation=" + std::to_string(dilation)});
    if (!command.cgroup.empty()) argv.insert(argv.end(), {"--cgroup", command.cgroup});
    if (!command.words.empty()) {
        argv.push_back("--");
        argv.insert(argv.end(), command.words.begin(), command.words.end());
    }
    return argv;
}

std::string tool_part(const std::string& model_output) {
    const auto p = model_output.find("\n--- warmsched:");
    return p == std::string::npos ? model_output : model_output.substr(0, p + 1);
}

side_counters read_model_side(const sim::experiment& e, const std::string& dir, const std::string& output) {
    const fs::path mdir(dir);
    auto read_file = [](const fs::path& p) {
        if (!fs::is_regular_file(p)) throw twin_failure("missing " + p.string());
        return sim::file_text(p);
    };
    side_counters m;
    try {
        // Every task is the workload's, but the launcher under LAUNCH_FORK_EXEC: as on the real side, the
        // workload is then what it forked.
        const bool launched = e.kernel.features[scheduler::feature::LAUNCH_FORK_EXEC];
        m.trace = parse_trace((mdir / "trace.txt").string(), launched ? workloads::sim_kernel::launcher_comm : "");
        auto no_names = [](unsigned, unsigned index) { return "domain" + std::to_string(index); };
        m.sched = schedstat_delta(parse_schedstat(read_file(mdir / "schedstat" / "v17-end.txt"), no_names),
                                  parse_schedstat(read_file(mdir / "schedstat" / "v17-start.txt"), no_names));
    } catch (const twin_failure&) {
        throw;
    } catch (const std::runtime_error& ex) {
        throw twin_failure(ex.what());
    }
    m.tool_output = tool_part(output);
    // The model starts the workloads in order, each with a new task: the roots in pid order.
    for (const auto& [pid, c] : m.trace.tasks)
        if (c.root == pid && m.roots.size() < e.workloads.size()) m.roots.push_back(pid);
    return m;
}

} // namespace warmsched::twin
