// Tutorial 8, "own-policy": a scheduling policy of your own against EEVDF. The three example policies
// of scheduler/ext/examples (simple_fifo: one global FIFO; llc_rr: round-robin over the LLCs; llc_sticky:
// a task stays in its LLC), loaded into the ext class with --policy NAME --policy-all, and EEVDF itself, on
// the same hackbench on zen3-5950x. What each placement costs is the migration report's: migrations by
// distance and the refill stalls they caused. docs/writing-a-policy.md shows how to write one.
#include "sim/tutorials/tutorial.h"

#include <map>
#include <sstream>

namespace warmsched::sim::tutorials {
namespace {

struct variant {
    const char* step;
    const char* policy; // empty: EEVDF
    const char* label;
};
const variant variants[] = {
    {"eevdf", "", "EEVDF"},
    {"simple-fifo", "simple_fifo", "simple_fifo"},
    {"llc-rr", "llc_rr", "llc_rr"},
    {"llc-sticky", "llc_sticky", "llc_sticky"},
};
const char* const distances[] = {"SMT sibling", "same LLC", "other LLC"};

class own_policy final : public tutorial {
public:
    std::string name() const override { return "own-policy"; }
    std::string title() const override { return "Your own policy"; }
    std::string teaches() const override {
        return "A policy is judged by what its placements cost: the example plug-in policies (simple_fifo, "
               "llc_rr, llc_sticky) against EEVDF on one hackbench, with the cost-of-migration report side by side.";
    }
    std::vector<tutorial_step> steps(const tutorial_options& o) const override {
        std::vector<tutorial_step> s;
        for (const auto& v : variants) {
            std::vector<std::string> a{"run", "--platform", "zen3-5950x"};
            if (*v.policy) a.insert(a.end(), {"--policy", v.policy, "--policy-all"});
            a.insert(a.end(), {"--", "hackbench", "-p", "-g", "4", "-l", o.quick ? "100" : "500"});
            s.push_back({v.step, a});
        }
        return s;
    }

    tutorial_outcome analyse(const tutorial_context& ctx, const tutorial_options&) const override {
        tutorial_outcome r;
        std::ostringstream md, time_dat, count_dat, stall_dat;
        md << "| scheduler | hackbench Time (s) | migrations: SMT / same LLC / other LLC | refill misses | refill stall us "
              "(other LLC) | us per migration |\n|---|---|---|---|---|---|\n";
        time_dat << "# scheduler time_s\n";
        count_dat << "scheduler \"SMT sibling\" \"same LLC\" \"other LLC\"\n";
        stall_dat << "scheduler \"SMT sibling\" \"same LLC\" \"other LLC\"\n";
        std::map<std::string, std::map<std::string, double>> count, stall;
        std::map<std::string, double> per, time_s;
        for (const auto& v : variants) {
            for (const auto& [d, t] : migrations_by_distance(ctx, v.step)) {
                count[v.step][d] = t.migrations;
                stall[v.step][d] = t.stall_us;
            }
            const auto& all = ctx.step_json(v.step, "migration_report.json").at("all");
            per[v.step] = all.at("stall_per_migration_us").get<double>();
            time_s[v.step] = ctx.metric(v.step, "hackbench Time (s)");
            md << "| " << v.label << " | " << fixed(time_s[v.step], 3) << " | " << fixed(count[v.step]["SMT sibling"], 0)
               << " / " << fixed(count[v.step]["same LLC"], 0) << " / " << fixed(count[v.step]["other LLC"], 0) << " | "
               << all.at("refill").at("misses").get<double>() << " | " << fixed(all.at("refill").at("stall_us").get<double>(), 1)
               << " (" << fixed(stall[v.step]["other LLC"], 1) << ") | " << fixed(per[v.step], 3) << " |\n";
            time_dat << v.label << " " << time_s[v.step] << "\n";
            count_dat << v.label;
            stall_dat << v.label;
            for (const char* d : distances) {
                count_dat << " " << count[v.step][d];
                stall_dat << " " << stall[v.step][d];
            }
            count_dat << "\n";
            stall_dat << "\n";
            r.figures_data[v.step] = {{"hackbench_time_s", time_s[v.step]},
                                      {"migrations", count[v.step]},
                                      {"refill_stall_us", stall[v.step]},
                                      {"stall_per_migration_us", per[v.step]}};
        }
        ctx.write_data("time.dat", time_dat.str());
        ctx.write_data("migrations.dat", count_dat.str());
        ctx.write_data("refill.dat", stall_dat.str());
        r.report = "## hackbench -p -g 4 on zen3-5950x, every task run by the policy (--policy-all)\n\n" + md.str();
        const bool holds = count["llc-sticky"]["other LLC"] < 0.05 * std::max(count["eevdf"]["other LLC"], 1.0) &&
                           per["llc-sticky"] < per["eevdf"] && count["eevdf"]["other LLC"] > 0;
        r.check = {"a policy that keeps each task in its LLC removes the cross-LLC refills, so each of its migrations "
                   "costs less",
                   "other-LLC migrations EEVDF " + fixed(count["eevdf"]["other LLC"], 0) + ", llc_sticky " +
                       fixed(count["llc-sticky"]["other LLC"], 0) + "; stall per migration " + fixed(per["eevdf"], 3) +
                       " vs " + fixed(per["llc-sticky"], 3) + " us; hackbench Time EEVDF " + fixed(time_s["eevdf"], 3) +
                       " s, llc_sticky " + fixed(time_s["llc-sticky"], 3) + " s",
                   holds};
        r.look_at = {"own_policy.png, middle: migrations by distance; llc_rr spreads tasks over the LLCs, "
                     "llc_sticky keeps each in its own",
                     "right: the refill stalls those migrations caused: the other-LLC part is the one a placement "
                     "policy can avoid",
                     "left: fewer refills are not the whole story: a policy that never moves a task across LLCs "
                     "also leaves the other LLC's idle CPUs unused"};
        r.figures.push_back(
            {"own_policy",
             "set multiplot layout 1,3 title 'hackbench -p -g 4 on zen3-5950x: EEVDF and three plug-in policies "
             "(--policy-all)'\nset style data histograms\nset style fill solid 0.8 border -1\nset boxwidth 0.7\n"
             "set grid ytics\nset yrange [0:*]\nset xtics scale 0 noenhanced\n"
             "set title 'hackbench Time'\nset ylabel 's'\nset xrange [-0.6:3.6]\n"
             "plot 'time.dat' using 0:2:xtic(1) with boxes notitle lc rgb '#4477aa'\nset xrange [*:*]\n"
             "set style histogram rowstacked\nset key top right\nset title 'Migrations by distance'\n"
             "set ylabel 'migrations'\nplot for [i=2:4] 'migrations.dat' using i:xtic(1) title columnheader(i)\n"
             "set title 'Refill stalls by distance'\nset ylabel 'us of stalls'\n"
             "plot for [i=2:4] 'refill.dat' using i:xtic(1) title columnheader(i)\nunset multiplot\n",
             1500, 600});
        return r;
    }

    std::vector<std::string> try_next() const override {
        return {"cp scheduler/ext/examples/llc_sticky.cpp my_policy.cpp   # then edit it and build it as docs/writing-a-policy.md shows",
                "warmsched run --policy ./my_policy.so --policy-all -- hackbench -p -g 4 -l 500",
                "warmsched run --platform genoa-9654-2s --policy llc_rr --policy-all -- hackbench -p -g 8 -l 200   # 24 LLCs"};
    }
};

} // namespace

const tutorial& own_policy_tutorial() {
    static const own_policy t;
    return t;
}

} // namespace warmsched::sim::tutorials
