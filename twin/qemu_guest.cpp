// Running the twin's QEMU guest; see qemu_guest.h.
#include "twin/qemu_guest.h"
#include "base/files/output_file.h"

#include "sim/file_text.h"
#include "twin/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace warmsched::twin {
namespace {

std::string guest_scripts_dir() {
    return (fs::path(WARMSCHED_SOURCE_DIR) / "twin" / "guest").string();
}

std::string runner_binary() {
    return (fs::path(kernels_dir()).parent_path() / "twin_runner").string();
}

std::string last_line(const std::string& text) {
    std::string last;
    std::size_t b = 0;
    while (b < text.size()) {
        std::size_t e = text.find('\n', b);
        if (e == std::string::npos) e = text.size();
        std::string line = text.substr(b, e - b);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (!line.empty()) last = line;
        b = e + 1;
    }
    return last;
}

// Runs argv to completion; throws twin_failure with the log's last line if it fails.
void run_tool(const std::vector<std::string>& argv, const std::string& log_file, const std::string& what) {
    if (run_to_end(argv, log_file) != 0) throw twin_failure(what + " failed: " + last_line_of(log_file));
}

bool on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::istringstream in(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(in, dir, ':'))
        if (!dir.empty() && ::access((fs::path(dir) / name).c_str(), X_OK) == 0) return true;
    return false;
}

} // namespace

guest_times run_guest(const guest_machine& g, const guest_run& r, const guest_options& o,
                      const std::string& twin_dir, std::ostream& log) {
    using clock = std::chrono::steady_clock;
    const std::string qemu = "qemu-system-x86_64";
    if (!on_path(qemu)) throw twin_failure(qemu + " is not installed: run `make deps`");
    if (!fs::is_regular_file(runner_binary()))
        throw twin_failure(runner_binary() + " is missing: build the project (make build)");
    base::make_directories(twin_dir);
    const fs::path work = fs::path(twin_dir) / ".guest";
    fs::remove_all(work);
    base::make_directories((work / "run" / "files").string());

    base::write_file((work / "run" / "setup.sh").string(), r.setup_sh);
    base::write_file((work / "run" / "start.sh").string(), r.start_sh);
    base::write_file((work / "run" / "trace_buffer_kb").string(), std::to_string(o.trace_buffer_kb) + "\n");
    for (const auto& [from, name] : r.inputs) {
        std::error_code ec;
        fs::copy_file(from, work / "run" / "files" / name, fs::copy_options::overwrite_existing, ec);
        if (ec) throw twin_failure("cannot copy " + from + " into the guest: " + ec.message());
    }
    for (const auto& [path, text] : r.files) {
        const fs::path f = work / "run" / path;
        base::make_directories(f.parent_path().string());
        base::write_file(f.string(), text);
    }
    const std::string initrd = (work / "initrd.gz").string();
    std::vector<std::string> pack = {"sh", guest_scripts_dir() + "/make-initramfs.sh", initrd,
                                     runner_binary(), (work / "run").string()};
    pack.insert(pack.end(), r.tools.begin(), r.tools.end());
    run_tool(pack, (work / "initramfs.log").string(), "packing the guest's initramfs");

    const std::string console = (fs::path(twin_dir) / "console.txt").string();
    const std::string results = (work / "results.tgz").string();
    // The loop below reads the console from QEMU's start, before QEMU has opened (and truncated) the
    // file: an earlier boot's console (a hung boot's, or an earlier twin run's into the same directory)
    // would pass for this one's, with its "booted" line and its stall reports.
    fs::remove(console);
    std::vector<std::string> argv = {
        qemu, "-M", "q35", "-accel", "tcg,thread=multi", "-cpu", "max,vendor=GenuineIntel"};
    for (auto& a : qemu_topology_args(g, o.memory_mib)) argv.push_back(a);
    std::string append = "console=ttyS0 quiet panic=-1 sched_verbose schedstats=enable";
    if (!o.kernel.append.empty()) append += " " + o.kernel.append;
    if (!o.append.empty()) append += " " + o.append;
    for (const std::string& a :
         {std::string("-kernel"), o.kernel.image, std::string("-initrd"), initrd, std::string("-append"),
          append, std::string("-nodefaults"), std::string("-display"), std::string("none"),
          std::string("-serial"), "file:" + console, std::string("-serial"), "file:" + results,
          std::string("-no-reboot")})
        argv.push_back(a);
    guest_times t;
    for (const auto& a : argv) t.qemu_command += (t.qemu_command.empty() ? "" : " ") + shell_quote(a);
    base::write_file((fs::path(twin_dir) / "qemu.cmd").string(), t.qemu_command + "\n");

    log << "twin: booting " << o.kernel.package << " on " << g.num_cpus() << " vCPUs (QEMU TCG)\n";
    const auto start = clock::now();
    const pid_t pid = spawn(argv, (work / "qemu.log").string());
    auto seconds = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
    bool booted = false, running = false, ended = false, hung = false;
    // The console grows at least every 10 s once the guest's /init runs (its heartbeat, init.sh).
    constexpr double silence_limit_s = 120;
    std::size_t console_size = 0;
    double console_grew_s = 0;
    int st = 0;
    std::string failure;
    for (;;) {
        const pid_t w = waitpid(pid, &st, WNOHANG);
        const std::string text = sim::file_text(console);
        if (text.size() != console_size) console_size = text.size(), console_grew_s = seconds();
        if (!booted && text.find("TWIN: booted") != std::string::npos) {
            booted = true;
            t.boot_s = seconds();
            log << "twin: guest booted in " << static_cast<int>(t.boot_s) << " s\n";
        }
        if (!running && text.find("TWIN: run start") != std::string::npos) {
            running = true;
            t.run_s = seconds();
        }
        if (running && !ended && text.find("TWIN: run end") != std::string::npos) {
            ended = true;
            t.run_s = seconds() - t.run_s;
            log << "twin: guest ran the workloads in " << static_cast<int>(t.run_s) << " s\n";
        }
        if (const auto p = text.find("Kernel panic"); p != std::string::npos && failure.empty())
            failure = "the guest kernel panicked: " + text.substr(p, text.find('\n', p) - p);
        if (failure.empty() && !ended) {
            unsigned stalls = 0;
            for (const char* what : {"watchdog: BUG: soft lockup", "self-detected stall on CPU"})
                for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++stalls;
            if (stalls >= 3) {
                hung = true;
                failure =
                    "the guest hung (" + std::to_string(stalls) +
                    " soft-lockup and RCU-stall reports on its console: a lost timer interrupt under TCG)";
            } else if (booted && seconds() - console_grew_s > silence_limit_s) {
                hung = true;
                failure = "the guest hung (its console was silent for " +
                          std::to_string(static_cast<int>(silence_limit_s)) +
                          " s, no heartbeat: a lost timer interrupt under TCG)";
            }
        }
        if (w == pid) break;
        if (failure.empty() && !booted && seconds() > o.boot_timeout_s) {
            hung = true; // a boot that stalls is booted again, as a hang after boot is
            failure = "the guest did not boot within " + std::to_string(o.boot_timeout_s) +
                      " s (console: " + (last_line(text).empty() ? "nothing" : last_line(text)) + ")";
        }
        if (failure.empty() && seconds() > o.boot_timeout_s + o.run_timeout_s)
            failure = "the guest did not finish within " +
                      std::to_string(o.boot_timeout_s + o.run_timeout_s) + " s";
        if (!failure.empty()) {
            ::kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    t.total_s = seconds();
    if (hung) throw guest_hang(failure);
    if (!failure.empty()) throw twin_failure(failure);
    const std::string text = sim::file_text(console);
    if (text.find("TWIN: results sent") == std::string::npos) {
        const std::string q = last_line(sim::file_text((work / "qemu.log").string()));
        throw twin_failure(std::string("the guest stopped before sending its results (") +
                           (!q.empty() ? "qemu: " + q : "console: " + last_line(text)) + ")");
    }
    run_tool({"tar", "-xzf", results, "-C", twin_dir}, (work / "tar.log").string(),
             "unpacking the guest's results");
    fs::remove_all(work);
    return t;
}

} // namespace warmsched::twin
