// Tutorial 4, "wake-affine": wake_affine and the LLC. hackbench -p (senders and receivers over pipes, a
// wakeup per message) on 16 CPUs of zen3-5950x: once all in one CCD (one L3), once split over the two.
// select_task_rq_fair places each wakee by wake_affine and select_idle_sibling, which look for an idle CPU
// in the target's LLC only; with the CPUs split, some wakeups still land in the other LLC (the previous
// CPU was there, or wake_affine chose the waker's side), and those refill their lines from the other L3.
// The counts and the refill come from the run's migration report; nothing here charges a distance.
#include "sim/plots/gnuplot.h"
#include "sim/tutorials/tutorial.h"

#include <map>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace {

struct variant {
    const char* step;
    const char* cpus;
    const char* label;
    const char* short_label; // the figure's
};
const variant variants[] = {
    {"one-ccd", "0-7,16-23", "one CCD (16 CPUs, one L3)", "one CCD"},
    {"two-ccds", "0-3,16-19,8-11,24-27", "two CCDs (8 + 8 CPUs, two L3s)", "two CCDs"},
};
const char* const distances[] = {"SMT sibling", "same LLC", "other LLC"};

class wake_affine final : public tutorial {
public:
    std::string name() const override { return "wake-affine"; }
    std::string title() const override { return "wake_affine and the LLC"; }
    std::string teaches() const override {
        return "Wakeup placement searches the LLC for an idle CPU; when a workload spans two LLCs some wakeups "
               "cross, and each crossing refetches its lines from the other L3. hackbench on one CCD vs two.";
    }
    std::vector<tutorial_step> steps(const tutorial_options& o) const override {
        std::vector<tutorial_step> s;
        for (const auto& v : variants)
            s.push_back({v.step,
                         {"run", "--platform", "zen3-5950x", "--", "taskset", "-c", v.cpus, "hackbench", "-p", "-g",
                          "4", "-l", o.quick ? "100" : "1000"}});
        return s;
    }

    tutorial_outcome analyse(const tutorial_context& ctx, const tutorial_options&) const override {
        tutorial_outcome r;
        std::ostringstream md, time_dat, count_dat, cost_dat;
        md << "| CPUs | hackbench Time (s) | wakeups | wakeup migrations: SMT / same LLC / other LLC | share of "
              "wakeups that crossed LLCs | refill us per wakeup migration: same LLC / other LLC |\n"
              "|---|---|---|---|---|---|\n";
        time_dat << "# cpus time_s\n";
        count_dat << "cpus \"SMT sibling\" \"same LLC\" \"other LLC\"\n";
        cost_dat << "cpus \"same LLC\" \"other LLC\"\n";
        std::map<std::string, std::map<std::string, double>> count, per_migration;
        std::map<std::string, double> time_s, share;
        for (const auto& v : variants) {
            for (const auto& [d, t] : migrations_by_distance(ctx, v.step, "wakeup")) {
                count[v.step][d] = t.migrations;
                per_migration[v.step][d] = t.stall_per_migration_us();
            }
            const double wakeups = ctx.stat(v.step, "kernel.wakeups");
            time_s[v.step] = ctx.metric(v.step, "hackbench Time (s)");
            share[v.step] = count[v.step]["other LLC"] / std::max(wakeups, 1.0);
            md << "| " << v.label << " | " << fixed(time_s[v.step], 3) << " | " << fixed(wakeups, 0) << " | "
               << fixed(count[v.step]["SMT sibling"], 0) << " / " << fixed(count[v.step]["same LLC"], 0) << " / "
               << fixed(count[v.step]["other LLC"], 0) << " | " << fixed(100 * share[v.step], 2) << "% | "
               << fixed(per_migration[v.step]["same LLC"], 3) << " / " << fixed(per_migration[v.step]["other LLC"], 3)
               << " |\n";
            const std::string q = std::string("\"") + v.short_label + "\"";
            time_dat << q << " " << time_s[v.step] << "\n";
            count_dat << q;
            for (const char* d : distances) count_dat << " " << count[v.step][d];
            count_dat << "\n";
            cost_dat << q << " " << per_migration[v.step]["same LLC"] << " " << per_migration[v.step]["other LLC"] << "\n";
            r.figures_data[v.step] = {{"hackbench_time_s", time_s[v.step]},
                                      {"wakeups", wakeups},
                                      {"wakeup_migrations", count[v.step]},
                                      {"refill_us_per_wakeup_migration", per_migration[v.step]},
                                      {"share_of_wakeups_crossing_llc", share[v.step]}};
        }
        ctx.write_data("time.dat", time_dat.str());
        ctx.write_data("wakeup_migrations.dat", count_dat.str());
        ctx.write_data("refill.dat", cost_dat.str());
        r.report = "## hackbench -p -g 4 on 16 CPUs of zen3-5950x\n\n" + md.str();
        const double same = per_migration["two-ccds"]["same LLC"], cross = per_migration["two-ccds"]["other LLC"];
        const bool holds = count["one-ccd"]["other LLC"] == 0 && count["two-ccds"]["other LLC"] > 0 && cross > 2 * same &&
                           time_s["two-ccds"] > time_s["one-ccd"];
        r.check = {"split over two LLCs, wakeups cross, each crossing refills more than one within the LLC, and "
                   "hackbench takes longer",
                   "cross-LLC wakeup migrations " + fixed(count["one-ccd"]["other LLC"], 0) + " (one CCD) vs " +
                       fixed(count["two-ccds"]["other LLC"], 0) + " (two); refill per migration " + fixed(cross, 3) +
                       " us across vs " + fixed(same, 3) + " us within; Time " + fixed(time_s["one-ccd"], 3) +
                       " s vs " + fixed(time_s["two-ccds"], 3) + " s",
                   holds};
        r.look_at = {"wake_affine.png, middle: the wakeup migrations by distance; only the split run has any that "
                     "cross LLCs",
                     "right: what one wakeup migration refetches, in us of stalls: a crossing costs several times "
                     "a move within the LLC (the lines come from the other L3, across the I/O die)",
                     "runs/two-ccds/report.txt: the cost-of-migrations table, by cause and distance"};
        r.figures.push_back(
            {"wake_affine",
             "set multiplot layout 1,3 title 'hackbench -p -g 4 on 16 CPUs of zen3-5950x: one CCD vs two'\n"
             "set style data histograms\nset style fill solid 0.8 border -1\nset boxwidth 0.7\nset grid ytics\n"
             "set yrange [0:*]\nset xtics scale 0\n"
             "set title 'hackbench Time'\nset ylabel 's'\nset xrange [-0.6:1.6]\n"
             "plot 'time.dat' using 0:2:xtic(1) with boxes notitle lc rgb '#4477aa'\nset xrange [*:*]\n"
             "set style histogram rowstacked\nset title 'Wakeup migrations by distance'\nset ylabel 'migrations'\n"
             "set key top left\nplot 'wakeup_migrations.dat' using 2:xtic(1) title columnheader(2) lc rgb " +
                 category_colour("SMT sibling") + ", '' using 3 title columnheader(3) lc rgb " +
                 category_colour("same LLC") + ", '' using 4 title columnheader(4) lc rgb " +
                 category_colour("other LLC") +
                 "\nset style histogram clustered gap 1\nset title 'Refill per wakeup migration'\n"
                 "set ylabel 'us of stalls per migration'\n"
                 "plot 'refill.dat' using 2:xtic(1) title columnheader(2) lc rgb " +
                 category_colour("same LLC") + ", '' using 3 title columnheader(3) lc rgb " +
                 category_colour("other LLC") + "\nunset multiplot\n",
             1500, 600});
        return r;
    }

    std::vector<std::string> try_next() const override {
        return {"warmsched run --platform zen3-5950x --feature WA_WEIGHT=off -- taskset -c 0-3,16-19,8-11,24-27 hackbench -p -g 4 -l 1000",
                "warmsched run --platform zen3-5950x -- hackbench -p -g 10 -l 1000   # all 32 CPUs: how many wakeups cross?",
                "warmsched run --platform genoa-9654-2s -- taskset -c 0-7,96-103 hackbench -p -g 4 -l 500   # two sockets"};
    }
};

} // namespace

const tutorial& wake_affine_tutorial() {
    static const wake_affine t;
    return t;
}

} // namespace warmsched::sim::tutorials
