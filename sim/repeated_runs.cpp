// Repeated seeds of one configuration, one forked child per run; see repeated_runs.h.
#include "sim/repeated_runs.h"

#include "platforms/config/config_error.h"
#include "sim/experiment.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace warmsched::sim {

int run_repeated(const std::string& file, const std::vector<std::string>& overrides,
                 const command_workload& command, std::uint64_t first_seed, unsigned repeat,
                 const std::string& out_dir, std::ostream& out) {
    std::vector<experiment> runs;
    for (unsigned i = 0; i < repeat; ++i) {
        std::vector<std::string> o = overrides;
        o.push_back("seed=" + std::to_string(first_seed + i));
        runs.push_back(read_experiment(file, o, command));
    }
    int worst = 0;
    for (const auto& e : runs) {
        out << "=== seed " << e.seed << " ===\n";
        out.flush();
        std::cerr.flush();
        const pid_t pid = ::fork();
        if (pid < 0) throw config::config_error(std::vector<std::string>{"--repeat: fork failed"});
        if (pid == 0) {
            int rc = 1;
            try {
                rc =
                    run_experiment(e, (fs::path(out_dir) / ("seed-" + std::to_string(e.seed))).string(), out);
            } catch (const std::exception& x) {
                std::cerr << "error: " << x.what() << "\n";
                rc = 2;
            }
            out.flush();
            std::cerr.flush();
            ::_exit(rc);
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        worst = std::max(worst, WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
    return worst;
}

} // namespace warmsched::sim
