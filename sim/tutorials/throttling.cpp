// Tutorial 7, "throttling": CFS bandwidth control (cpu.max) and its two throttle models.
// configs/tutorials/throttling.yaml: hackbench -p -g 2 in /limited, cpu.max "20000 10000" (2 CPUs' worth
// per 10 ms period) on the 8 CPUs of haswell-i7-4790, run with the per-cfs_rq model (v5.15-v6.17: when the
// quota runs out the group's cfs_rq is dequeued from every CPU at once) and with v6.18's task-based model
// (TASK_BASED_THROTTLE with its load-balancing companions: each task stops when it next returns to user
// mode). The per-CPU timelines come from each run's --plot timeline; cpu.stat from its cgroup/ files.
#include "sim/tutorials/tutorial.h"

#include <map>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace {

struct variant {
    const char* step;
    std::vector<std::string> features;
    const char* label;
};
const std::vector<variant> variants{
    {"per-cfs-rq", {}, "per-cfs_rq throttling (v5.15-v6.17)"},
    {"task-based",
     {"--feature", "TASK_BASED_THROTTLE=on", "--feature", "THROTTLED_LB_PAIR=off", "--feature", "LB_THROTTLED_DEST=on"},
     "task-based throttling (v6.18)"},
};
constexpr double quota_cpus = 2.0;

std::map<std::string, double> cpu_stat(const std::string& text) {
    std::map<std::string, double> m;
    std::istringstream in(text);
    std::string key;
    for (double v; in >> key >> v;) m[key] = v;
    return m;
}

class throttling final : public tutorial {
public:
    std::string name() const override { return "throttling"; }
    std::string title() const override { return "Throttling"; }
    std::string teaches() const override {
        return "A cgroup's cpu.max quota is spent across all CPUs in each period; when it runs out the group "
               "stops everywhere until the next period. hackbench under cpu.max, both throttle models.";
    }
    std::vector<tutorial_step> steps(const tutorial_options& o) const override {
        std::vector<tutorial_step> s;
        const std::string file = tutorial_input("throttling.yaml");
        for (const auto& v : variants) {
            std::vector<std::string> a{"run", file, "--plot", "-p", o.quick ? "duration=0.05s" : "duration=0.1s"};
            a.insert(a.end(), v.features.begin(), v.features.end());
            s.push_back({v.step, a});
        }
        return s;
    }

    tutorial_outcome analyse(const tutorial_context& ctx, const tutorial_options& o) const override {
        tutorial_outcome r;
        const double duration = o.quick ? 0.05 : 0.1;
        std::ostringstream md;
        md << "| throttle model | usage s | CPUs (quota " << quota_cpus << ") | nr_periods | nr_throttled | throttled s |\n"
              "|---|---|---|---|---|---|\n";
        bool holds = true;
        std::string numbers;
        for (const auto& v : variants) {
            auto st = cpu_stat(ctx.step_file(v.step, "cgroup/limited/cpu.stat"));
            const double usage = st["usage_usec"] / 1e6, cpus = usage / duration;
            md << "| " << v.label << " | " << fixed(usage, 4) << " | " << fixed(cpus, 2) << " | " << st["nr_periods"]
               << " | " << st["nr_throttled"] << " | " << fixed(st["throttled_usec"] / 1e6, 4) << " |\n";
            r.figures_data[v.step] = {{"usage_s", usage},
                                      {"cpus", cpus},
                                      {"nr_periods", st["nr_periods"]},
                                      {"nr_throttled", st["nr_throttled"]},
                                      {"throttled_s", st["throttled_usec"] / 1e6}};
            // The quota holds over the run (a period's overrun is paid back in the next, so allow one
            // period's quota on top), and the group is throttled in most periods.
            const bool ok = st["nr_periods"] > 0 && st["nr_throttled"] >= 0.75 * st["nr_periods"] &&
                            usage <= quota_cpus * duration + quota_cpus * 0.01;
            holds = holds && ok;
            numbers += (numbers.empty() ? "" : "; ") + std::string(v.step) + ": " + fixed(cpus, 2) + " CPUs, throttled in " +
                       fixed(st["nr_throttled"], 0) + " of " + fixed(st["nr_periods"], 0) + " periods";
            ctx.write_data(std::string("timeline-") + v.step + ".dat", ctx.step_file(v.step, "plots/timeline.dat"));
        }
        r.report = "## hackbench -p -g 2 in /limited (cpu.max 20000 10000) on haswell-i7-4790\n\n" + md.str();
        r.check = {"the group gets its quota, 2 CPUs' worth, and no more: it is throttled in most periods and its "
                   "usage stays within the quota",
                   numbers, holds};
        r.look_at = {"throttling.png: the grey lines are the 10 ms periods; in each, hackbench fills the CPUs until "
                     "the group's 20 ms are spent, then every CPU goes idle (white) at once until the refill",
                     "per-cfs_rq throttling stops the group's run queues everywhere at the same instant; the task-based "
                     "model lets each task run on to its return to user mode",
                     "runs/*/cgroup/limited/cpu.stat: nr_periods, nr_throttled and throttled_usec as the kernel writes them"};
        std::string plot = "set multiplot layout 2,1 title 'hackbench -p -g 2 in a cgroup with cpu.max 20000 10000 "
                           "(2 of 8 CPUs), haswell-i7-4790'\nset xlabel 'simulated time (ms)'\nset ylabel 'CPU'\n"
                           "set yrange [-0.5:7.5]\nset xrange [0:" + fixed(duration * 1000, 0) + "]\nunset key\n"
                           "set style fill solid 1.0 noborder\n"
                           "do for [p=10:" + fixed(duration * 1000 - 10, 0) + ":10] { set arrow from p,-0.5 to p,7.5 nohead lc rgb '#888888' dt 2 }\n";
        for (const auto& v : variants)
            plot += std::string("set title '") + v.label + "' noenhanced\nplot 'timeline-" + v.step +
                    ".dat' using (($2+$3)/2):1:(($3-$2)/2):(0.4):(hsv2rgb($6, 0.65, 0.9)) skip 1 with boxxyerror lc rgb variable\n";
        plot += "unset multiplot\n";
        r.figures.push_back({"throttling", plot, 1400, 700});
        return r;
    }

    std::vector<std::string> try_next() const override {
        return {"warmsched run configs/tutorials/throttling.yaml --kernel cfs --plot   # CFS (v5.15) under the same quota",
                "warmsched run configs/tutorials/throttling.yaml -p platform=zen3-5950x --plot   # the quota spread over 32 CPUs",
                "warmsched run configs/tutorials/throttling.yaml -p 'cgroups.0.cpu.max=40000 10000' --plot   # 4 CPUs' worth",
                "warmsched run configs/tutorials/throttling.yaml -p 'cgroups.0.cpu\\.max\\.burst=10000' --plot   # a 10 ms burst",
                "warmsched run configs/experiments/throttle-hackbench-genoa.yaml   # 8,000 tasks in a 254-group tree"};
    }
};

} // namespace

const tutorial& throttling_tutorial() {
    static const throttling t;
    return t;
}

} // namespace warmsched::sim::tutorials
