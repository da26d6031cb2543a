// Runs the warmsched binary of this build (WARMSCHED_BINARY) with a command line, for tests of what the
// CLI prints: stdout, stderr and the exit status. run_cli: a `run --out DIR` starts from no DIR, as on a
// fresh machine (a run refuses a non-empty DIR, and tests keep fixed names under /tmp across ctest
// runs); run_cli_as_is leaves DIR as it is, for tests of what a run does with an existing one.
// run_bench_script runs a script of bench/ with `--build` this build's directory, stdout and stderr in
// `out` together.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace warmsched::test {

// A path in the temporary directory for this test process: warmsched-TAG-PID-NAME.
inline std::filesystem::path temp_path(const std::string& tag, const std::string& name) {
    return std::filesystem::temp_directory_path() /
           ("warmsched-" + tag + "-" + std::to_string(::getpid()) + "-" + name);
}

struct cli_result {
    int status = -1; // exit status (-1: killed by a signal)
    std::string out, err;
};

// A shell command's stdout and exit status.
inline cli_result run_command(const std::string& cmd) {
    cli_result r;
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

inline cli_result run_cli_as_is(const std::string& args) {
    namespace fs = std::filesystem;
    const fs::path err_file = fs::temp_directory_path() / ("warmsched-cli-err-" + std::to_string(::getpid()));
    const std::string cmd = std::string(WARMSCHED_BINARY) + " " + args + " 2>" + err_file.string();
    cli_result r = run_command(cmd);
    std::ifstream e(err_file);
    std::stringstream ss;
    ss << e.rdbuf();
    r.err = ss.str();
    fs::remove(err_file);
    return r;
}

inline cli_result run_cli(const std::string& args) {
    if (args.rfind("run ", 0) == 0) {
        std::istringstream words(args);
        std::error_code ec;
        for (std::string w; words >> w;)
            if (w == "--out" && words >> w) std::filesystem::remove_all(w, ec);
    }
    return run_cli_as_is(args);
}

inline cli_result run_bench_script(const std::string& script, const std::string& args) {
    const std::string build = std::filesystem::path(WARMSCHED_BINARY).parent_path().string();
    const std::string cmd = "bash " + std::string(WARMSCHED_SOURCE_DIR) + "/" + script + " --build " + build + " " +
                            args + " 2>&1";
    return run_command(cmd);
}

} // namespace warmsched::test
