// Runs with a cgroup hierarchy, checked the way users read the results: cgroup/<path>/cpu.stat in the
// cgroup v2 layout, each group's usage against the CPU time of the tasks its cgroup.threads lists (their
// schedstat/<pid>/schedstat), the run summary's table and stats.txt against the files, a quota that
// throttles, the generator's tree in a run, and rt-app's taskgroup putting a thread in its group.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/file_text.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using warmsched::test::run_cli;

using warmsched::test::file_text;

namespace {

fs::path temp(const std::string& name) {
    return warmsched::test::temp_path("cgrun", name);
}

// cpu.stat read the way a monitoring script reads it: "key value" lines, in the kernel's order.
std::map<std::string, unsigned long long> read_cpu_stat(const fs::path& file) {
    static const std::regex layout(R"(usage_usec (\d+)\nuser_usec (\d+)\nsystem_usec (\d+)\n)"
                                   R"(nr_periods (\d+)\nnr_throttled (\d+)\nthrottled_usec (\d+)\n)"
                                   R"(nr_bursts (\d+)\nburst_usec (\d+)\n)");
    const std::string text = file_text(file);
    INFO(file.string() << ":\n" << text);
    std::smatch m;
    REQUIRE(std::regex_match(text, m, layout));
    const char* keys[] = {"usage_usec",   "user_usec",      "system_usec", "nr_periods",
                          "nr_throttled", "throttled_usec", "nr_bursts",   "burst_usec"};
    std::map<std::string, unsigned long long> out;
    for (int i = 0; i < 8; ++i) out[keys[i]] = std::stoull(m[i + 1].str());
    return out;
}

// The CPU time (ns) of the tasks listed in cgroup.threads of `group_dir` and every group below it.
unsigned long long tasks_cpu_ns(const fs::path& results, const fs::path& group_dir, unsigned& tasks) {
    unsigned long long sum = 0;
    for (const auto& e : fs::recursive_directory_iterator(group_dir)) {
        if (e.path().filename() != "cgroup.threads") continue;
        std::ifstream in(e.path());
        for (int pid; in >> pid;) {
            std::ifstream ss(results / "schedstat" / std::to_string(pid) / "schedstat");
            unsigned long long run = 0;
            REQUIRE(ss >> run);
            sum += run;
            ++tasks;
        }
    }
    return sum;
}

} // namespace

TEST_CASE("cgroups run: cpu.stat of every group is the CPU time of its tasks and the quota throttles") {
    const fs::path exp = temp("exp.yaml"), out = temp("out");
    std::ofstream(exp) << R"(platform: zen3-5950x
duration: 0.03s
migration_cost: false
cgroups:
  - {path: /a, cpu.max: "4000 10000"}
  - {path: /b}
  - {path: /b/c, cpu.weight: 300}
workloads:
  - {command: hackbench -p -g 1 -f 10 -l 100000, cgroup: /a}
  - {command: hackbench -p -g 1 -f 10 -l 100000, cgroup: /b/c}
  - hackbench -p -g 1 -f 10 -l 100000
)";
    const auto r = run_cli("run " + exp.string() + " --out " + out.string());
    INFO(r.err);
    REQUIRE(r.status == 0);
    const fs::path cg = out / "cgroup";
    std::map<std::string, std::map<std::string, unsigned long long>> stat;
    for (const std::string g : {"", "a", "b", "b/c"}) {
        INFO("group /" << g);
        stat[g] = read_cpu_stat(cg / g / "cpu.stat");
        const auto& s = stat[g];
        // user + system is usage, each truncated to whole microseconds.
        CHECK(s.at("user_usec") + s.at("system_usec") <= s.at("usage_usec"));
        CHECK(s.at("user_usec") + s.at("system_usec") + 1 >= s.at("usage_usec"));
        unsigned tasks = 0;
        const unsigned long long ns = tasks_cpu_ns(out, g.empty() ? cg : cg / g, tasks);
        CHECK(tasks ==
              (g.empty() ? 63u : 21u)); // hackbench -g 1 -f 10: its main task, 10 senders, 10 receivers
        CHECK(s.at("usage_usec") == ns / 1000);
        CHECK(s.at("usage_usec") > 1000);
    }
    // The quota: 0.4 CPU in 10 ms periods over 30 ms -- /a is throttled in most periods and gets at most
    // 3 periods' quota plus the slices its CPUs still held (5 ms each, as the kernel allows).
    CHECK(stat["a"].at("nr_periods") >= 2);
    CHECK(stat["a"].at("nr_throttled") >= 1);
    CHECK(stat["a"].at("throttled_usec") > 0);
    CHECK(stat["a"].at("usage_usec") < stat["b/c"].at("usage_usec"));
    for (const std::string g : {"", "b", "b/c"}) CHECK(stat[g].at("nr_periods") == 0);

    // The summary's table, read as a user would: one row per top-level group.
    const std::regex row(
        R"(^  (/\S+)\s+(max \d+|\d+ \d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)$)");
    CHECK(r.out.find("cgroups            3 groups (2 leaves, 1 with a quota)") != std::string::npos);
    std::map<std::string, std::vector<std::string>> rows;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
        if (std::smatch m; std::regex_match(line, m, row)) rows[m[1]] = {m.begin(), m.end()};
    REQUIRE(rows.size() == 2); // /a (quota, top level) and /b (top level); /b/c is neither
    CHECK(rows["/a"][2] == "4000 10000");
    CHECK(rows["/b"][2] == "max 100000");
    for (const std::string g : {"a", "b"}) {
        INFO(g);
        CHECK(std::stod(rows["/" + g][3]) ==
              Approx(static_cast<double>(stat[g].at("usage_usec")) / 1e6).margin(6e-5));
        CHECK(std::stoull(rows["/" + g][6]) == stat[g].at("nr_throttled"));
    }
    // stats.txt carries the same counters.
    const std::string stats = file_text(out / "stats.txt");
    std::smatch m;
    REQUIRE(std::regex_search(stats, m, std::regex(R"(\nkernel\.cgroup\./a\.nr_throttled\s+(\d+)\s+#)")));
    CHECK(std::stoull(m[1]) == stat["a"].at("nr_throttled"));
    REQUIRE(std::regex_search(stats, m, std::regex(R"(\nkernel\.cgroup\./b/c\.usage_usec\s+(\d+)\s+#)")));
    CHECK(std::stoull(m[1]) == stat["b/c"].at("usage_usec"));
    // config.yaml has the hierarchy and each workload's group.
    const std::string cfg = file_text(out / "config.yaml");
    CHECK(cfg.find("cgroup: /b/c") != std::string::npos);
    CHECK(cfg.find("cpu.max: 4000 10000") != std::string::npos);
    fs::remove_all(out);
    fs::remove(exp);
}

TEST_CASE("cgroups run: the generator's tree runs with one workload per leaf") {
    const fs::path exp = temp("gen.yaml"), out = temp("gen-out");
    std::ofstream(exp) << R"(platform: zen3-5950x
migration_cost: false
cgroup_generator:
  name: t
  fanout: [2, 3]
  level_1: {cpu.max: "50000 10000"}
  leaf_workload: hackbench -p -g 1 -f 2 -l 5
)";
    const auto r = run_cli("run " + exp.string() + " --out " + out.string());
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("cgroups            8 groups (6 leaves, 2 with a quota)") != std::string::npos);
    // Six hackbench reports, one per leaf.
    std::size_t times = 0;
    const std::regex time_line(R"(\nTime: \d+\.\d{3}\n)");
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), time_line); it != std::sregex_iterator();
         ++it)
        ++times;
    CHECK(times == 6);
    unsigned long long leaves_usage = 0;
    for (int t = 0; t < 2; ++t)
        for (int l = 0; l < 3; ++l) {
            const fs::path leaf = out / "cgroup" / ("t" + std::to_string(t)) / ("l2_" + std::to_string(l));
            INFO(leaf.string());
            leaves_usage += read_cpu_stat(leaf / "cpu.stat").at("usage_usec");
        }
    const auto t0 = read_cpu_stat(out / "cgroup" / "t0" / "cpu.stat");
    const auto t1 = read_cpu_stat(out / "cgroup" / "t1" / "cpu.stat");
    // A parent's usage is its children's (the leaves hold every task); truncating each leaf to whole
    // microseconds loses < 1 us per leaf, so each parent's figure is up to 2 us above its 3 leaves'.
    CHECK(t0.at("usage_usec") + t1.at("usage_usec") <= leaves_usage + 4);
    CHECK(t0.at("usage_usec") + t1.at("usage_usec") + 6 >= leaves_usage);
    CHECK(leaves_usage > 0);
    fs::remove_all(out);
    fs::remove(exp);
}

TEST_CASE("cgroups run: rt-app taskgroup moves the thread into its group") {
    const fs::path json = temp("tg.json"), exp = temp("tg.yaml"), out = temp("tg-out");
    std::ofstream(json) << R"({"global": {"duration": 0, "calibration": 14},
  "tasks": {"grouped": {"taskgroup": "/rt/tg", "loop": 20, "run": 500, "sleep": 500},
            "plain": {"loop": 20, "run": 300, "sleep": 700}}})";
    std::ofstream(exp)
        << "platform: zen3-5950x\nmigration_cost: false\ncgroups:\n  - {path: /rt}\n  - {path: /rt/tg}\n"
           "workloads:\n  - rt-app " +
               json.string() + "\n";
    auto r = run_cli("run " + exp.string() + " --out " + out.string());
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    // The grouped thread's pid, from rt-app's summary row ("grouped-0 <pid> SCHED_OTHER ...").
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(\ngrouped-0\s+(\d+)\s+SCHED_OTHER)")));
    const std::string pid = m[1];
    // It has exited, so cgroup.threads is empty; the group's usage is its CPU time from its move into
    // the group, which it makes as it starts (sched_move_task charges the time before it, a few
    // microseconds, to the root group).
    std::ifstream ss(out / "schedstat" / pid / "schedstat");
    unsigned long long run = 0;
    REQUIRE(ss >> run);
    const auto tg = read_cpu_stat(out / "cgroup" / "rt" / "tg" / "cpu.stat");
    CHECK(tg.at("usage_usec") <= run / 1000);
    CHECK(tg.at("usage_usec") + 10 >= run / 1000);
    CHECK(tg.at("usage_usec") >= 20 * 450); // 20 loops of run 500 us
    CHECK(read_cpu_stat(out / "cgroup" / "rt" / "cpu.stat").at("usage_usec") == tg.at("usage_usec"));
    fs::remove_all(out);

    // A taskgroup the experiment does not have: one line naming the file, the JSON path and the group.
    std::ofstream(exp) << "platform: zen3-5950x\ncgroups:\n  - {path: /rt}\nworkloads:\n  - rt-app " +
                              json.string() + "\n";
    r = run_cli("run " + exp.string() + " --out " + out.string());
    CHECK(r.status != 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("rt-app: " + json.string() +
                     ": tasks.grouped.taskgroup: taskgroup \"/rt/tg\" is not a group "
                     "of this experiment") != std::string::npos);
    fs::remove_all(out);
    fs::remove(exp);
    fs::remove(json);
}

// LAUNCH_FORK_EXEC: the launcher forks each workload's first task straight into the workload's group
// (clone3's CLONE_INTO_CGROUP), so the group's usage is its tasks' CPU time from the first instant, and
// the launcher itself stays in the root group.
TEST_CASE("cgroups run: under LAUNCH_FORK_EXEC each workload's first task is forked into its group") {
    const fs::path exp = temp("launch.yaml"), out = temp("launch-out");
    std::ofstream(exp) << R"(platform: zen3-5950x
duration: 0.01s
migration_cost: false
cgroups:
  - {path: /a}
  - {path: /b}
workloads:
  - {command: hackbench -p -g 1 -l 100000, cgroup: /a}
  - {command: hackbench -p -g 1 -l 100000, cgroup: /b}
)";
    const auto r = run_cli("run " + exp.string() + " --feature LAUNCH_FORK_EXEC=on --out " + out.string());
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    // pids 1 and 2: the two mains, spawned first; 3: the launcher, which forked them and exited.
    const fs::path sh = out / "schedstat" / "3";
    const std::string sched = file_text(sh / "sched");
    CHECK(sched.substr(0, sched.find(" (")) == "sh"); // /proc/PID/sched's first line: comm (pid, ...)
    unsigned long long sh_ns = 0;
    std::ifstream(sh / "schedstat") >> sh_ns;
    CHECK(sh_ns > 0);
    const fs::path cg = out / "cgroup";
    for (const std::string g : {"", "a", "b"}) {
        INFO("group /" << g);
        const auto s = read_cpu_stat(cg / g / "cpu.stat");
        unsigned tasks = 0;
        const unsigned long long ns = tasks_cpu_ns(out, g.empty() ? cg : cg / g, tasks);
        // hackbench -g 1: its main task, 20 senders, 20 receivers, all still running; the root's usage
        // also has the launcher's time.
        CHECK(tasks == (g.empty() ? 82u : 41u));
        CHECK(s.at("usage_usec") == (g.empty() ? ns + sh_ns : ns) / 1000);
        CHECK(s.at("usage_usec") > 1000);
    }
    CHECK(file_text(cg / "cgroup.threads").empty()); // the root group holds none of the workloads' tasks
    fs::remove_all(out);
    fs::remove(exp);
}

TEST_CASE("cgroups run: --cgroup starts the workload given after -- in a group of the experiment") {
    const fs::path exp = temp("cli.yaml"), out = temp("cli-out");
    std::ofstream(exp)
        << "platform: zen3-5950x\nmigration_cost: false\ncgroups:\n  - {path: /a}\n  - {path: /b}\n";
    auto r =
        run_cli("run " + exp.string() + " --cgroup /a --out " + out.string() + " -- hackbench -p -g 2 -l 20");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const auto a = read_cpu_stat(out / "cgroup" / "a" / "cpu.stat");
    const auto b = read_cpu_stat(out / "cgroup" / "b" / "cpu.stat");
    CHECK(a.at("usage_usec") > 0);
    CHECK(b.at("usage_usec") == 0);
    // config.yaml records where it ran, so the run can be repeated from it
    CHECK(file_text(out / "config.yaml").find("cgroup: /a") != std::string::npos);
    fs::remove_all(out);

    r = run_cli("run " + exp.string() + " --cgroup /nope -- hackbench -p -g 2 -l 20");
    CHECK(r.status == 2);
    CHECK(r.err == "error: <command line>: --cgroup: \"/nope\" is not a group of this experiment (define it "
                   "under cgroups: or with cgroup_generator:)\n");
    fs::remove(exp);
}
