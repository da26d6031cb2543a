// `warmsched twin`; see twin_run.h.
#include "twin/twin_run.h"
#include "base/files/output_file.h"

#include "platforms/config/config_error.h"
#include "sim/file_text.h"
#include "sim/results_dir.h"
#include "twin/child_process.h"
#include "twin/domain_check.h"
#include "twin/guest_kernel.h"
#include "twin/guest_machine.h"
#include "twin/guest_settings.h"
#include "twin/kernel_counters.h"
#include "twin/model_side.h"
#include "twin/qemu_guest.h"
#include "twin/twin_report.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace warmsched::twin {
namespace {

// A file the guest or the model must have written.
std::string read_file(const fs::path& p) {
    if (!fs::is_regular_file(p)) throw twin_failure("missing " + p.string());
    return sim::file_text(p);
}

std::string read_if(const fs::path& p) { return sim::file_text(p); }

// --guest-kprobes: the file's event lines (Documentation/trace/kprobetrace.rst: "p[:[GRP/]EVENT] PROBE
// [ARGS]" or "r[MAXACTIVE][:[GRP/]EVENT] PROBE [ARGS]"), without its comments and blank lines. The guest
// kernel checks the probes themselves; this refuses what cannot be one, before anything is booted.
std::string read_kprobe_events(const std::string& file) {
    std::ifstream in(file);
    if (!in)
        throw config::config_error(config::origin{"<command line>", 0, 0}, "--guest-kprobes",
                                   "cannot read " + file);
    static const std::regex event(
        R"(^[pr][0-9]*(:([A-Za-z_][A-Za-z0-9_]*/)?[A-Za-z_][A-Za-z0-9_]*)? \S+( .*)?$)");
    std::string text, line;
    for (int n = 1; std::getline(in, line); ++n) {
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        if (!std::regex_match(line, event))
            throw config::config_error(
                config::origin{file, n, 1}, "--guest-kprobes",
                "not a kprobe event line (p[:[GROUP/]EVENT] SYMBOL [ARGS] or r[:[GROUP/]EVENT] "
                "SYMBOL [ARGS])");
        text += line + "\n";
    }
    if (text.empty())
        throw config::config_error(config::origin{file, 0, 0}, "--guest-kprobes",
                                   "the file has no kprobe event line");
    return text;
}

// "ctxt N" of /proc/stat.
std::uint64_t ctxt(const std::string& stat) {
    std::istringstream in(stat);
    std::string k;
    std::uint64_t v = 0;
    while (in >> k)
        if (k == "ctxt" && in >> v) return v;
    return 0;
}

schedstat_counters guest_schedstat(const fs::path& dir) {
    // Version 15 and 16 lines carry no level names: take them from debugfs (domains.txt).
    std::map<std::pair<unsigned, unsigned>, std::string> names;
    std::istringstream dom(read_file(dir / "domains.txt"));
    std::string line;
    while (std::getline(dom, line)) {
        std::istringstream ls(line);
        unsigned cpu = 0, index = 0;
        std::string name;
        if (ls >> cpu >> index >> name) names[{cpu, index}] = name;
    }
    auto level_name = [&](unsigned cpu, unsigned index) {
        const auto it = names.find({cpu, index});
        return it == names.end() ? "domain" + std::to_string(index) : it->second;
    };
    try {
        return schedstat_delta(parse_schedstat(read_file(dir / "schedstat.end"), level_name),
                               parse_schedstat(read_file(dir / "schedstat.start"), level_name));
    } catch (const std::runtime_error& e) {
        throw twin_failure("the guest's /proc/schedstat: " + std::string(e.what()));
    }
}

// setup.log lines "feature NAME absent" / "sysctl NAME absent", and features the run changed.
void settings_notes(const fs::path& dir, std::vector<std::string>& notes) {
    std::istringstream log(read_if(dir / "setup.log"));
    std::string kind, name, value, absent_features, absent_sysctls;
    std::string line;
    while (std::getline(log, line)) {
        std::istringstream ls(line);
        if (!(ls >> kind >> name >> value)) continue;
        if (value != "absent") continue;
        (kind == "feature" ? absent_features : absent_sysctls) += " " + name;
    }
    if (!absent_features.empty())
        notes.push_back("model features the guest kernel does not have (it runs without them):" + absent_features);
    if (!absent_sysctls.empty()) notes.push_back("model tunables the guest kernel does not have:" + absent_sysctls);
    auto features = [&](const fs::path& p) {
        std::istringstream in(read_if(p));
        std::string l;
        while (std::getline(in, l))
            if (l.rfind("features ", 0) == 0) {
                std::istringstream ws(l.substr(9));
                std::vector<std::string> v;
                std::string w;
                while (ws >> w) v.push_back(w);
                return v;
            }
        return std::vector<std::string>{};
    };
    const auto before = features(dir / "sched_debug_before.txt"), after = features(dir / "sched_debug.txt");
    std::string changed;
    for (const auto& f : after)
        if (std::find(before.begin(), before.end(), f) == before.end()) changed += " " + f;
    if (!changed.empty()) notes.push_back("guest features set to the model's values (guest default differs):" + changed);
}

} // namespace

int run_twin(const twin_settings& s, std::ostream& out) {
    // The machine: the platform with the user's overrides, scaled to --max-vcpus; the model runs the same.
    std::vector<std::string> overrides = s.overrides;
    sim::experiment first = sim::read_experiment(s.experiment_file, overrides, s.command);
    const scaling sc = scale_overrides(first.platform, s.max_vcpus);
    for (const auto& o : sc.overrides) overrides.push_back("platform." + o);
    overrides.push_back("trace.enabled=true");
    overrides.push_back("trace.formats=ftrace");
    sim::experiment e = sim::read_experiment(s.experiment_file, overrides, s.command);
    if (e.kernel.ext.policy)
        throw config::config_error(config::origin{e.source, 0, 0}, "kernel.policy",
                                   "the twin's guest kernels (Debian 6.1) have no sched_ext to load a policy into; "
                                   "run the policy with warmsched run");
    if (e.warmup_ns)
        throw config::config_error(
            e.warmup_where, "warmup",
            "the twin compares whole runs (the guest's counters cover the tools' run): "
            "give the warm-up to warmsched run");
    const guest_machine g = make_guest_machine(e.platform);
    guest_options o;
    o.kernel = find_guest_kernel(s.guest_kernel, e.kernel.kernel);
    o.memory_mib = std::max<std::uint64_t>(s.memory_mib, 512 * g.node_cpus.size());
    o.boot_timeout_s = s.boot_timeout_s;
    o.run_timeout_s = s.run_timeout_s;
    o.trace_buffer_kb = s.trace_buffer_kb;
    o.append = s.append;
    if (!s.topology_only && e.workloads.empty())
        throw config::config_error(config::origin{e.source, 0, 0}, "workloads",
                                   "the twin runs workloads (give a command after --, or an experiment with "
                                   "workloads:), not the probes");
    const std::string dir = s.out_dir.empty() ? sim::default_results_dir() : s.out_dir;
    // The twin writes into DIR file by file (the guest's twin/, then the model's files): DIR must be absent,
    // empty or a directory warmsched wrote (an earlier twin run's), and never `/`, the current directory,
    // an ancestor of it or a directory holding an input (sim/results_dir.h).
    sim::results_dir::check_usable(dir, true, "--out");
    const fs::path twin_dir = fs::path(dir) / "twin";
    base::make_directories(twin_dir.string());
    sim::write_results_manifest(dir); // DIR is warmsched's from now on, even if the guest never boots

    guest_run r; // what the guest runs: checked before anything is booted
    if (s.topology_only)
        r.start_sh = "true\n";
    else
        r = make_guest_run(e, g);
    if (!s.kprobes_file.empty()) r.files.emplace_back("kprobe_events", read_kprobe_events(s.kprobes_file));
    std::vector<std::string> notes;
    out << "twin: " << e.platform.name << ", " << g.num_cpus() << " CPUs (-smp sockets=" << g.sockets
        << ",dies=" << g.dies << ",cores=" << g.cores << ",threads=" << g.threads << ", "
        << g.node_cpus.size() << " NUMA node" << (g.node_cpus.size() > 1 ? "s" : "") << ")\n";
    if (!sc.description.empty()) {
        out << "twin: " << sc.description << " (the model runs the same machine)\n";
        notes.push_back(sc.description);
    }
    for (const auto& d : g.differences) {
        out << "twin: the guest differs: " << d << "\n";
        notes.push_back("guest differs: " + d);
    }
    out << "twin: guest kernel " << o.kernel.package << "; model "
        << (e.kernel.kernel == scheduler::kernel_version::cfs_v5_15 ? "CFS (Linux v5.15)" : "EEVDF (Linux v6.12)")
        << "\n";

    notes.insert(notes.end(), r.notes.begin(), r.notes.end());
    guest_times times;
    for (unsigned attempt = 0;; ++attempt) {
        try {
            times = run_guest(g, r, o, twin_dir.string(), out);
            break;
        } catch (const guest_hang& h) {
            if (attempt >= s.guest_retries) throw;
            // The hung boot's console stays, for its reports: twin/console.boot1.txt, ...
            const std::string kept = "console.boot" + std::to_string(attempt + 1) + ".txt";
            std::error_code ec;
            fs::rename(twin_dir / "console.txt", twin_dir / kept, ec);
            out << "twin: " << h.what() << "; booting it again\n";
            notes.push_back(std::string("guest boot ") + std::to_string(attempt + 1) + ": " + h.what() +
                            "; booted again" + (ec ? "" : " (its console: twin/" + kept + ")"));
        }
    }

    if (const std::string refused = read_if(twin_dir / "kprobes_refused.txt"); !refused.empty())
        throw twin_failure("the guest kernel refused the kprobe event '" +
                           refused.substr(0, refused.find('\n')) + "' of " + s.kprobes_file +
                           " (tracefs' error_log: twin/kprobes_error_log.txt)");
    topology_comparison topo;
    try {
        topo = compare_topology(twin_dir.string(), e.platform, g, e.kernel.kernel);
    } catch (const std::runtime_error& ex) {
        throw twin_failure(ex.what());
    }
    std::ostringstream topology_text;
    print_topology_comparison(topology_text, topo);
    base::write_file((twin_dir / "topology.txt").string(), topology_text.str());
    if (s.topology_only) {
        sim::write_results_manifest(dir);
        out << topology_text.str() << "results: " << twin_dir.string() << "\n";
        return topo.differences.empty() ? 0 : 1;
    }

    // The model on the same machine and settings, in child processes (one SystemC design per process):
    // as it is, into DIR, then slowed down to the guest's speed, into DIR/dilated.
    std::string model_output;
    // A run writes only into an absent or empty directory (sim/results_dir.h), and DIR already holds
    // twin/: the model's run goes into DIR/.model, whose files then move up into DIR.
    auto run_model = [&](const fs::path& mdir, double k, std::string& output) {
        const bool into_dir = fs::exists(mdir);
        const fs::path run_dir = into_dir ? mdir / ".model" : mdir;
        std::error_code gone;
        if (into_dir) fs::remove_all(run_dir, gone);
        const auto argv = model_run_argv(s.experiment_file, run_dir.string(), overrides, s.command, k);
        const fs::path log = twin_dir / (k == 1.0 ? "model.log" : "model-dilated.log");
        const int rc = run_to_end(argv, log.string());
        output = read_if(log);
        if (rc != 0) throw twin_failure("the model's run failed (" + log.string() + "): " + last_line_of(log.string()));
        if (into_dir) {
            for (const auto& entry : fs::directory_iterator(run_dir)) {
                const fs::path to = mdir / entry.path().filename();
                fs::remove_all(to); // a file of an earlier twin run into DIR
                fs::rename(entry.path(), to);
            }
            fs::remove(run_dir);
            const std::string from = run_dir.string(), to = mdir.string();
            for (std::size_t at; (at = output.find(from)) != std::string::npos;) output.replace(at, from.size(), to);
        }
    };
    auto model_side = [&](const fs::path& mdir, const std::string& output) {
        return read_model_side(e, mdir.string(), output);
    };
    run_model(dir, 1.0, model_output);
    out << "\n--- the model\n" << model_output;

    side_counters real;
    real.sched = guest_schedstat(twin_dir);
    std::string guest_tools;
    std::uint64_t rusage_switches = 0;
    for (std::size_t i = 0; i < e.workloads.size(); ++i) {
        const fs::path w = twin_dir / ("w" + std::to_string(i));
        guest_tools += read_if(w / "stdout");
        const std::string err = read_if(w / "stderr");
        const std::string exit_status = read_if(w / "exit");
        if (exit_status != "0\n" && !e.duration_ns)
            notes.push_back("guest workload " + std::to_string(i) + " exited with " +
                            (exit_status.empty() ? std::string("no status") : exit_status.substr(0, exit_status.size() - 1)) +
                            (err.empty() ? "" : ": " + err.substr(0, err.find('\n'))));
        real.roots.push_back(std::strtol(read_if(w / "pid").c_str(), nullptr, 10));
        std::string name = std::to_string(i);
        if (i < e.workload_groups.size() && e.workload_groups[i] != 0)
            name += " " + e.cgroups.groups[e.workload_groups[i]].path;
        real.workload_names.push_back(name);
        std::istringstream ru(read_if(w / "rusage"));
        std::string k;
        std::uint64_t v;
        while (ru >> k >> v)
            if (k == "nvcsw" || k == "nivcsw") rusage_switches += v;
    }
    real.tool_output = guest_tools;
    try {
        real.trace = parse_trace((twin_dir / "trace.txt").string(), "twin_runner");
    } catch (const std::runtime_error& ex) {
        throw twin_failure(ex.what());
    }
    const side_counters model = model_side(dir, model_output);

    // The dilation: given, or the guest's slowdown measured as the workload's CPU time there over the
    // model's (the same work: the tools do the same operations on both sides).
    double k = s.dilation;
    if (k < 0) {
        const double m = static_cast<double>(model.trace.total().runtime_ns);
        k = m > 0 ? static_cast<double>(real.trace.total().runtime_ns) / m : 1.0;
        k = std::max(1.0, std::round(k));
    }
    std::optional<side_counters> dilated;
    if (k > 1.0) {
        std::string dilated_output;
        run_model(fs::path(dir) / "dilated", k, dilated_output);
        dilated = model_side(fs::path(dir) / "dilated", dilated_output);
        char b[200];
        std::snprintf(b, sizeof b, "model x%.0f: the platform with time_dilation %.0f (%s), in %s/dilated", k, k,
                      s.dilation < 0 ? "the guest's CPU time over the model's for the same work" : "--dilate",
                      dir.c_str());
        notes.push_back(b);
    }

    const auto rows = make_rows(real, model, dilated ? &*dilated : nullptr);
    settings_notes(twin_dir, notes);
    const std::uint64_t ctxt_delta = ctxt(read_if(twin_dir / "stat.end")) - ctxt(read_if(twin_dir / "stat.start"));
    const task_counters rt = real.trace.total();
    notes.push_back("guest consistency: /proc/stat ctxt +" + std::to_string(ctxt_delta) + " >= the workload's " +
                    std::to_string(rt.nvcsw + rt.nivcsw) + " switches in the trace; getrusage of the tools: " +
                    std::to_string(rusage_switches) + " switches");
    std::istringstream ts(read_if(twin_dir / "trace_stats.txt"));
    std::string line;
    std::uint64_t lost = 0;
    while (std::getline(ts, line)) {
        for (const char* key : {"overrun: ", "dropped events: "}) {
            const auto p = line.find(key);
            if (p != std::string::npos) lost += std::strtoull(line.c_str() + p + std::strlen(key), nullptr, 10);
        }
    }
    if (lost) notes.push_back("the guest's trace lost " + std::to_string(lost) + " events (raise --trace-buffer-kb)");
    notes.push_back(topo.differences.empty() ? "sched domains, LLC sharing, NUMA nodes: identical"
                                             : std::to_string(topo.differences.size()) +
                                                   " topology differences (twin/topology.txt): " + topo.differences.front());
    char buf[160];
    std::snprintf(buf, sizeof buf, "guest wall time: boot %.1f s, workloads %.1f s, QEMU in all %.1f s", times.boot_s,
                  times.run_s, times.total_s);
    notes.push_back(buf);

    std::ostringstream table;
    table << "\n--- twin: the real kernel (" << o.kernel.package << ", QEMU TCG) beside the model\n";
    if (!guest_tools.empty()) table << "the real tools printed:\n" << guest_tools;
    print_rows(table, rows, dilated ? k : 0);
    for (const auto& n : notes) table << "note: " << n << "\n";
    out << table.str();
    base::write_file((twin_dir / "comparison.txt").string(), table.str());
    write_rows_json((twin_dir / "comparison.json").string(), rows, dilated ? k : 0, notes);
    sim::write_results_manifest(dir); // every file of both sides
    out << "results: " << dir << " (the model's files), " << twin_dir.string()
        << " (the guest's: schedstat, trace.txt, domains, console.txt, comparison.txt, comparison.json)\n";
    return 0;
}

} // namespace warmsched::twin
