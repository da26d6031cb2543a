// Provenance of a run; see provenance.h.
#include "sim/provenance.h"

#include "sim/experiment.h"

namespace warmsched::sim {

namespace {
std::string& stored() {
    static std::string line;
    return line;
}
std::string shell_word(const std::string& w) {
    if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                          "_-+=./,:@%^") == std::string::npos)
        return w;
    std::string q = "'";
    for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}
} // namespace

void set_command_line(int argc, char** argv) {
    std::string line = "warmsched";
    for (int i = 1; i < argc; ++i) line += " " + shell_word(argv[i]);
    stored() = line;
}

const std::string& command_line() {
    return stored();
}

nlohmann::ordered_json run_provenance(const experiment& e) {
    nlohmann::ordered_json run;
    run["command_line"] = command_line();
    run["seed"] = e.seed;
    run["platform"] = e.platform.name;
    run["kernel"] = e.kernel.kernel == scheduler::kernel_version::cfs_v5_15 ? "cfs" : "eevdf";
    run["workloads"] = e.workloads;
    return run;
}

} // namespace warmsched::sim
