// warmsched command line: platforms, topology, import, probe, run. User errors (bad configuration, bad options)
// print one line each and exit with status 2; nothing a user types should crash the program.
#include "base/files/output_file.h"
#include "models/common/run_simulation.h"
#include "models/system/machine.h"
#include "platforms/config/config_error.h"
#include "platforms/import/platform_import.h"
#include "platforms/platform_catalog.h"
#include "platforms/platform_loader.h"
#include "sim/compare/compare_table.h"
#include "sim/experiment.h"
#include "sim/plots/run_plots.h"
#include "sim/probe_suite.h"
#include "sim/provenance.h"
#include "sim/repeated_runs.h"
#include "sim/sweep/local_executor.h"
#include "sim/sweep/run_one.h"
#include "sim/sweep/slurm_executor.h"
#include "sim/sweep/sweep_compare.h"
#include "sim/sweep/sweep_session.h"
#include "sim/topology_report.h"
#include "sim/tutorials/tutorial_runner.h"
#include "twin/guest_settings.h"
#include "twin/qemu_guest.h"
#include "twin/native_twin.h"
#include "twin/twin_run.h"
#include "calibrate/calibrate_run.h"
#include "workloads/cli/option_parser.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <systemc>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

using namespace warmsched;

namespace {

int list_platforms() {
    for (const auto& name : platform::shipped_platforms()) {
        try {
            sim::print_platform_line(std::cout, platform::load_platform(name));
        } catch (const config::config_error& e) {
            std::cout << name << "  (invalid: " << e.lines().front() << ")\n";
        }
    }
    return 0;
}

struct probe_cli {
    std::string kind, platform, cpus, pairs, out_dir;
    std::vector<std::string> overrides;
    bool csv = false, summary = false;
    unsigned cpu = 0, sample = 0, round_trips = 100;
    long from = -1, to = -1;
    std::string min_footprint = "4KiB", max_footprint = "1GiB", ws = "1MiB", bytes = "16MiB";
    double write_fraction = 0.25;
    std::uint64_t seed = 1;
    unsigned set_sampling = 1;
};

// A size option of at least `min` bytes (the same minimum as the experiment file's key; probe_suite.cpp).
std::uint64_t cli_size(const std::string& text, const std::string& option, std::uint64_t min) {
    std::string why;
    auto v = config::parse_size(text, why);
    if (!v) throw config::config_error(config::origin{"<command line>", 0, 0}, option, why);
    if (*v < min)
        throw config::config_error(config::origin{"<command line>", 0, 0}, option,
                                   "'" + text + "' is smaller than the minimum " + config::format_size(min) +
                                       " (nothing would be measured)");
    return *v;
}

// Every option that takes a value refuses an empty one: `--seed ""` or `-o ''` (an unset shell
// variable) is a mistake, not a request for the default.
void refuse_empty_values(CLI::App& app) {
    const CLI::Validator not_empty(
        [](std::string& v) {
            return v.empty() ? std::string("an empty value (leave the option out for its default)") : std::string();
        },
        "", "NOT_EMPTY");
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        for (CLI::Option* o : sub->get_options())
            if (o->get_type_size_max() > 0) o->check(not_empty);
}

int run_probe(const probe_cli& c) {
    platform::platform_params p = platform::load_platform(c.platform, c.overrides);
    platform::topology t(p);
    const unsigned n = t.num_cpus();
    auto check_cpu = [&](long cpu, const char* opt) {
        if (cpu < 0 || cpu >= static_cast<long>(n))
            throw config::config_error(config::origin{"<command line>", 0, 0}, opt,
                                       std::to_string(cpu) + " is not a CPU of " + p.name + " (0-" +
                                           std::to_string(n - 1) + ")");
    };
    sim::probe_suite_settings s;
    s.seed = c.seed;
    if (c.kind == "latency") {
        check_cpu(c.cpu, "--cpu");
        sim::latency_settings l;
        l.cpu = c.cpu;
        l.min_footprint = cli_size(c.min_footprint, "--min-footprint", 64);
        l.max_footprint = cli_size(c.max_footprint, "--max-footprint", 64);
        if (const std::string why = sim::probe_size_problem(p, l.max_footprint); !why.empty())
            throw config::config_error(config::origin{"<command line>", 0, 0}, "--max-footprint", why);
        s.latency = l;
    } else if (c.kind == "c2c") {
        sim::c2c_settings k;
        if (!c.pairs.empty() && !c.cpus.empty())
            throw config::config_error(config::origin{"<command line>", 0, 0}, "--pairs/--cpus",
                                       "give one of them: --pairs lists pairs, --cpus measures all pairs of a set");
        if (!c.pairs.empty()) k.pairs = sim::parse_pairs(c.pairs, n);
        if (!c.cpus.empty()) {
            const std::vector<unsigned> set = sim::parse_cpulist(c.cpus, n, "--cpus");
            for (std::size_t i = 0; i < set.size(); ++i)
                for (std::size_t j = i + 1; j < set.size(); ++j) k.pairs.emplace_back(set[i], set[j]);
            if (k.pairs.empty())
                throw config::config_error(config::origin{"<command line>", 0, 0}, "--cpus",
                                           "c2c needs at least two CPUs, got " + c.cpus);
        }
        k.sample = c.sample;
        if (c.round_trips < 1 || c.round_trips > (1u << 20))
            throw config::config_error(config::origin{"<command line>", 0, 0}, "--round-trips",
                                       "must be 1 to 1048576 (the latency is the time of the round trips over "
                                       "their number), got " + std::to_string(c.round_trips));
        k.round_trips = c.round_trips;
        k.summary_only = c.summary;
        s.c2c = k;
    } else if (c.kind == "bandwidth") {
        sim::bandwidth_settings b;
        if (!c.cpus.empty()) b.cpus = sim::parse_cpulist(c.cpus, n, "--cpus");
        b.bytes_per_cpu = cli_size(c.bytes, "--bytes", 4096);
        s.bandwidth = b;
    } else {
        sim::migrate_settings m;
        m.working_set = cli_size(c.ws, "--ws", 64);
        if (const std::string why = sim::probe_size_problem(p, m.working_set); !why.empty())
            throw config::config_error(config::origin{"<command line>", 0, 0}, "--ws", why);
        m.write_fraction = c.write_fraction;
        if ((c.from >= 0) != (c.to >= 0))
            throw config::config_error(config::origin{"<command line>", 0, 0}, "--from/--to",
                                       "give both or neither");
        if (c.from >= 0) {
            check_cpu(c.from, "--from");
            check_cpu(c.to, "--to");
            if (c.from == c.to)
                throw config::config_error(config::origin{"<command line>", 0, 0}, "--from/--to",
                                           "CPU " + std::to_string(c.from) +
                                               " twice: a migration moves the task to another CPU");
            m.from = static_cast<unsigned>(c.from);
            m.to = static_cast<unsigned>(c.to);
        }
        s.migrate = m;
    }
    models::machine_options mo;
    mo.seed = c.seed;
    mo.set_sampling = c.set_sampling;
    if (const std::string why = platform::set_sampling_problem(p, c.set_sampling); !why.empty())
        throw config::config_error(config::origin{"<command line>", 0, 0}, "--set-sampling", why);
    models::machine m("system", p, mo);
    sim::probe_suite suite(m, s);
    suite.start();
    models::run_simulation();
    if (c.csv)
        suite.report_csv(c.kind, std::cout);
    else
        suite.report(std::cout);
    return 0;
}

// The overrides that --platform, --kernel, --feature, --sysctl and --seed stand for (run and twin).
std::vector<std::string> run_overrides_of(const std::string& platform, const std::string& kernel,
                                          const std::vector<std::string>& features,
                                          const std::vector<std::string>& sysctls,
                                          const std::optional<std::uint64_t>& seed) {
    std::vector<std::string> o;
    if (!platform.empty()) o.push_back("platform=" + platform);
    if (!kernel.empty()) o.push_back("kernel.version=" + kernel);
    for (const auto& f : features) {
        if (f.find('=') == std::string::npos)
            throw config::config_error(config::origin{"<command line>", 0, 0}, "--feature",
                                       "expected NAME=on|off, got '" + f + "'");
        o.push_back("kernel.features." + f);
    }
    for (const auto& s : sysctls) {
        if (s.find('=') == std::string::npos)
            throw config::config_error(config::origin{"<command line>", 0, 0}, "--sysctl",
                                       "expected name=value, got '" + s + "'");
        o.push_back("kernel.sysctl." + s);
    }
    if (seed) o.push_back("seed=" + std::to_string(*seed));
    return o;
}

} // namespace

int sc_main(int argc_all, char* argv_all[]) {
    sim::set_command_line(argc_all, argv_all);
    // Everything after "--" is the workload command line, written as the real tool is invoked.
    sim::command_workload command;
    int argc = argc_all;
    bool bare_dashes = false; // "--" with nothing after it
    for (int i = 1; i < argc_all; ++i)
        if (std::string(argv_all[i]) == "--") {
            argc = i;
            command.words.assign(argv_all + i + 1, argv_all + argc_all);
            bare_dashes = command.words.empty();
            break;
        }
    char** argv = argv_all;
    CLI::App app{"warmsched: a SystemC model of multi-core machines with a Linux-faithful scheduler on top"};
    app.require_subcommand(1);

    auto* platforms = app.add_subcommand("platforms", "List the shipped platforms");

    std::string topo_platform, topo_kernel = "eevdf";
    std::vector<std::string> topo_overrides;
    auto* topology =
        app.add_subcommand("topology", "Print a platform's machine tree, NUMA distances and sched domains");
    topology->add_option("platform,--platform", topo_platform,
                         "Shipped platform name, path to a platform YAML file, or an hwloc XML (imported)")
        ->required();
    topology->add_option("-p,--param", topo_overrides, "Override a platform key: dotted.key=value");
    topology
        ->add_option("--kernel", topo_kernel,
                     "Sched domains of cfs (Linux v5.15) or eevdf (v6.12, the default)")
        ->check(CLI::IsMember({"cfs", "eevdf"}));

    std::string import_input, import_from, import_output, import_name;
    auto* import_cmd = app.add_subcommand(
        "import", "Write a platform YAML file for a real machine: an hwloc XML (lstopo --of xml), a sysfs root "
                  "directory or lscpu JSON (lscpu -J); with no input, this machine. Topology, SMT, caches and "
                  "NUMA nodes are read; latencies and bandwidths come from the nearest shipped platform, each "
                  "marked # est: (docs/platforms.md, \"Import your own machine\")");
    import_cmd->add_option("input", import_input,
                           "hwloc XML file, sysfs root directory, lscpu JSON file, or - for standard input "
                           "(default: this machine's /sys)");
    import_cmd->add_option("--from", import_from, "hwloc, sysfs or lscpu (default: told by the input)")
        ->check(CLI::IsMember({"hwloc", "sysfs", "lscpu"}));
    import_cmd->add_option("-o,--output", import_output, "Write the platform to this file (default: stdout)");
    import_cmd->add_option("--name", import_name,
                           "The platform's name (default: the input's file name, or this-machine)");

    probe_cli pc;
    auto* probe = app.add_subcommand("probe", "Run a hardware probe on a platform");
    probe->add_option("kind", pc.kind, "latency | c2c | bandwidth | migrate")
        ->required()
        ->check(CLI::IsMember({"latency", "c2c", "bandwidth", "migrate"}));
    probe->add_option("--platform", pc.platform, "Shipped platform name or path")->required();
    probe->add_option("-p,--param", pc.overrides, "Override a platform key: dotted.key=value");
    probe->add_flag("--csv", pc.csv, "Print CSV: a header line and one row per measurement");
    probe->add_option("--seed", pc.seed, "Seed of every random choice");
    probe->add_option("--set-sampling", pc.set_sampling,
                      "Simulate 1 in N cache sets (N a power of two; default 1 = exact)");
    probe->add_option("--cpu", pc.cpu, "latency: CPU running the pointer chase");
    probe->add_option("--min-footprint", pc.min_footprint, "latency: smallest footprint (default 4KiB)");
    probe->add_option("--max-footprint", pc.max_footprint, "latency: largest footprint (default 1GiB)");
    probe->add_option("--pairs", pc.pairs, "c2c: CPU pairs, e.g. 0:1,0:16 (default: all pairs)");
    probe->add_option("--sample", pc.sample, "c2c: measure this many pairs drawn from all pairs");
    probe->add_option("--round-trips", pc.round_trips, "c2c: round trips per line (default 100)");
    probe->add_flag("--summary", pc.summary, "c2c: print only the summary by relation");
    probe->add_option("--cpus", pc.cpus,
                      "bandwidth: CPUs streaming at once, e.g. 0-7 (default: standard sets); c2c: measure "
                      "every pair of these CPUs, e.g. 0-15 (the matrix of a heat map)");
    probe->add_option("--bytes", pc.bytes, "bandwidth: bytes streamed per CPU (default 16MiB)");
    probe->add_option("--ws", pc.ws, "migrate: working-set size (default 1MiB)");
    probe->add_option("--write-fraction", pc.write_fraction, "migrate: fraction of accesses that are stores")
        ->check(CLI::Range(0.0, 1.0));
    probe->add_option("--from", pc.from, "migrate: CPU the task warms up on");
    probe->add_option("--to", pc.to, "migrate: CPU the task moves to");

    std::string experiment_file;
    std::vector<std::string> run_overrides;
    std::string out_dir;
    std::string run_platform, run_kernel;
    std::vector<std::string> run_features, run_sysctls;
    std::optional<std::uint64_t> run_seed;
    auto* run = app.add_subcommand(
        "run", "Run an experiment file (default: configs/experiments/default.yaml), or the workload given "
               "after --, e.g.: warmsched run --kernel cfs -- hackbench -p -g 10 -l 100");
    run->add_option("experiment", experiment_file, "Experiment YAML file");
    run->add_option("--platform", run_platform,
                    "Shipped platform name or path; an hwloc XML is imported (= -p platform=P)");
    run->add_option("--kernel", run_kernel, "Scheduler: cfs (Linux v5.15) or eevdf (v6.12, the default)")
        ->check(CLI::IsMember({"cfs", "eevdf"}));
    run->add_option("--feature", run_features, "Scheduler feature flag NAME=on|off (repeatable)");
    run->add_option("--sysctl", run_sysctls,
                    "Scheduler tunable name=value, e.g. base_slice_ns=3000000 (repeatable)");
    run->add_option("--seed", run_seed, "Seed of every random choice (= -p seed=N)");
    std::string run_policy;
    bool run_policy_all = false;
    run->add_option(
        "--policy", run_policy,
        "Load a scheduling policy of your own (a .so built against include/warmsched/policy.h, or "
        "an in-tree example: simple_fifo, llc_rr, llc_sticky) into the ext class (= -p "
        "kernel.policy=P); see docs/writing-a-policy.md");
    run->add_flag(
        "--policy-all", run_policy_all,
        "With --policy: every fair task is SCHED_EXT, run by the policy (= -p kernel.policy_all=true)");
    run->add_option("--cgroup", command.cgroup,
                    "Start the workload given after -- in this group of the experiment's cgroups, e.g. /a");
    run->add_option("-p,--param", run_overrides,
                    "Override a key: dotted.key=value (e.g. platform.core.frequency=4GHz)");
    bool run_trace = false;
    std::string run_trace_window;
    run->add_flag("--trace", run_trace,
                  "Write trace.txt: scheduler events as ftrace text (Perfetto, trace-cmd)");
    run->add_option("--trace-window", run_trace_window,
                    "Trace only START:END (simulated seconds, e.g. 0.01:0.02); implies --trace");
    std::string run_trace_format;
    run->add_option("--trace-format", run_trace_format,
                    "Trace files: ftrace (trace.txt), chrome (trace.json), perfetto (trace.perfetto-trace), "
                    "or a comma list (ftrace,perfetto); implies --trace");
    bool run_vcd = false, run_plot = false;
    run->add_flag("--vcd", run_vcd,
                  "Write trace.vcd (per-CPU pid, run-queue length, cache misses) and trace.vcd.filter "
                  "(GTKWave translate filter: pid -> task name)");
    std::string run_schedstat_versions;
    run->add_option("--schedstat-version", run_schedstat_versions,
                    "/proc/schedstat layouts to write: 15 (v5.15), 16 (v6.6-v6.12), 17 (v6.13), as a list "
                    "(default 15,17; = -p schedstat_versions=LIST)");
    run->add_flag("--plot", run_plot, "Draw plots/ with gnuplot after the run (PNG and SVG; = -p plot=true)");
    run->add_option("--out", out_dir,
                    "Results directory (default: a new dated directory under results/); it must be absent or "
                    "empty, unless --force");
    bool run_force = false, run_resume = false;
    run->add_flag("--force", run_force, "Replace a non-empty --out directory (its old files are removed)");
    run->add_flag("--resume", run_resume,
                  "With --repeat: keep the complete seed-<s>/ runs already in --out (same configuration) and "
                  "run only the missing seeds");
    std::optional<unsigned> run_repeat;
    run->add_option("--repeat", run_repeat,
                    "Run N times with seeds seed..seed+N-1, each into DIR/seed-<s>/ (= -p repeat=N)")
        ->check(CLI::Range(1u, 10000u));
    std::optional<unsigned> run_jobs;
    run->add_option("-j,--jobs", run_jobs,
                    "With --repeat: run up to N seeds at once (default: the host's CPUs); results do not "
                    "depend on N")
        ->check(CLI::Range(1u, 4096u));

    std::vector<std::string> compare_dirs;
    auto* compare = app.add_subcommand(
        "compare", "Compare results directories (or --repeat directories of seed-*/ runs): the workloads' "
                   "metrics and key counters over seeds, in mmtests' compare-kernels layout");
    compare->add_option("dirs", compare_dirs,
                        "Results directories, or sweep directories (their results.db: one column per grid "
                        "point); the first is the baseline")
        ->required();
    std::string compare_by;
    compare->add_option("--by", compare_by,
                        "A sweep directory: compare the points that differ only in this axis (--by kernel.version: "
                        "cfs against eevdf at the same groups), one table per combination of the other axes");
    bool compare_wide = false;
    compare->add_flag("--wide", compare_wide,
                      "warmsched's wider view: full metric names, Amean (Stddev) in one cell, 6 digits");

    std::vector<std::string> plot_args;
    bool plot_is_sweep = false;
    std::string plot_metric, plot_x_label = "parameter", plot_out;
    auto* plot = app.add_subcommand(
        "plot",
        "Draw a run's plots with gnuplot into DIR/plots/ (PNG and SVG): per-CPU timeline and migrations "
        "by distance (runs made with --plot), miss rate per cache level, latency percentiles; or, with "
        "--sweep, a metric against a swept parameter, one line per variant");
    plot->add_option("args", plot_args,
                     "A results directory, or with --sweep: VARIANT:X:DIR ..., or one sweep directory")
        ->required();
    plot->add_flag("--sweep", plot_is_sweep,
                   "The arguments are VARIANT:X:DIR points (DIR a results or --repeat directory), or one "
                   "sweep directory (warmsched sweep) with --x AXIS");
    std::string plot_x_axis;
    plot->add_option("--x", plot_x_axis,
                     "--sweep of a sweep directory: the axis on the x axis (numeric values); the other axes "
                     "make the lines");
    plot->add_option(
        "--metric", plot_metric,
        "--sweep: the metric, as warmsched compare names it (default: the first workload metric)");
    plot->add_option("--x-label", plot_x_label, "--sweep: the swept parameter's name (axis label)");
    plot->add_option("--out", plot_out, "--sweep: output directory (default: plots)");

    std::string sweep_file, sweep_out, sweep_executor = "local";
    std::optional<unsigned> sweep_jobs;
    std::optional<std::size_t> sweep_run_index;
    bool sweep_no_wait = false;
    std::vector<std::string> sweep_sbatch_args;
    auto* sweep_cmd = app.add_subcommand(
        "sweep", "Run a grid of runs -- parameters, feature flags, platforms, kernels, workload arguments, "
                 "seeds -- from SWEEP.yaml, on this host or as a Slurm job array, into a sweep directory "
                 "with every run's parameters, provenance and stats in SQLite (results.db); started again, "
                 "it resumes (docs/outputs.md, \"A sweep of runs\")");
    sweep_cmd->add_option("sweep", sweep_file, "Sweep YAML file")->required();
    sweep_cmd->add_option("--out", sweep_out, "Sweep directory (default: the file's out:, or sweeps/<its name without .yaml>)");
    sweep_cmd->add_option("--executor", sweep_executor, "local (a process pool, the default) or slurm (sbatch --array)")
        ->check(CLI::IsMember({"local", "slurm"}));
    sweep_cmd->add_option("-j,--jobs", sweep_jobs, "local: runs at once (default: the host's CPUs)")
        ->check(CLI::Range(1u, 4096u));
    sweep_cmd->add_flag("--no-wait", sweep_no_wait, "slurm: submit the job array and return");
    sweep_cmd->add_option("--sbatch-arg", sweep_sbatch_args,
                          "slurm: one more #SBATCH line of the job script, e.g. --partition=debug (repeatable)");
    sweep_cmd->add_option("--run-index", sweep_run_index,
                          "Run only the grid's run I and record it in the database (what the executors' "
                          "processes and array tasks execute)");

    twin::twin_settings ts;
    std::string twin_platform, twin_kernel;
    std::vector<std::string> twin_features, twin_sysctls, twin_overrides;
    std::optional<std::uint64_t> twin_seed;
    std::string twin_tools_help;
    for (const auto& t : twin::guest_tools()) twin_tools_help += (twin_tools_help.empty() ? "" : ", ") + t;
    std::string twin_refused;
    for (const auto& t : twin::tools_without_package())
        twin_refused += (twin_refused.empty() ? "" : ", ") + t;
    auto* twin_cmd = app.add_subcommand(
        "twin",
        "Run the workload given after -- (or an experiment's workloads) on a real Linux kernel in QEMU with "
        "the platform's topology, then in the model, and print the two side by side, e.g.: warmsched twin "
        "--kernel cfs --platform haswell-i7-4790 -- hackbench -p -g 4 -l 300. Guest tools: " +
            twin_tools_help + ". Refused (no Debian package): " + twin_refused + ".");
    twin_cmd->add_option("experiment", ts.experiment_file, "Experiment YAML file");
    twin_cmd->add_option("--platform", twin_platform, "Shipped platform name or path (= -p platform=P)");
    twin_cmd
        ->add_option("--kernel", twin_kernel,
                     "Model scheduler: cfs (v5.15; guest cloud-6.1) or eevdf "
                     "(v6.12, the default; guest cloud-6.12)")
        ->check(CLI::IsMember({"cfs", "eevdf"}));
    twin_cmd->add_option("--feature", twin_features,
                         "Scheduler feature flag NAME=on|off, both sides (repeatable)");
    twin_cmd->add_option("--sysctl", twin_sysctls, "Scheduler tunable name=value, both sides (repeatable)");
    twin_cmd->add_option("--seed", twin_seed, "The model's seed (= -p seed=N)");
    twin_cmd->add_option("--cgroup", ts.command.cgroup, "Start the workload given after -- in this group");
    twin_cmd->add_option("-p,--param", twin_overrides, "Override a key of the model: dotted.key=value");
    twin_cmd->add_option("--out", ts.out_dir,
                         "Results directory (default: a new dated directory under results/); "
                         "the guest's files go to its twin/");
    twin_cmd->add_option("--guest-kernel", ts.guest_kernel,
                         "cloud-6.1 (CFS), cloud-6.12 (EEVDF), rt-6.1 (PREEMPT_RT) or a bzImage path "
                         "(default: the one of --kernel)");
    twin_cmd->add_option("--max-vcpus", ts.max_vcpus, "Scale the platform down to at most N CPUs (default 8)")
        ->check(CLI::Range(1u, 64u));
    twin_cmd->add_option("--guest-memory", ts.memory_mib, "Guest memory in MiB (default 2048)")
        ->check(CLI::Range(256ull, 65536ull));
    twin_cmd
        ->add_option("--boot-timeout", ts.boot_timeout_s, "Seconds the guest may take to boot (default 300)")
        ->check(CLI::Range(10u, 36000u));
    twin_cmd
        ->add_option("--timeout", ts.run_timeout_s,
                     "Seconds the workloads may take in the guest (default 3600)")
        ->check(CLI::Range(10u, 360000u));
    twin_cmd
        ->add_option("--trace-buffer-kb", ts.trace_buffer_kb,
                     "The guest's ftrace buffer per CPU (default 32768)")
        ->check(CLI::Range(1024u, 1048576u));
    twin_cmd
        ->add_option("--guest-retries", ts.guest_retries,
                     "Boot again this many times after a guest hang under TCG (default 2)")
        ->check(CLI::Range(0u, 10u));
    twin_cmd->add_option("--append", ts.append, "More guest kernel command line, e.g. preempt=full");
    twin_cmd->add_option("--guest-kprobes", ts.kprobes_file,
                         "A file of kprobe events (tracefs kprobe_events lines) the guest adds to its trace, "
                         "e.g. bench/twin/wake-placement.kprobes");
    std::string twin_dilate = "auto";
    twin_cmd->add_option("--dilate", twin_dilate,
                         "Also run the model slowed K times, as slow as the guest: auto (K = the guest's CPU "
                         "time for the workload over the model's; the default), off, or K");
    twin_cmd->add_flag("--topology", ts.topology_only,
                       "Only compare the guest's sched domains, LLC sharing and NUMA nodes with the model's "
                       "(exit 1 if they differ)");

    bool twin_native = false;
    std::optional<unsigned> twin_repeat;
    twin_cmd->add_flag("--native", twin_native,
                       "Run the command on this machine's own kernel (tracefs records it; root), --repeat times, "
                       "and in the model of this machine: --platform, or by default a fresh `warmsched calibrate` "
                       "(docs/twin.md, \"The machine you run on\")");
    twin_cmd->add_option("--repeat", twin_repeat, "--native: native runs of the command (default 3)")
        ->check(CLI::Range(1u, 100u));

    calibrate::calibrate_settings cs;
    auto* calibrate_cmd = app.add_subcommand(
        "calibrate", "Measure this machine with small pinned programs (system calls, pipes, switches, wakeups, "
                     "fork/exec, load latency, c2c, bandwidth) and write a platform file of it whose direct kernel "
                     "costs and memory figures are measured, each with its median, min and max (docs/calibration.md)");
    calibrate_cmd->add_option("-o,--output", cs.output, "Write the platform to this file (default: stdout)");
    calibrate_cmd->add_option("--repeat", cs.repeat, "Repeats of every microbenchmark (default 5)")
        ->check(CLI::Range(1u, 1000u));
    calibrate_cmd->add_option("--name", cs.name, "The platform's name (default: this-machine)");
    calibrate_cmd->add_option("--max-busy", cs.max_busy_percent,
                              "Refuse when more than this percent of the host's CPU time went to other work in the "
                              "second before (default 10)")
        ->check(CLI::Range(0.0, 100.0));
    calibrate_cmd->add_flag("--quick", cs.quick, "A tenth of the iterations (noisier; what the tests run)");

    std::string tutorial_name;
    sim::tutorials::tutorial_run_options tutorial_opts;
    std::optional<unsigned> tutorial_jobs;
    auto* tutorial_cmd = app.add_subcommand(
        "tutorial", "List the tutorials, or run one end to end: each shows one phenomenon of architecture-aware "
                    "scheduling on a shipped platform, with its figures (PNG and SVG) and a report (docs/tutorials/)");
    tutorial_cmd->add_option("name", tutorial_name, "The tutorial to run (without: list them)");
    tutorial_cmd->add_flag("--quick", tutorial_opts.quick,
                           "Fewer and shorter steps, the same figures and check (what the tests run)");
    tutorial_cmd->add_option("--out", tutorial_opts.out,
                             "Results directory (default: results/tutorial-NAME-<date>-<time>); it must be "
                             "absent or empty, unless --force");
    tutorial_cmd->add_flag("--force", tutorial_opts.replace, "Replace a non-empty --out directory");
    tutorial_cmd->add_option("-j,--jobs", tutorial_jobs, "Steps run at once (default: the host's CPUs)")
        ->check(CLI::Range(1u, 4096u));

    refuse_empty_values(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) { // --help, --help-all: the text on stdout, status 0
        return app.exit(e);
    } catch (const CLI::ParseError& e) { // bad input: one line, status 2, as every other input error
        std::string what = e.what();
        std::replace(what.begin(), what.end(), '\n', ' ');
        std::cerr << "error: " << what << " (warmsched --help lists the options)\n";
        return 2;
    }
    try {
        if (*platforms) return list_platforms();
        if (*topology) {
            sim::print_topology(std::cout, platform::load_platform(topo_platform, topo_overrides),
                                topo_kernel == "cfs" ? scheduler::kernel_version::cfs_v5_15
                                                     : scheduler::kernel_version::eevdf_v6_12);
            return 0;
        }
        if (*import_cmd) {
            platform::import::import_request r;
            if (!import_from.empty()) platform::import::parse_import_from(import_from, r.from);
            r.input = import_input;
            r.name = import_name;
            const std::string yaml = platform::import::import_platform_yaml(r);
            if (import_output.empty()) {
                std::cout << yaml;
            } else {
                base::write_file(import_output, yaml);
            }
            return 0;
        }
        if (*probe) return run_probe(pc);
        if (*tutorial_cmd) {
            if (tutorial_name.empty()) {
                sim::tutorials::list_tutorials(std::cout);
                return 0;
            }
            const sim::tutorials::tutorial* t = sim::tutorials::find_tutorial(tutorial_name);
            if (!t) {
                std::string names;
                for (const auto* x : sim::tutorials::all_tutorials()) names += (names.empty() ? "" : ", ") + x->name();
                throw config::config_error(std::vector<std::string>{"tutorial: no tutorial '" + tutorial_name +
                                                                    "' (there are: " + names + ")"});
            }
            tutorial_opts.jobs = tutorial_jobs ? *tutorial_jobs : sim::host_cpus();
            return sim::tutorials::run_tutorial(*t, tutorial_opts, std::cout);
        }
        if (*calibrate_cmd) return calibrate::run_calibrate(cs, std::cout);
        if (*twin_cmd && twin_native) {
            for (const auto* o : {"--kernel", "--feature", "--sysctl", "--cgroup", "--guest-kernel", "--max-vcpus",
                                  "--guest-memory", "--boot-timeout", "--append", "--guest-kprobes", "--dilate",
                                  "--topology", "--guest-retries"})
                if (twin_cmd->count(o))
                    throw config::config_error(config::origin{"<command line>", 0, 0}, o,
                                               "is the QEMU twin's; --native runs this machine's own kernel as it is");
            twin::native_settings ns;
            ns.experiment_file = ts.experiment_file;
            ns.command.words = command.words;
            ns.platform_file = twin_platform;
            if (twin_repeat) ns.repeat = *twin_repeat;
            ns.out_dir = ts.out_dir;
            ns.trace_buffer_kb = twin_cmd->count("--trace-buffer-kb") ? ts.trace_buffer_kb : 65536;
            ns.run_timeout_s = ts.run_timeout_s;
            ns.overrides = run_overrides_of("", "", {}, {}, twin_seed);
            ns.overrides.insert(ns.overrides.end(), twin_overrides.begin(), twin_overrides.end());
            return twin::run_native_twin(ns, std::cout);
        }
        if (*twin_cmd && twin_repeat)
            throw config::config_error(config::origin{"<command line>", 0, 0}, "--repeat",
                                       "repeats the native runs of --native (the QEMU twin runs once)");
        if (*twin_cmd) {
            if (ts.experiment_file.empty())
                ts.experiment_file = platform::configs_dir() + "/experiments/default.yaml";
            ts.command.words = command.words;
            if (twin_dilate == "auto")
                ts.dilation = -1;
            else if (twin_dilate == "off")
                ts.dilation = 1;
            else {
                char* end = nullptr;
                ts.dilation = std::strtod(twin_dilate.c_str(), &end);
                if (!end || *end || !(ts.dilation >= 1 && ts.dilation <= 1e6))
                    throw config::config_error(config::origin{"<command line>", 0, 0}, "--dilate",
                                               "expected auto, off or a factor from 1 to 1e6, got '" +
                                                   twin_dilate + "'");
            }
            ts.overrides =
                run_overrides_of(twin_platform, twin_kernel, twin_features, twin_sysctls, twin_seed);
            ts.overrides.insert(ts.overrides.end(), twin_overrides.begin(), twin_overrides.end());
            return twin::run_twin(ts, std::cout);
        }
        if (*sweep_cmd) {
            const sim::sweep::sweep_spec spec = sim::sweep::read_sweep_spec(sweep_file, sweep_out);
            if (sweep_run_index) return sim::sweep::run_one(spec, *sweep_run_index, std::cout);
            if (sweep_executor != "slurm" && (sweep_no_wait || !sweep_sbatch_args.empty()))
                throw config::config_error(
                    std::vector<std::string>{"sweep: --no-wait and --sbatch-arg need --executor slurm"});
            sim::sweep::sweep_session session(spec);
            if (sweep_executor == "slurm") {
                sim::sweep::slurm_options so;
                so.wait = !sweep_no_wait;
                so.sbatch_args = sweep_sbatch_args;
                return sim::sweep::run_slurm(session, so, std::cout);
            }
            return sim::sweep::run_local(session, sweep_jobs ? *sweep_jobs : sim::host_cpus(), std::cout);
        }
        if (*compare) {
            std::vector<std::string> databases;
            for (const auto& d : compare_dirs)
                if (const std::string db = sim::sweep::sweep_database_of(d); !db.empty()) databases.push_back(db);
            if (!databases.empty()) {
                if (databases.size() != compare_dirs.size())
                    throw config::config_error(std::vector<std::string>{
                        "compare: give sweep directories or results directories, not both"});
                if (!compare_by.empty()) {
                    if (databases.size() != 1)
                        throw config::config_error(std::vector<std::string>{
                            "compare --by: give one sweep directory (it compares that sweep's points)"});
                    return sim::sweep::compare_sweep_by(std::cout, databases.front(), compare_by, compare_wide);
                }
                return sim::sweep::compare_sweeps(std::cout, databases, compare_wide);
            }
            if (!compare_by.empty())
                throw config::config_error(std::vector<std::string>{
                    "compare --by: for a sweep directory (its axes); results directories are compared as given"});
            return compare_wide ? sim::print_comparison_wide(std::cout, compare_dirs)
                                : sim::print_comparison(std::cout, compare_dirs);
        }
        if (*plot) {
            if (!plot_is_sweep) {
                if (plot_args.size() != 1)
                    throw config::config_error(std::vector<std::string>{
                        "plot: give one results directory (or --sweep VARIANT:X:DIR ...)"});
                sim::plot_run(plot_args.front(), std::cout);
                return 0;
            }
            if (plot_args.size() == 1)
                if (const std::string db = sim::sweep::sweep_database_of(plot_args.front()); !db.empty()) {
                    if (plot_x_axis.empty())
                        throw config::config_error(
                            std::vector<std::string>{"plot --sweep SWEEPDIR: give --x AXIS (an axis of the sweep)"});
                    sim::sweep::plot_sweep_database(db, plot_x_axis, plot_metric, plot_out.empty() ? "plots" : plot_out,
                                                    std::cout);
                    return 0;
                }
            std::vector<sim::sweep_point> points;
            for (const auto& a : plot_args) points.push_back(sim::parse_sweep_point(a));
            sim::plot_sweep(points, plot_metric, plot_x_label, plot_out.empty() ? "plots" : plot_out,
                            std::cout);
            return 0;
        }
        if (*run) {
            if (experiment_file.empty())
                experiment_file = platform::configs_dir() + "/experiments/default.yaml";
            std::vector<std::string> o =
                run_overrides_of(run_platform, run_kernel, run_features, run_sysctls, run_seed);
            if (run_repeat) o.push_back("repeat=" + std::to_string(*run_repeat));
            if (!run_policy.empty()) o.push_back("kernel.policy=" + run_policy);
            if (run_policy_all) o.push_back("kernel.policy_all=true");
            if (run_trace || !run_trace_window.empty() || !run_trace_format.empty())
                o.push_back("trace.enabled=true");
            if (!run_trace_format.empty()) o.push_back("trace.formats=" + run_trace_format);
            if (run_vcd) o.push_back("trace.vcd=true");
            if (run_plot) o.push_back("plot=true");
            if (!run_schedstat_versions.empty()) o.push_back("schedstat_versions=" + run_schedstat_versions);
            if (!run_trace_window.empty()) {
                const auto w = sim::parse_trace_window(run_trace_window, "--trace-window");
                o.push_back("trace.start=" + std::to_string(w.first) + "ns");
                o.push_back("trace.end=" + std::to_string(w.second) + "ns");
            }
            o.insert(o.end(), run_overrides.begin(), run_overrides.end());
            if (bare_dashes)
                throw config::config_error(std::vector<std::string>{
                    "run: nothing after --: give the workload's command line (e.g. -- hackbench -p -g 2), or "
                    "drop the -- to run the experiment file"});
            sim::experiment e = sim::read_experiment(experiment_file, o, command);
            const std::string dir = out_dir.empty() ? sim::default_results_dir() : out_dir;
            if (run_force && run_resume)
                throw config::config_error(
                    std::vector<std::string>{"run: --force and --resume exclude each other"});
            if (run_resume && e.repeat <= 1)
                throw config::config_error(std::vector<std::string>{
                    "run: --resume needs --repeat N (a single run is written whole or not at all)"});
            if (e.repeat > 1) {
                sim::repeat_options ro;
                ro.first_seed = e.seed;
                ro.repeat = e.repeat;
                ro.jobs = run_jobs ? *run_jobs : sim::host_cpus();
                ro.replace = run_force;
                ro.resume = run_resume;
                return sim::run_repeated(experiment_file, o, command, ro, dir, std::cout);
            }
            return sim::run_experiment(e, dir, std::cout, run_force);
        }
    } catch (const config::config_error& e) {
        for (const auto& line : e.lines()) std::cerr << "error: " << line << "\n";
        return 2;
    } catch (const workloads::help_requested& e) { // `-- hackbench --help`: the tool's usage, status 0
        std::cout << e.what() << "\n";
        return 0;
    } catch (const workloads::usage_error& e) { // the workload's own usage message, as the tool prints it;
        std::cerr << (e.own_words() ? "error: " : "") << e.what() << "\n"; // or ours about its input file
        return 2;
    } catch (const twin::twin_failure& e) { // the guest failed: the run's fault, not the input's
        std::cerr << "error: twin: " << e.what() << "\n";
        return 1;
    } catch (const base::write_error& e) { // the disk, not the input: no results directory is left complete
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    } catch (const std::filesystem::filesystem_error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of memory\n";
        return 1;
    } catch (const std::exception& e) { // our bug (a panic, not the user's error): one line, not SystemC's E549
        std::cerr << "error: internal error (a bug of warmsched; please report it): " << e.what() << "\n";
        return 1;
    }
    return 0;
}

// Our own main: keeps SystemC's banner out of the output (CSV and reports go to stdout), then lets
// SystemC run sc_main.
int main(int argc, char* argv[]) {
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    // What goes to stdout must arrive: std::cout writes through a checked buffer (flushed at every output
    // on a terminal), and a write error -- `warmsched import x.xml > /dev/full`, a full disk -- is an error
    // with its errno, not a success.
    base::output_file checked_stdout(STDOUT_FILENO, "standard output");
    std::streambuf* const stdio_buf = std::cout.rdbuf(checked_stdout.rdbuf());
    if (::isatty(STDOUT_FILENO)) std::cout << std::unitbuf;
    int rc = sc_core::sc_elab_and_sim(argc, argv);
    try {
        checked_stdout.close();
    } catch (const base::write_error& e) {
        std::cerr << "error: " << e.what() << "\n";
        if (rc == 0) rc = 1;
    }
    std::cout.rdbuf(stdio_buf);
    return rc;
}
