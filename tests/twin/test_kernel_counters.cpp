// Reading /proc/schedstat and ftrace text the same way for the real kernel and the model
// (twin/kernel_counters.h). The schedstat fixtures are a real Linux 6.1 guest's (hackbench -p -g 1 -l 300
// on 4 vCPUs); the expected sums were taken from the files with awk in the field order of
// kernel/sched/stats.c (show_schedstat, version 15).
#include "twin/kernel_counters.h"
#include "twin/twin_report.h"

#include "support/cli_runner.h"
#include "support/file_text.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace warmsched;

namespace {
const std::string data = std::string(WARMSCHED_SOURCE_DIR) + "/tests/twin/data/";
std::string mc(unsigned, unsigned) {
    return "MC";
}
} // namespace

TEST_CASE("a real 6.1 guest's /proc/schedstat (version 15): per-CPU and per-domain sums, and the delta") {
    const auto end = twin::parse_schedstat(test::file_text(data + "guest-6.1-schedstat.end"), mc);
    CHECK(end.version == 15);
    CHECK(end.cpus == 4);
    CHECK(end.ttwu_count == 46745);
    CHECK(end.ttwu_local == 15622);
    REQUIRE(end.levels.size() == 1);
    CHECK(end.levels[0].name == "MC");
    CHECK(end.levels[0].ttwu_wake_remote == 31108);
    CHECK(end.levels[0].ttwu_move_affine == 803);
    CHECK(end.levels[0].lb_count[twin::lb_busy] == 220);
    CHECK(end.levels[0].lb_count[twin::lb_newidle] == 140);
    CHECK(end.levels[0].lb_gained[twin::lb_newidle] == 51);
    const auto start = twin::parse_schedstat(test::file_text(data + "guest-6.1-schedstat.start"), mc);
    const auto d = twin::schedstat_delta(end, start);
    CHECK(d.ttwu_count == 46745 - 1312);
    CHECK(d.levels[0].ttwu_wake_remote == 31108 - 817);
    CHECK(d.levels[0].lb_count[twin::lb_idle] == 56);
    CHECK(d.levels[0].lb_count[twin::lb_busy] == 220 - 12);
}

TEST_CASE("version 17 names its levels and orders the blocks busy, idle, newly idle with 11 fields each") {
    // busy: lb_count 5 ... lb_gained 2 (the 8th field); idle: lb_count 7, gained 3; newly idle: 9, 4.
    const std::string text =
        "version 17\ntimestamp 1\ncpu0 0 0 10 2 30 20 1000 2000 12\n"
        "domain0 SMT 00000003 5 0 1 0 0 0 0 2 0 0 0 7 0 0 0 0 0 0 3 0 0 0 9 0 0 0 0 0 0 4 0 0 0 "
        "0 0 0 0 0 0 0 0 0 11 22 33\n";
    const auto s = twin::parse_schedstat(text, mc);
    REQUIRE(s.levels.size() == 1);
    CHECK(s.levels[0].name == "SMT");
    CHECK(s.ttwu_count == 30);
    CHECK(s.sched_count == 10);
    CHECK(s.levels[0].lb_count[twin::lb_busy] == 5);
    CHECK(s.levels[0].lb_failed[twin::lb_busy] == 1);
    CHECK(s.levels[0].lb_gained[twin::lb_busy] == 2);
    CHECK(s.levels[0].lb_count[twin::lb_idle] == 7);
    CHECK(s.levels[0].lb_gained[twin::lb_idle] == 3);
    CHECK(s.levels[0].lb_count[twin::lb_newidle] == 9);
    CHECK(s.levels[0].lb_gained[twin::lb_newidle] == 4);
    CHECK(s.levels[0].ttwu_wake_remote == 11);
    CHECK(s.levels[0].ttwu_move_affine == 22);
    CHECK_THROWS(twin::parse_schedstat("hello\n", mc));
}

TEST_CASE("the trace: the workload is what twin_runner forked, with its switches, migrations, wakeups and "
          "CPU time") {
    const auto t = twin::parse_trace(data + "trace-guest.txt", "twin_runner");
    REQUIRE(t.tasks.size() == 2); // 301 (exec'd hackbench) and its child 302; not twin_runner, not kworkers
    const auto& parent = t.tasks.at(301);
    const auto& child = t.tasks.at(302);
    CHECK(parent.nivcsw == 1); // R+ (preempted)
    CHECK(parent.nvcsw == 1);  // Z (exit)
    CHECK(child.nvcsw == 1);   // S
    CHECK(child.nivcsw == 1);  // R (yielded or preempted while runnable)
    CHECK(child.migrations == 1);
    CHECK(child.wakeups == 1);
    CHECK(child.wakeups_remote == 0); // woken on CPU 0 by a waker on CPU 0
    CHECK(parent.wakeups == 1);
    CHECK(parent.wakeups_remote == 1); // woken onto CPU 0 from CPU 1
    // Both were woken from a CPU other than the one they last ran on: wake_affine's choice. 302 (last on
    // CPU 1, woken from CPU 0) was pulled to the waker's CPU; 301 (last on CPU 0, woken from CPU 1) was
    // left where it was.
    CHECK(child.wakeups_away == 1);
    CHECK(child.away_to_waker == 1);
    CHECK(child.away_to_prev == 0);
    CHECK(parent.wakeups_away == 1);
    CHECK(parent.away_to_waker == 0);
    CHECK(parent.away_to_prev == 1);
    // 301 ran 1.000010-1.000500 and 1.000700-1.001000; 302 ran 1.000200-1.000300 and 1.000500-1.000700.
    CHECK(parent.runtime_ns == 490'000 + 300'000);
    CHECK(parent.root == 301); // forked by twin_runner: a workload root
    CHECK(child.root == 301);
    CHECK(child.runtime_ns == 100'000 + 200'000);
    const auto all = twin::parse_trace(data + "trace-guest.txt", "");
    CHECK(all.tasks.count(300) == 1);     // the model's convention: every task with a pid
    CHECK(all.tasks.at(300).root == 300); // no fork event: a root
    CHECK(all.tasks.at(302).root == 300);
}

TEST_CASE("the trace: involuntary switches split into wakeup preemptions and the rest, RT tasks by prio") {
    // trace-guest.txt: 301 is preempted (R+) by 302, which was woken onto its CPU just before; 302 is
    // switched out runnable (R) for 301, which was not woken there: not a wakeup preemption.
    const auto g = twin::parse_trace(data + "trace-guest.txt", "twin_runner");
    CHECK(g.tasks.at(301).nivcsw_wakeup == 1);
    CHECK(g.tasks.at(302).wakeup_preempts == 1);
    CHECK(g.tasks.at(302).nivcsw == 1);
    CHECK(g.tasks.at(302).nivcsw_wakeup == 0);
    CHECK(g.tasks.at(301).wakeup_preempts == 0);
    CHECK(g.tasks.at(302).wakeups_idle == 0); // woken onto CPU 0 while 301 ran there
    CHECK_FALSE(g.has_rt());

    const auto t = twin::parse_trace(data + "trace-rt.txt", "");
    REQUIRE(t.has_rt());
    const auto& cyc = t.tasks.at(2);
    const auto& hog = t.tasks.at(3);
    CHECK(cyc.rt());
    CHECK_FALSE(hog.rt());
    CHECK(cyc.wakeups == 2);
    CHECK(cyc.wakeups_idle == 1);    // onto idle CPU 0
    CHECK(cyc.wakeup_preempts == 1); // onto CPU 1, preempting the hog
    CHECK(cyc.migrations == 1);
    CHECK(hog.nivcsw == 2);
    CHECK(hog.nivcsw_wakeup == 1); // the RT wakeup; the second is the tick's
    // A task made RT after it started (sched_setscheduler), or boosted for a while (PREEMPT_RT's lock
    // owners), is classed by most of its traced prios.
    twin::task_counters c;
    c.saw_prio(120);
    c.saw_prio(9);
    CHECK_FALSE(c.rt());
    c.saw_prio(9);
    CHECK(c.rt());
    twin::task_counters boosted;
    for (long p : {120, 120, 98, 120}) boosted.saw_prio(p);
    CHECK_FALSE(boosted.rt());
    const auto rt = t.total_of(true), fair = t.total_of(false);
    CHECK(rt.wakeups == 2);
    CHECK(rt.runtime_ns == 5'000 + 6'000);
    CHECK(fair.nivcsw == 2);
    CHECK(fair.wakeups == 0);
}

TEST_CASE("headline figures of the tools' output") {
    CHECK(twin::find_headline("Running in process mode\nTime: 12.008\n")->value == Approx(12.008));
    CHECK(twin::find_headline("     Total time: 0.009 [sec]\n\n       4.755000 usecs/op\n")->name ==
          "perf bench sched pipe usecs/op");
    const auto c = twin::find_headline("T: 0 (  2) P:90 I:1000 C:  10 Min:  2 Act:  2 Avg:  2 Max:  7\n"
                                       "T: 1 (  3) P:90 I:1500 C:   7 Min:  2 Act:  2 Avg:  2 Max: 41\n");
    REQUIRE(c);
    CHECK(c->value == 41);
    CHECK(!twin::find_headline("nothing here"));
}

TEST_CASE("run --schedstat-version writes the layouts asked for, and version 16 reads back as 15 and 17 do") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "warmsched-schedstat-versions";
    fs::remove_all(dir);
    const auto r = test::run_cli("run --platform zen3-5950x --seed 1 --schedstat-version 15,16,17 --out " +
                                 dir.string() + " -- hackbench -p -g 2 -l 20");
    REQUIRE(r.status == 0);
    const auto text16 = test::file_text(dir / "schedstat" / "v16-end.txt");
    CHECK(text16.rfind("version 16\n", 0) == 0);
    // v15 and v16 lines carry no name: level k of a CPU is the k-th domain (SMT, MC, PKG on zen3).
    const auto by_index = [](unsigned, unsigned index) {
        return std::string(index == 0 ? "SMT" : index == 1 ? "MC" : "PKG");
    };
    const auto v15 = twin::parse_schedstat(test::file_text(dir / "schedstat" / "v15-end.txt"), by_index);
    const auto v16 = twin::parse_schedstat(text16, by_index);
    const auto v17 = twin::parse_schedstat(test::file_text(dir / "schedstat" / "v17-end.txt"), by_index);
    CHECK(v16.version == 16);
    REQUIRE(v16.levels.size() == 3);
    REQUIRE(v15.levels.size() == 3);
    REQUIRE(v17.levels.size() == 3);
    for (unsigned l = 0; l < 3; ++l) {
        INFO(v16.levels[l].name);
        for (int t = 0; t < 3; ++t) { // the same counters, whichever order the blocks take
            CHECK(v16.levels[l].lb_count[t] == v15.levels[l].lb_count[t]);
            CHECK(v16.levels[l].lb_gained[t] == v15.levels[l].lb_gained[t]);
            CHECK(v16.levels[l].lb_count[t] == v17.levels[l].lb_count[t]);
        }
        CHECK(v16.levels[l].ttwu_wake_remote == v15.levels[l].ttwu_wake_remote);
    }
    CHECK(v15.levels[2].lb_count[twin::lb_newidle] > 0);
    // The default: 15 and 17, as before.
    const auto d = test::run_cli("run --platform zen3-5950x --seed 1 --out " + (dir / "d").string() +
                                 " -- hackbench -p -g 1 -l 5");
    REQUIRE(d.status == 0);
    CHECK(fs::exists(dir / "d" / "schedstat" / "v15-end.txt"));
    CHECK(fs::exists(dir / "d" / "schedstat" / "v17-end.txt"));
    CHECK_FALSE(fs::exists(dir / "d" / "schedstat" / "v16-end.txt"));
    const auto bad = test::run_cli("run --schedstat-version 14 -- hackbench -p -g 1 -l 5");
    CHECK(bad.status == 2);
    CHECK(bad.err.find("schedstat_versions: expected a comma-separated list of 15, 16 and 17") !=
          std::string::npos);
}
