// `warmsched calibrate` on this machine: the file it writes loads as a platform, says for every key the
// decomposition solves that it was measured (or split), gives each figure's median within its min and
// max, and names the machine, the kernel and what stays an estimate; a busy host is refused with one
// line and exit 2. Runs alone (RUN_SERIAL): the figures are the host's. It asserts the file's shape and
// the relations that hold on any host, not the figures of docs/calibration.md.
#include "calibrate/cost_decomposition.h"
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

using namespace warmsched;
namespace fs = std::filesystem;

namespace {

// "12.3ns", "1.5us", "2.1ms", "3.6GHz", "4.1MiB", "35.2GB/s", "61" -> a number in that figure's unit.
double value_of(const std::string& v) {
    double x = std::stod(v);
    if (v.find("us") != std::string::npos) x *= 1e3;
    if (v.find("ms") != std::string::npos) x *= 1e6;
    return x;
}

} // namespace

TEST_CASE("calibrate writes a platform file of this machine with every solved cost and its spread") {
    const fs::path file = test::temp_path("calibrate", "host.yaml");
    const auto r = test::run_cli("calibrate --quick --repeat 2 --max-busy 100 -o " + file.string());
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const std::string y = test::file_text(file);
    // It loads as any platform does (the model runs on it).
    const auto t = test::run_cli("topology --platform " + file.string());
    CHECK(t.status == 0);
    utsname u{};
    ::uname(&u);
    CHECK(y.find("calibration:\n") != std::string::npos);
    CHECK(y.find(std::string("  kernel: \"") + u.release) != std::string::npos);
    CHECK(y.find("  repeats: 2\n") != std::string::npos);
    CHECK(y.find("kernel_costs:\n") != std::string::npos);
    const bool two_cpus = ::sysconf(_SC_NPROCESSORS_ONLN) > 1;
    for (const auto& key : calibrate::solved_cost_keys()) {
        INFO(key);
        if (!two_cpus && (key == "ipi_send" || key == "ipi" || key == "ipi_handler" || key == "idle_exit")) continue;
        // The kernel_costs line, commented with its spread ...
        const std::regex line("\n  " + key + ": [0-9.]+(ns|us|ms) +# (measured|split): median of 2, ");
        CHECK(std::regex_search(y, line));
        // ... and its figure in calibration:, median within min and max.
        const std::regex fig("\\{key: \"kernel_costs\\." + key +
                             "\", status: (measured|solved|split), median: ([0-9.]+\\w+), min: ([0-9.]+\\w+), max: "
                             "([0-9.]+\\w+), from: \"[^\"]+\"\\}");
        std::smatch m;
        REQUIRE(std::regex_search(y, m, fig));
        CHECK(value_of(m[3]) <= value_of(m[2]));
        CHECK(value_of(m[2]) <= value_of(m[4]));
    }
    // The memory figures are measured too, and what no microbenchmark isolates stays an estimate.
    CHECK(std::regex_search(y, std::regex("\n  frequency: [0-9.]+GHz +# measured: median of 2")));
    CHECK(std::regex_search(y, std::regex("\n    latency: [0-9.]+ns +# measured: median of 2")));
    const auto memory = y.find("\nmemory:\n");
    REQUIRE(memory != std::string::npos);
    const auto latency = y.find("\n  latency: ", memory);
    REQUIRE(latency != std::string::npos);
    CHECK(y.substr(latency, y.find('\n', latency + 1) - latency).find("# measured: median of 2") != std::string::npos);
    CHECK(y.find("    - kernel_costs.migrate\n") != std::string::npos);
    CHECK(y.find("\nestimated:\n  - core.base_cpi\n") != std::string::npos); // the platform keys: estimated:
    fs::remove(file);
}

TEST_CASE("calibrate refuses a busy host with one line and exit 2") {
    // Two CPU hogs of this test's own, one per CPU of a 2-CPU host.
    std::vector<pid_t> hogs;
    for (long i = 0; i < ::sysconf(_SC_NPROCESSORS_ONLN) && i < 8; ++i) {
        const pid_t p = ::fork();
        if (p == 0) {
            for (volatile unsigned long x = 0;; ++x) {
            }
        }
        hogs.push_back(p);
    }
    const fs::path file = test::temp_path("calibrate", "busy.yaml");
    const auto r = test::run_cli("calibrate -o " + file.string());
    for (pid_t p : hogs) {
        ::kill(p, SIGKILL);
        ::waitpid(p, nullptr, 0);
    }
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("calibrate: the host is busy: ") != std::string::npos);
    CHECK(r.err.find("% of its CPU time in the last second went to other work (at most 10% for a calibration, "
                     "--max-busy): measure on an idle host") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(file));
}

TEST_CASE("calibrate refuses an output it could not write before it measures anything") {
    for (const auto& [out, says] : std::vector<std::pair<std::string, std::string>>{
             {"/tmp", "-o: /tmp: a directory, not a file"},
             {"/no/such/dir/host.yaml", "-o: /no/such/dir/host.yaml: its directory /no/such/dir does not exist"}}) {
        const auto r = test::run_cli("calibrate -o " + out);
        INFO(r.out << r.err);
        CHECK(r.status == 2);
        CHECK(r.err.find(says) != std::string::npos);
        CHECK(r.out.empty()); // nothing measured
    }
}
