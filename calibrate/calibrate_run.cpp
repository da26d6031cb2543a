// `warmsched calibrate`; see calibrate_run.h.
#include "calibrate/calibrate_run.h"

#include "base/files/output_file.h"
#include "calibrate/cost_decomposition.h"
#include "platforms/config/config_error.h"
#include "platforms/import/platform_import.h"
#include "platforms/import/platform_writer.h"
#include "platforms/platform_catalog.h"
#include "platforms/platform_loader.h"
#include "platforms/topology.h"
#include "sim/file_text.h"
#include "twin/child_process.h"
#include "twin/model_side.h"
#include "twin/qemu_guest.h"
#include "twin/twin_report.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <thread>
#include <tuple>

namespace fs = std::filesystem;

namespace warmsched::calibrate {
namespace {

[[noreturn]] void refuse(const std::string& what) {
    throw config::config_error(config::origin{"<command line>", 0, 0}, "calibrate", what);
}

// user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
std::pair<double, double> cpu_times() {
    std::istringstream in(sim::file_text("/proc/stat"));
    std::string cpu;
    in >> cpu;
    double v[8] = {};
    for (double& x : v) in >> x;
    double total = 0;
    for (double x : v) total += x;
    return {total, total - v[3] - v[4]};
}

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

// A temporary directory for the intermediate platform files and the model's runs; removed at the end.
struct scratch_dir {
    fs::path path;
    scratch_dir() {
        char tmpl[] = "/tmp/warmsched-calibrate-XXXXXX";
        if (!::mkdtemp(tmpl)) throw base::write_error("/tmp/warmsched-calibrate-XXXXXX", errno);
        path = tmpl;
    }
    ~scratch_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Runs the microbenchmark program and returns its figures ("name=value" pairs of its one line).
class microbench {
public:
    explicit microbench(std::string exe, fs::path log) : exe_(std::move(exe)), log_(std::move(log)) {}
    std::map<std::string, double> run(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {exe_};
        argv.insert(argv.end(), args.begin(), args.end());
        const int rc = twin::run_to_end(argv, log_.string());
        const std::string text = sim::file_text(log_);
        std::string cmd;
        for (const auto& a : args) cmd += " " + a;
        if (rc == 3) refuse("cannot pin the measurement programs (" + twin::last_line_of(log_.string()) +
                            "): run it where its CPUs may be chosen (no taskset or cpuset narrower than the machine)");
        if (rc != 0) throw twin::twin_failure("warmsched-microbench" + cmd + " failed: " + twin::last_line_of(log_.string()));
        std::map<std::string, double> m;
        static const std::regex kv(R"(([a-z_]+)=([0-9.eE+-]+))");
        for (auto it = std::sregex_iterator(text.begin(), text.end(), kv); it != std::sregex_iterator(); ++it)
            m[(*it)[1]] = std::stod((*it)[2]);
        return m;
    }

private:
    std::string exe_;
    fs::path log_;
};

std::string time_text(double ns) {
    if (ns >= 1e6) return fmt("%.3fms", ns / 1e6);
    if (ns >= 1e3) return fmt("%.3fus", ns / 1e3);
    return fmt("%.2fns", ns);
}

std::string spread_comment(const spread& s, const std::string& unit_text_min, const std::string& unit_text_max,
                           const std::string& from) {
    return "measured: median of " + std::to_string(s.n) + ", " + unit_text_min + " - " + unit_text_max + "; " + from;
}

struct figure {
    std::string key, status, median, min, max, from;
    std::string estimate; // the estimated table's value it replaces (kernel_costs; "" for the others)
};


// The model's `perf bench sched pipe`: its "usecs/op" and its CPU time (user + system, all tasks) per
// operation, in ns.
std::pair<double, double> model_round_trip_ns(const std::string& platform_file, const std::vector<std::string>& words,
                                              const fs::path& dir, const std::string& tag, double loops) {
    std::vector<std::string> overrides = {"platform=" + platform_file};
    for (const auto& k : solved_cost_keys()) overrides.push_back("platform.kernel_costs." + k + "=0ns");
    sim::command_workload cmd;
    cmd.words = words;
    const fs::path out = dir / ("model-" + tag);
    const std::string log = (dir / ("model-" + tag + ".log")).string();
    const auto argv = twin::model_run_argv(platform::configs_dir() + "/experiments/default.yaml", out.string(),
                                           overrides, cmd);
    const int rc = twin::run_to_end(argv, log);
    if (rc != 0) throw twin::twin_failure("the model's residual run failed (" + tag + "): " + twin::last_line_of(log));
    const std::string text = sim::file_text(log);
    const auto h = twin::find_headline(text);
    if (!h || h->name != "perf bench sched pipe usecs/op")
        throw twin::twin_failure("the model's residual run printed no usecs/op (" + tag + ")");
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(R"(CPU time\s+user ([0-9.]+) s, system ([0-9.]+) s)")))
        throw twin::twin_failure("the model's residual run printed no CPU time (" + tag + ")");
    return {h->value * 1000, (std::stod(m[1]) + std::stod(m[2])) * 1e9 / loops};
}

} // namespace

double host_busy_percent(double seconds) {
    const auto a = cpu_times();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const auto b = cpu_times();
    const double total = b.first - a.first;
    return total > 0 ? 100.0 * (b.second - a.second) / total : 0;
}

int run_calibrate(const calibrate_settings& s, std::ostream& out) {
    const fs::path bin_dir = fs::path(twin::self_exe()).parent_path();
    const std::string exe = (bin_dir / "calibrate" / "warmsched-microbench").string();
    if (!fs::is_regular_file(exe)) throw twin::twin_failure(exe + " is missing: build the project (make build)");
    // The output is checked before a minute of measuring: a directory, or a directory that is not there.
    if (!s.output.empty()) {
        std::error_code ec;
        const fs::path out_path(s.output);
        const fs::path parent = out_path.has_parent_path() ? out_path.parent_path() : fs::path(".");
        if (fs::is_directory(out_path, ec))
            throw config::config_error(config::origin{"<command line>", 0, 0}, "-o",
                                       s.output + ": a directory, not a file");
        if (!fs::is_directory(parent, ec))
            throw config::config_error(config::origin{"<command line>", 0, 0}, "-o",
                                       s.output + ": its directory " + parent.string() + " does not exist");
    }
    const double busy = host_busy_percent(1.0);
    if (busy > s.max_busy_percent)
        refuse("the host is busy: " + fmt("%.0f", busy) + "% of its CPU time in the last second went to other work (at "
               "most " + fmt("%g", s.max_busy_percent) + "% for a calibration, --max-busy): measure on an idle host");
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) refuse("cannot read this process's CPU affinity");
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
        if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
    const std::string A = std::to_string(cpus.at(0));
    const bool two = cpus.size() > 1;
    const std::string AB = two ? A + "," + std::to_string(cpus[1]) : A;

    scratch_dir tmp;
    microbench mb(exe, tmp.path / "microbench.log");
    // The machine as import reads it, with the family's estimates: its caches say where to chase.
    platform::import::import_request req;
    req.name = s.name.empty() ? "this-machine" : s.name;
    const std::string imported = platform::import::import_platform_yaml(req);
    const fs::path first = tmp.path / "imported.yaml";
    base::write_file(first.string(), imported);
    const platform::platform_params p0 = platform::load_platform(first.string());
    const std::size_t levels = p0.caches.size();
    const std::uint64_t llc_size = p0.caches.back().size;
    const std::uint64_t dram_bytes = std::max<std::uint64_t>(8 * llc_size, 256ull << 20);
    // Whether the two CPUs share an LLC or a core (the c2c formula's case).
    const platform::topology topo(p0);
    const unsigned core0 = two ? topo.core_of_cpu(static_cast<unsigned>(cpus[0])) : 0;
    const unsigned core1 = two ? topo.core_of_cpu(static_cast<unsigned>(cpus[1])) : 0;
    const bool same_core = two && core0 == core1;
    const bool same_llc = two && topo.llc_of_core(core0) == topo.llc_of_core(core1);

    const long q = s.quick ? 10 : 1; // the tests' --quick divides the iterations
    host_costs h;
    std::vector<double> ghz, c2c, bw1, bw2, pipe_rt_procs, futex1, futex2;
    std::vector<std::vector<double>> chase(levels + 1);
    std::vector<std::uint64_t> chase_bytes;
    // Private levels at half their size; the LLC just past the level before it (twice its size), since the
    // LLC a virtual machine can use may be much smaller than the one sysfs names; then DRAM.
    for (std::size_t i = 0; i + 1 < levels; ++i)
        chase_bytes.push_back(std::max<std::uint64_t>(p0.caches[i].size / 2, 4096));
    chase_bytes.push_back(2 * p0.caches[levels - 2].size);
    chase_bytes.push_back(dram_bytes);
    // The LLC's effective capacity: a sweep from 4x the level before it to 2x the LLC's size.
    std::vector<std::uint64_t> sweep_bytes;
    for (std::uint64_t f = 4 * p0.caches[levels - 2].size; f <= 2 * llc_size; f *= 2) sweep_bytes.push_back(f);
    std::vector<std::vector<double>> sweep(sweep_bytes.size());
    auto n = [&](long v) { return std::to_string(std::max(1L, v / q)); };
    out << "calibrate: " << s.repeat << " repeats of the microbenchmarks on CPU " << A << (two ? " and " + std::to_string(cpus[1]) : "")
        << " (host busy " << fmt("%.1f", busy) << "% before)\n"
        << std::flush;
    for (unsigned r = 0; r < s.repeat; ++r) {
        ghz.push_back(mb.run({"clock", A, n(100000000)})["ghz"]);
        h.syscall.push_back(mb.run({"syscall", A, n(2000000)})["ns"]);
        auto pipe = mb.run({"pipe", A, n(409600)});
        h.pipe_write.push_back(pipe["write_ns"]);
        h.pipe_read.push_back(pipe["read_ns"]);
        auto unix_ = mb.run({"unix", A, n(64000)});
        h.unix_write.push_back(unix_["write_ns"]);
        h.unix_read.push_back(unix_["read_ns"]);
        h.yield_threads.push_back(mb.run({"yield_threads", A, n(200000)})["ns"]);
        h.yield_procs.push_back(mb.run({"yield_procs", A, n(200000)})["ns"]);
        h.pipe_rt_threads.push_back(mb.run({"pipe_rt", A, n(100000), "threads"})["round_ns"]);
        pipe_rt_procs.push_back(mb.run({"pipe_rt", A, n(100000), "procs"})["round_ns"]);
        auto rt2 = two ? mb.run({"pipe_rt", AB, n(50000), "threads"}) : std::map<std::string, double>{};
        h.pipe_rt_threads_2cpu.push_back(rt2["round_ns"]);
        h.pipe_rt_threads_2cpu_cpu.push_back(rt2["cpu_ns"]);
        futex1.push_back(mb.run({"futex_rt", A, n(100000)})["round_ns"]);
        if (two) futex2.push_back(mb.run({"futex_rt", AB, n(50000)})["round_ns"]);
        auto fork = mb.run({"fork", A, n(3000)});
        h.fork_call.push_back(fork["call_ns"]);
        h.exit_reap.push_back(fork["exit_ns"]);
        h.clone_call.push_back(mb.run({"clone", A, n(10000)})["call_ns"]);
        h.exec.push_back(mb.run({"exec", A, n(1000)})["ns"]);
        for (std::size_t i = 0; i < chase_bytes.size(); ++i)
            chase[i].push_back(
                mb.run({"chase", A, n(i < levels ? 20000000 : 3000000), std::to_string(chase_bytes[i])})["ns"]);
        for (std::size_t i = 0; i < sweep_bytes.size(); ++i)
            sweep[i].push_back(mb.run({"chase", A, n(3000000), std::to_string(sweep_bytes[i])})["ns"]);
        if (two) c2c.push_back(mb.run({"c2c", AB, n(2000000)})["ns"]);
        bw1.push_back(mb.run({"bandwidth", A, std::to_string(s.quick ? 1 : 4), std::to_string(dram_bytes)})["bytes_per_s"]);
        if (two)
            bw2.push_back(mb.run({"bandwidth", AB, std::to_string(s.quick ? 1 : 4), std::to_string(dram_bytes)})["bytes_per_s"]);
        out << "calibrate: repeat " << r + 1 << " of " << s.repeat << " done\n" << std::flush;
    }

    // --- the memory figures
    std::vector<figure> figures;
    std::map<std::string, platform::import::measured_value> measured;
    auto put = [&](const std::string& key, const std::string& status, const std::string& value, const spread& sp,
                   const std::function<std::string(double)>& text, const std::string& from) {
        measured[key] = {value, spread_comment(sp, text(sp.min), text(sp.max), from)};
        figures.push_back({key, status, text(sp.median), text(sp.min), text(sp.max), from, ""});
    };
    auto ghz_text = [](double g) { return fmt("%.3fGHz", g); };
    const spread clock = spread_of(ghz);
    put("core.frequency", "measured", ghz_text(clock.median), clock, ghz_text,
        "a chain of dependent imul (3 cycles each) on a busy core");
    // Cache latencies: a random chase through footprint f over a level of size s below a level of size
    // s_prev hits the level above with probability h = s_prev / f, so the level's own latency is
    // (c(f) - h x latency above) / (1 - h), solved repeat by repeat.
    std::vector<double> cache_ns;
    std::vector<std::vector<double>> level_ns(levels);
    for (std::size_t i = 0; i < levels; ++i)
        for (std::size_t r = 0; r < chase[i].size(); ++r) {
            if (i == 0) {
                level_ns[i].push_back(chase[i][r]);
                continue;
            }
            const double h = std::min(0.9, double(p0.caches[i - 1].size) / double(chase_bytes[i]));
            level_ns[i].push_back((chase[i][r] - h * level_ns[i - 1][r]) / (1 - h));
        }
    for (std::size_t i = 0; i < levels; ++i) {
        spread sp = spread_of(level_ns[i]);
        std::string from = "pointer chase through " + std::to_string(chase_bytes[i] >> 10) + " KiB, random line order";
        if (i > 0)
            from += ", less the share that hits " + p0.caches[i - 1].name + " (" +
                    fmt("%.0f", 100 * std::min(0.9, double(p0.caches[i - 1].size) / double(chase_bytes[i]))) + "%)";
        // Latencies must grow from level to level (the loader's rule).
        if (i > 0 && sp.median <= cache_ns.back()) {
            from += "; measured no slower than the level above, kept 0.01ns above it";
            sp.median = cache_ns.back() + 0.01;
        }
        cache_ns.push_back(sp.median);
        put("caches[" + std::to_string(i) + "].latency", "measured", time_text(sp.median), sp, time_text, from);
    }
    // The LLC's effective capacity C: past it, a chase through f hits the LLC with probability C / f, so
    // c(f) = D - (D - L) C / f, and each footprint on the slope (between 10% and 95% of the way from L to D)
    // gives C = f (D - c(f)) / (D - L). A VM's vCPUs may hold much less of the LLC than sysfs names (the
    // physical LLC is shared with other guests, or the vCPUs sit on several). Written as the LLC's size
    // (the nearest power of two) when it is under two thirds of sysfs's.
    {
        std::vector<double> per_repeat;
        for (std::size_t r = 0; r < chase[levels].size(); ++r) {
            const double L = chase[levels - 1][r], D = chase[levels][r];
            std::vector<double> c;
            for (std::size_t i = 0; i < sweep_bytes.size(); ++i) {
                const double x = sweep[i][r];
                if (D - L > 1 && x > L + 0.1 * (D - L) && x < D - 0.05 * (D - L))
                    c.push_back(double(sweep_bytes[i]) * (D - x) / (D - L));
            }
            if (!c.empty()) per_repeat.push_back(spread_of(c).median);
        }
        const spread cap = spread_of(per_repeat);
        if (cap.n && cap.median < double(llc_size) * 2 / 3) {
            std::uint64_t pow2 = 2 * p0.caches[levels - 2].size;
            while (double(pow2) * std::sqrt(2.0) < cap.median) pow2 *= 2;
            auto mib = [](double b) { return fmt("%.2fMiB", b / double(1 << 20)); };
            std::string sweep_text;
            for (std::size_t i = 0; i < sweep_bytes.size(); ++i)
                sweep_text += (i ? ", " : "") + std::to_string(sweep_bytes[i] >> 20) + " MiB " +
                              time_text(spread_of(sweep[i]).median);
            measured["caches[" + std::to_string(levels - 1) + "].size"] = {
                std::to_string(pow2 >> 20) + "MiB",
                "measured: effective capacity " + mib(cap.median) + " (" + mib(cap.min) + " - " + mib(cap.max) +
                    ") of the " + std::to_string(llc_size >> 20) + "MiB sysfs names; chases " + sweep_text};
            figures.push_back({"caches[" + std::to_string(levels - 1) + "].size", "solved", mib(cap.median),
                               mib(cap.min), mib(cap.max),
                               "effective capacity from a chase sweep (" + sweep_text + "): C = f (D - c(f)) / (D - L)", ""});
        }
    }
    // memory.latency: the host's DRAM chase less the path the model adds (its own probe at the footprint,
    // with memory.latency at the loader's minimum of 10 ns).
    const spread dram = spread_of(chase[levels]);
    double model_path_ns = 0;
    {
        std::vector<std::string> argv = {twin::self_exe(), "probe", "latency", "--platform", first.string(), "--csv",
                                         "--min-footprint", std::to_string(dram_bytes) + "B", "--max-footprint",
                                         std::to_string(dram_bytes) + "B", "-p", "memory.latency=10ns", "-p",
                                         "core.frequency=" + ghz_text(clock.median)};
        for (std::size_t i = 0; i < levels; ++i)
            argv.insert(argv.end(), {"-p", "caches." + std::to_string(i) + ".latency=" + time_text(cache_ns[i])});
        if (const auto m = measured.find("caches[" + std::to_string(levels - 1) + "].size"); m != measured.end())
            argv.insert(argv.end(), {"-p", "caches." + std::to_string(levels - 1) + ".size=" + m->second.text});
        const std::string log = (tmp.path / "probe.log").string();
        if (twin::run_to_end(argv, log) != 0)
            throw twin::twin_failure("the model's latency probe failed: " + twin::last_line_of(log));
        std::istringstream csv(sim::file_text(log));
        std::string line;
        std::getline(csv, line); // header
        if (!std::getline(csv, line)) throw twin::twin_failure("the model's latency probe printed no row");
        model_path_ns = std::stod(line.substr(line.find(',') + 1)) - 10.0;
    }
    {
        std::vector<double> v;
        for (double x : chase[levels]) v.push_back(std::max(10.0, x - model_path_ns));
        const spread sp = spread_of(v);
        put("memory.latency", "solved", time_text(sp.median), sp, time_text,
            "pointer chase through " + std::to_string(dram_bytes >> 20) + " MiB (" + time_text(dram.median) +
                ") less the model's own path to DRAM at that footprint (" + time_text(model_path_ns) + ")");
    }
    // atomic_latency is written in cycles: at the measured clock in the calibrated file.
    const double atomic_ns = p0.core.atomic_latency_ps / 1e3 * p0.core.frequency_hz / (clock.median * 1e9);
    if (two && !c2c.empty()) {
        std::vector<double> v;
        std::string key, from;
        if (same_core) {
            key = "core.atomic_latency";
            for (double x : c2c) v.push_back(std::max(0.0, x - cache_ns[0]));
            from = "a line bounced between CPU " + A + " and its SMT sibling, less the L1 hit";
        } else if (same_llc) {
            key = "caches[" + std::to_string(levels - 1) + "].peer_snoop_latency";
            for (double x : c2c) v.push_back(std::max(0.0, x - atomic_ns - cache_ns[levels - 1]));
            from = "a line bounced between CPUs " + AB + " (one LLC): " + time_text(spread_of(c2c).median) +
                   " one way, less atomic_latency (" + time_text(atomic_ns) + ", an estimate) and the LLC hit";
        }
        if (!key.empty()) {
            const spread sp = spread_of(v);
            put(key, "solved", time_text(sp.median), sp, time_text, from);
        }
    }
    if (!bw1.empty()) {
        const spread one = spread_of(bw1);
        const double dram_ns = dram.median;
        std::vector<double> v;
        for (double b : bw1) v.push_back(std::clamp(std::round(b * dram_ns * 1e-9 / 64.0), double(p0.core.max_outstanding_misses), 512.0));
        const spread sp = spread_of(v);
        auto count_text = [](double x) { return fmt("%.0f", x); };
        put("core.stream_outstanding_misses", "solved", count_text(sp.median), sp, count_text,
            "one core streaming (" + fmt("%.1f", one.median / 1e9) + " GB/s) x the DRAM latency (" + time_text(dram_ns) +
                ") / 64 B (Little's law)");
        if (!bw2.empty()) {
            const spread all = spread_of(bw2);
            auto gbs = [](double x) { return fmt("%.2fGB/s", x / 1e9); };
            const bool saturated = all.median < 1.6 * one.median;
            put("memory.bandwidth", "measured", gbs(all.median), all, gbs,
                std::string("two cores streaming ") + std::to_string(dram_bytes >> 20) + " MiB each" +
                    (saturated ? " (they saturate it: under 1.6x one core's)"
                               : " (a lower bound: two cores did not saturate it)"));
        }
    }

    // The platform with the memory figures measured: the model's residual runs use it.
    req.measured = measured;
    const fs::path second = tmp.path / "memory.yaml";
    base::write_file(second.string(), platform::import::import_platform_yaml(req));
    const platform::platform_params p1 = platform::load_platform(second.string());
    const double l1_ns = p1.caches[0].latency_ps / 1e3;
    model_residuals res;
    // The lines each non-blocking operation touches in the model (workloads/kernel/syscalls/pipe_socket.cpp,
    // cpu_executor.cpp), all L1 hits in a loop: a pipe write or read the lock, the data and the head line;
    // a socket's also the sk_buff header and sk_wmem_alloc; a switch the two tasks' task_struct, their
    // stack lines and the run queue.
    res.pipe_write = res.pipe_read = 3 * l1_ns;
    res.unix_write = res.unix_read = 2 * l1_ns;
    res.yield_switch = 6 * l1_ns;
    out << "calibrate: the model's residuals (perf bench sched pipe with every direct cost at 0)\n" << std::flush;
    res.pipe_rt_threads =
        model_round_trip_ns(second.string(), {"taskset", "-c", A, "perf", "bench", "sched", "pipe", "-T", "-l", "5000"},
                            tmp.path, "pipe-1cpu", 5000)
            .first;
    if (two)
        std::tie(res.pipe_rt_threads_2cpu, res.pipe_rt_threads_2cpu_cpu) = model_round_trip_ns(
            second.string(), {"taskset", "-c", AB, "perf", "bench", "sched", "pipe", "-T", "-l", "5000"}, tmp.path,
            "pipe-2cpu", 5000);
    const auto costs = decompose_costs(h, res, p0.kernel_costs);

    // --- kernel_costs and the calibration section
    std::ostringstream ap;
    ap << "kernel_costs:\n";
    for (const auto& c : costs) {
        if (!two && (c.key == "ipi_send" || c.key == "ipi" || c.key == "ipi_handler" || c.key == "idle_exit"))
            continue; // one CPU: no remote hand-off to measure
        const spread sp = spread_of(c.ns);
        std::string line = "  " + c.key + ": " + time_text(sp.median);
        if (line.size() < 40) line.resize(40, ' ');
        ap << line << "# " << (c.split_estimated ? "split" : "measured") << ": median of " << sp.n << ", "
           << time_text(sp.min) << " - " << time_text(sp.max) << (c.clamped ? " (some repeats solved below 0)" : "")
           << "\n";
        figures.push_back({"kernel_costs." + c.key, c.split_estimated ? "split" : (c.key == "syscall" ? "measured" : "solved"),
                           time_text(sp.median), time_text(sp.min), time_text(sp.max),
                           c.how + (c.clamped ? " (some repeats solved below 0, kept at 0)" : ""),
                           time_text(c.estimate_ns)});
    }
    // Measured and not a kernel_costs key: checks of the model's predictions.
    auto check = [&](const std::string& key, const std::vector<double>& v, const std::string& from) {
        if (v.empty()) return;
        const spread sp = spread_of(v);
        figures.push_back({key, "measured", time_text(sp.median), time_text(sp.min), time_text(sp.max), from, ""});
    };
    check("check.pipe_round_trip_procs_1cpu", pipe_rt_procs, "perf bench sched pipe's loop between two processes on one CPU (a prediction's check, no key)");
    check("check.futex_round_trip_1cpu", futex1, "two threads handing a futex word back and forth on one CPU (no key)");
    check("check.futex_round_trip_2cpu", futex2, "the same on two CPUs (no key)");
    check("check.c2c_one_way", c2c, "a line bounced between CPUs " + AB + ", one way");
    check("check.dram_chase", chase[levels], "the DRAM pointer chase itself");

    utsname u{};
    ::uname(&u);
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    ap << "calibration:\n";
    ap << "  machine: " << platform::import::yaml_quoted(p0.description) << "\n";
    ap << "  kernel: " << platform::import::yaml_quoted(std::string(u.release) + " " + u.version) << "\n";
    ap << "  date: " << platform::import::yaml_quoted(date) << "\n";
    ap << "  repeats: " << s.repeat << "\n";
    ap << "  figures:\n";
    for (const auto& f : figures)
        ap << "    - {key: " << platform::import::yaml_quoted(f.key) << ", status: " << f.status << ", median: " << f.median << ", min: " << f.min
           << ", max: " << f.max << ", from: " << platform::import::yaml_quoted(f.from) << "}\n";
    // The kernel costs that stay estimates (the platform keys that do are the file's estimated: list).
    ap << "  estimates:\n";
    for (const char* k : {"remote_enqueue", "migrate", "io_submit", "io_complete", "acpi_dummy_wait"})
        ap << "    - kernel_costs." << k << "\n";
    if (!two)
        for (const char* k : {"ipi_send", "ipi", "ipi_handler", "idle_exit"}) ap << "    - kernel_costs." << k << "\n";

    req.appendix = ap.str();
    const std::string yaml = platform::import::import_platform_yaml(req); // loads it: the file is checked
    // The summary: each solved cost beside the estimate it replaces.
    out << "calibrate: " << p0.description << "; " << u.release << "\n";
    char b[200];
    std::snprintf(b, sizeof b, "%-34s %12s %25s %12s\n", "figure", "median", "min - max", "estimate");
    out << b;
    for (const auto& f : figures) {
        std::snprintf(b, sizeof b, "%-34s %12s %25s %12s\n", f.key.c_str(), f.median.c_str(),
                      (f.min + " - " + f.max).c_str(), f.estimate.c_str());
        out << b;
    }
    if (s.output.empty()) {
        out << yaml;
    } else {
        base::write_file(s.output, yaml);
        out << "calibrate: wrote " << s.output << "\n";
    }
    return 0;
}

} // namespace warmsched::calibrate
