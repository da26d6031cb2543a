// Running gnuplot; see gnuplot.h.
#include "sim/plots/gnuplot.h"

#include "platforms/config/config_error.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warmsched::sim {
namespace fs = std::filesystem;

namespace {
std::string shell_quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}
[[noreturn]] void fail(const std::string& why) {
    throw config::config_error(std::vector<std::string>{"plot: " + why});
}
} // namespace

std::string find_gnuplot() {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string d; std::getline(dirs, d, ':');) {
        const fs::path p = fs::path(d.empty() ? "." : d) / "gnuplot";
        if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
    return {};
}

std::string gnuplot_quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

void run_gnuplot(const std::string& dir, const std::string& script) {
    const std::string gnuplot = find_gnuplot();
    if (gnuplot.empty()) fail("gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox)");
    const fs::path err = fs::path(dir) / (script + ".log");
    const std::string cmd = "cd " + shell_quoted(dir) + " && " + shell_quoted(gnuplot) + " " +
                            shell_quoted(script) + " >/dev/null 2>" + shell_quoted(err.string());
    const int st = std::system(cmd.c_str());
    if (st == 0) {
        fs::remove(err);
        return;
    }
    std::ifstream in(err);
    std::string first, line;
    while (std::getline(in, line))
        if (!line.empty()) first = line; // gnuplot's last message names the problem
    fail("gnuplot failed on " + (fs::path(dir) / script).string() + ": " + first);
}

} // namespace warmsched::sim
