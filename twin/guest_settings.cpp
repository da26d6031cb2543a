// The guest's setup.sh and start.sh; see guest_settings.h.
#include "twin/guest_settings.h"

#include "twin/guest_build_tree.h"
#include "workloads/bench/kernbench.h"

#include "platforms/config/config_error.h"
#include "scheduler/core/sched_sysctl.h"
#include "workloads/cli/command_line.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace warmsched::twin {

const std::vector<std::string>& guest_tools() {
    static const std::vector<std::string> t = {"hackbench (rt-tests)",
                                               "cyclictest (rt-tests)",
                                               "perf bench sched messaging|pipe (linux-perf)",
                                               "fio",
                                               "rt-app",
                                               "tbench (dbench)",
                                               "[time] make -jN (make, gcc: a generated tree)",
                                               "taskset (busybox)"};
    return t;
}

const std::vector<std::string>& tools_without_package() {
    static const std::vector<std::string> t = {"schbench", "massive_intr", "netperf", "kernbench"};
    return t;
}

std::string shell_quote(const std::string& word) {
    std::string q = "'";
    for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

namespace {

// Model CPU list -> guest CPU list.
std::string guest_cpus(const std::string& list, const guest_machine& g, const std::string& where) {
    std::vector<bool> mask;
    if (!workloads::parse_cpu_list(list, static_cast<unsigned>(g.guest_cpu.size()), mask))
        throw config::config_error(config::origin{where, 0, 0}, "taskset", "bad CPU list '" + list + "'");
    std::vector<unsigned> cpus;
    for (unsigned c = 0; c < mask.size(); ++c)
        if (mask[c]) cpus.push_back(g.guest_cpu[c]);
    std::sort(cpus.begin(), cpus.end());
    return cpu_list(cpus);
}

void add_tool(guest_run& r, const std::string& t) {
    if (std::find(r.tools.begin(), r.tools.end(), t) == r.tools.end()) r.tools.push_back(t);
}

} // namespace

guest_run make_guest_run(const sim::experiment& e, const guest_machine& g) {
    guest_run r;
    std::string& s = r.setup_sh;
    s += "# The run's scheduler settings (the model's values) and cgroups, written by warmsched twin.\n";
    s += "F=/sys/kernel/debug/sched/features\n";
    s += "feature() { if grep -qw -e \"$1\" -e \"NO_$1\" $F; then\n"
         "    if [ $2 = on ]; then echo $1 > $F; else echo NO_$1 > $F; fi; echo \"feature $1 $2\"\n"
         "  else echo \"feature $1 absent\"; fi; }\n";
    s += "sysctl() { for p in /sys/kernel/debug/sched/$1 /proc/sys/kernel/$1; do\n"
         "    if [ -f $p ]; then echo $2 > $p && echo \"sysctl $1 $(cat $p)\"; return; fi; done\n"
         "  echo \"sysctl $1 absent\"; }\n";
    // The kernel's flags go to debugfs; a version change is code, which the guest can only note.
    const scheduler::sched_features kernel_defaults(e.kernel.kernel);
    std::string changed;
    for (auto f : e.kernel.features.available()) {
        const char* on = e.kernel.features[f] ? "on" : "off";
        if (!scheduler::sched_features::version_change(f))
            s += std::string("feature ") + scheduler::sched_features::name(f) + " " + on + "\n";
        else if (e.kernel.features[f] != kernel_defaults[f])
            changed += std::string(" ") + scheduler::sched_features::name(f) + "=" + on;
    }
    if (!changed.empty())
        r.notes.push_back("model version changes set away from the kernel's code (the guest cannot follow):" +
                          changed);
    const bool cfs = e.kernel.kernel == scheduler::kernel_version::cfs_v5_15;
    for (const auto& t : scheduler::sched_sysctls())
        if (cfs ? t.in_cfs : t.in_eevdf)
            s += std::string("sysctl ") + t.name + " " +
                 std::to_string(scheduler::sysctl_value(e.kernel, t.name)) + "\n";
    if (!e.cgroups.only_root()) {
        s += "echo +cpu > /sys/fs/cgroup/cgroup.subtree_control\n";
        for (std::size_t i = 1; i < e.cgroups.groups.size(); ++i) {
            const auto& c = e.cgroups.groups[i];
            const std::string d = "/sys/fs/cgroup" + c.path;
            s += "mkdir -p " + shell_quote(d) + "\n";
            const bool parent_of_some = std::any_of(e.cgroups.groups.begin() + 1, e.cgroups.groups.end(),
                                                    [&](const auto& o) { return o.parent == i; });
            if (parent_of_some) s += "echo +cpu > " + shell_quote(d + "/cgroup.subtree_control") + "\n";
            s += "echo " + std::to_string(c.weight) + " > " + shell_quote(d + "/cpu.weight") + "\n";
            s += "echo \"" + (c.quota_ns ? std::to_string(*c.quota_ns / 1000) : std::string("max")) + " " +
                 std::to_string(c.period_ns / 1000) + "\" > " + shell_quote(d + "/cpu.max") + "\n";
            if (c.burst_ns)
                s += "echo " + std::to_string(c.burst_ns / 1000) + " > " + shell_quote(d + "/cpu.max.burst") +
                     "\n";
        }
    }
    if (e.kernel.hz != 250)
        r.notes.push_back("the model runs at HZ=" + std::to_string(e.kernel.hz) +
                          "; Debian's kernels are built with HZ=250");

    std::string& st = r.start_sh;
    st += "# The run's workloads, all at once, as the model starts them; written by warmsched twin.\n";
    bool tbench = false;
    for (std::size_t i = 0; i < e.workloads.size(); ++i) {
        // Errors name the experiment file's key, or the command line for a command given after `--`.
        const bool cli = e.workloads_from_command_line;
        const config::origin from{cli ? "<command line>" : e.source, 0, 0};
        const std::string key = cli ? "--" : "workloads." + std::to_string(i);
        const std::string where = from.file + ": " + key;
        std::vector<std::string> w = workloads::split_command_line(e.workloads[i]);
        std::size_t tool = 0;
        if (w.size() >= 3 && w[0] == "taskset" && w[1] == "-c") {
            w[2] = guest_cpus(w[2], g, where);
            tool = 3;
        }
        if (tool >= w.size())
            throw config::config_error(config::origin{where, 0, 0}, "command", "no command");
        const std::string& name = w[tool];
        const auto& refused = tools_without_package();
        if (std::find(refused.begin(), refused.end(), name) != refused.end())
            throw config::config_error(
                from, key,
                name + " has no Debian package to run in the twin's guest (it runs "
                       "hackbench, cyclictest, perf bench, fio, rt-app, tbench and make)");
        bool params_used = false;
        std::string cwd;
        if (name == "make" || (name == "time" && w.size() > tool + 1 && w[tool + 1] == "make")) {
            workloads::workload_params p = e.workload_params[i];
            const auto kp = workloads::kernbench::read_params(p, "make");
            constexpr unsigned max_guest_objects = 512;
            if (kp.objects > max_guest_objects)
                throw config::config_error(
                    from, cli ? std::string("make") : key + ".objects",
                    std::string(cli ? "an experiment file's 'objects' sets the tree's size: " : "") +
                        "the twin's guest compiles every object with the real gcc, about 2 s "
                        "each under TCG; give at most " +
                        std::to_string(max_guest_objects) + " (it is " + std::to_string(kp.objects) + ")");
            for (const char* t : {"make", "gcc", "as", "cc1"}) add_tool(r, t);
            cwd = "/twin/build/w" + std::to_string(i);
            for (auto& [path, text] : build_tree_files(kp.objects))
                r.files.emplace_back("build/w" + std::to_string(i) + "/" + path, std::move(text));
            params_used = true;
            r.notes.push_back(
                "workload " + std::to_string(i) + ": make builds " + std::to_string(kp.objects) +
                " generated objects with gcc in the guest; a real job is three processes (gcc, cc1, "
                "as), the model's one");
        } else if (name == "hackbench" || name == "cyclictest" || name == "fio" || name == "perf") {
            add_tool(r, name);
        } else if (name == "rt-app") {
            add_tool(r, "rt-app");
            for (std::size_t k = tool + 1; k < w.size(); ++k)
                if (w[k].size() > 5 && w[k].substr(w[k].size() - 5) == ".json") {
                    const std::string base = std::to_string(i) + "-" + fs::path(w[k]).filename().string();
                    r.inputs.emplace_back(w[k], base);
                    w[k] = "/twin/files/" + base;
                }
            const std::string note =
                "rt-app in the guest is Debian's rt-app 1.0, older than the rt-app the model reads";
            if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(note);
        } else if (name == "tbench") {
            add_tool(r, "tbench");
            add_tool(r, "tbench_srv");
            tbench = true;
        } else {
            throw config::config_error(from, key,
                                       "the twin does not know how to run '" + name + "' in its guest");
        }
        if (!e.workload_params[i].empty() && !params_used)
            r.notes.push_back("workload " + std::to_string(i) +
                              ": the model's workload parameters have no counterpart in the real tool");
        std::string line = "mkdir -p /out/w" + std::to_string(i) + "; ";
        if (!cwd.empty()) line += "cd " + cwd + "; ";
        line += "twin_runner /out/w" + std::to_string(i);
        if (i < e.workload_groups.size() && e.workload_groups[i] != 0)
            line += " --cgroup " + shell_quote(e.cgroups.groups[e.workload_groups[i]].path);
        if (e.duration_ns) line += " --duration-ns " + std::to_string(e.duration_ns);
        line += " --";
        for (const auto& word : w) line += " " + shell_quote(word);
        line += " > /out/w" + std::to_string(i) + "/stdout 2> /out/w" + std::to_string(i) + "/stderr &\n";
        line += "P=\"$P $!\"\n";
        if (!cwd.empty()) line += "cd /\n";
        st += line;
    }
    if (tbench) st = "tbench_srv > /dev/null 2>&1 &\nSRV=$!\nsleep 1\n" + st;
    st += "wait $P\n";
    if (tbench) st += "kill $SRV\n";
    return r;
}

} // namespace warmsched::twin
