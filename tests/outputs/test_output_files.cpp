// The results files that are not the kernel's own formats, each read back the way its users read it and
// checked against the run's own counters: report.json and migration_report.json (against report.txt and
// stats.json), compare's counter rows (migrations by distance, cross-LLC transfers, lb gained per
// domain level, against stats.json), trace.json (Trace Event Format: parses, every event has ph/ts/pid,
// slices of a CPU do not overlap, one per stint and one instant per sched_migrate_task of trace.txt),
// trace.vcd (IEEE 1364 text: header, declared ids, increasing timestamps) with its GTKWave translate
// filter (names every pid the VCD shows), and the gnuplot plots (PNG and SVG files that are what they
// say; cyclictest's histogram data adds up to its printed totals), plus the one-line errors of bad
// options.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"
#include "support/file_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::json;
using warmsched::test::run_cli;

using warmsched::test::file_text;

namespace {
// One run on zen3-5950x into a fresh directory (default: a short hackbench); `extra` are more run options.
fs::path run_workload(const std::string& name, const std::string& extra,
                      const std::string& workload = "hackbench -p -g 2 -l 10") {
    const fs::path dir = fs::temp_directory_path() / ("warmsched-outputs-" + name);
    fs::remove_all(dir);
    const auto r =
        run_cli("run --platform zen3-5950x " + extra + " --out " + dir.string() + " -- " + workload);
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    return dir;
}

// stats.json's values by dotted name.
std::map<std::string, double> stats_of(const fs::path& dir) {
    std::map<std::string, double> out;
    const json j = json::parse(file_text(dir / "stats.json"));
    for (const auto& block : j.at("simulation"))
        for (const auto& [name, stat] : block.items())
            if (!stat.at("value").is_null()) out[name] = stat.at("value").get<double>();
    return out;
}

double sum_matching(const std::map<std::string, double>& stats, const std::regex& re) {
    double s = 0;
    for (const auto& [name, v] : stats)
        if (std::regex_match(name, re)) s += v;
    return s;
}
} // namespace

TEST_CASE("report.json and migration_report.json agree with report.txt and stats.json") {
    const fs::path dir = run_workload("json", "");
    const json report = json::parse(file_text(dir / "report.json"));
    std::smatch m;
    const std::string text = file_text(dir / "report.txt");
    REQUIRE(std::regex_search(text, m, std::regex(R"((?:^|\n)Time: ([0-9.]+)\n)")));
    REQUIRE(report.at("workloads").size() == 1);
    CHECK(report["workloads"][0]["command"] == "hackbench -p -g 2 -l 10");
    CHECK(text.find(report["workloads"][0]["output"].get<std::string>()) == 0);
    CHECK(report["metrics"]["hackbench Time (s)"].get<double>() == Approx(std::stod(m[1].str())));

    const auto stats = stats_of(dir);
    const json mr = json::parse(file_text(dir / "migration_report.json"));
    double class_sum = 0, refill_sum = 0;
    for (const auto& c : mr.at("classes")) {
        class_sum += c.at("migrations").get<double>();
        refill_sum += c.at("refill").at("misses").get<double>();
        double by_origin = 0;
        for (const auto& [origin, n] : c["refill"]["by_origin"].items()) by_origin += n.get<double>();
        CHECK(by_origin == c["refill"]["misses"].get<double>());
    }
    REQUIRE(stats.count("kernel.migrationCost.migrations"));
    CHECK(class_sum > 0);
    CHECK(mr["all"]["migrations"].get<double>() == class_sum);
    CHECK(class_sum == stats.at("kernel.migrationCost.migrations"));
    CHECK(refill_sum == stats.at("kernel.migrationCost.refill.misses"));
    CHECK(mr["unattributed"]["misses"].get<double>() == stats.at("kernel.migrationCost.unattributed.misses"));
    CHECK(mr["stacking"]["misses"].get<double>() == stats.at("kernel.stacking.misses"));
    CHECK(mr["stacking"]["stall_us"].get<double>() ==
          Approx(stats.at("kernel.stacking.stallSeconds") * 1e6).epsilon(1e-5));
}

TEST_CASE("compare prints migrations by distance and cross-LLC transfers and lb gained per domain level") {
    const fs::path a = run_workload("cmp-cfs", "--kernel cfs"),
                   b = run_workload("cmp-eevdf", "--kernel eevdf");
    const auto c = run_cli("compare " + a.string() + " " + b.string());
    INFO(c.out << c.err);
    REQUIRE(c.status == 0);
    // The Amean row of `metric` (compare's single-token name: its words joined by '-'): the first column's
    // value (one run: the value itself).
    auto first_column = [&](std::string metric) {
        std::replace(metric.begin(), metric.end(), ' ', '-');
        std::smatch m;
        const std::regex row("\\nAmean +" + metric + R"( +([-0-9.e+]+) \()");
        REQUIRE(std::regex_search(c.out, m, row));
        return std::stod(m[1].str());
    };
    const auto s = stats_of(a);
    double by_distance = 0;
    for (const auto& [label, key] :
         std::vector<std::pair<std::string, std::string>>{{"SMT sibling", "smtSibling"},
                                                          {"same LLC", "sameLLC"},
                                                          {"other LLC", "otherLLC"},
                                                          {"other node", "otherNode"}}) {
        const double want =
            sum_matching(s, std::regex(R"(kernel\.migrationCost\.\w+\.)" + key + R"(\.migrations)"));
        CHECK(first_column("migrations " + label) == Approx(want));
        by_distance += want;
    }
    CHECK(by_distance == s.at("kernel.migrationCost.migrations"));
    CHECK(first_column("cross-LLC transfers") ==
          Approx(sum_matching(s, std::regex(R"(system\.cpu\d+\.accesses::(remote_llc|remote_socket))"))));
    // zen3-5950x under CFS (v5.15): SMT, MC (the CCX) and DIE; the levels' pulls add up to the idle
    // types' pulls.
    double levels = 0;
    for (const char* level : {"SMT", "MC", "DIE"}) {
        const double want =
            sum_matching(s, std::regex(std::string(R"(kernel\.domain\.)") + level + R"(\.lbGained::\w+)"));
        // One row for the package level, named DIE by v5.15 and PKG by v6.12.
        const std::string row = std::string("lb gained ") + (std::string(level) == "DIE" ? "PKG/DIE" : level);
        CHECK(first_column(row) == Approx(want));
        levels += want;
    }
    CHECK(levels == sum_matching(s, std::regex(R"(kernel\.lbGained::\w+)")));
}

TEST_CASE("trace.json is a Chrome trace of every stint and migration in trace.txt") {
    const fs::path dir = run_workload("chrome", "--trace-format ftrace,chrome");
    const json t = json::parse(file_text(dir / "trace.json"));
    CHECK(t.at("displayTimeUnit") == "ns");
    const auto& events = t.at("traceEvents");
    REQUIRE(events.size() > 100);
    std::map<int, std::vector<std::pair<double, double>>> per_cpu; // tid -> [ts, ts + dur)
    std::size_t instants = 0, counters = 0, named_threads = 0;
    std::map<int, std::size_t> stints; // pid -> slices
    for (const auto& e : events) {
        REQUIRE(e.contains("ph"));
        REQUIRE(e.contains("ts"));
        REQUIRE(e.contains("pid"));
        const std::string ph = e["ph"];
        if (ph == "X") {
            REQUIRE(e.contains("dur"));
            CHECK(e["dur"].get<double>() > 0);
            per_cpu[e["tid"].get<int>()].emplace_back(e["ts"].get<double>(),
                                                      e["ts"].get<double>() + e["dur"].get<double>());
            ++stints[e["args"]["pid"].get<int>()];
        } else if (ph == "i") {
            ++instants;
        } else if (ph == "C") {
            ++counters;
            CHECK(e["args"].is_object());
        } else if (ph == "M") {
            named_threads += e["name"] == "thread_name";
        }
    }
    CHECK(named_threads == 32);
    CHECK(counters > 0);
    for (auto& [cpu, slices] : per_cpu) { // one CPU runs one task at a time
        std::sort(slices.begin(), slices.end());
        for (std::size_t i = 1; i < slices.size(); ++i) CHECK(slices[i].first >= slices[i - 1].second - 1e-9);
    }
    // Against trace.txt: one instant per sched_migrate_task, one slice per switch to a task (none of
    // this run's stints is empty).
    const std::string txt = file_text(dir / "trace.txt");
    std::size_t migrate_lines = 0, switches_to_tasks = 0;
    std::istringstream in(txt);
    for (std::string line; std::getline(in, line);) {
        migrate_lines += line.find(": sched_migrate_task: ") != std::string::npos;
        switches_to_tasks += line.find(": sched_switch: ") != std::string::npos &&
                             line.find("next_pid=0 ") == std::string::npos;
    }
    CHECK(instants == migrate_lines);
    std::size_t slices = 0;
    for (const auto& [cpu, v] : per_cpu) slices += v.size();
    CHECK(slices == switches_to_tasks);
    // Each task has one slice per time it ran (/proc/<pid>/schedstat's pcount, its third field).
    std::size_t tasks = 0;
    for (const auto& entry : fs::directory_iterator(dir / "schedstat")) {
        if (!entry.is_directory()) continue;
        const int pid = std::stoi(entry.path().filename().string());
        std::istringstream st(file_text(entry.path() / "schedstat"));
        unsigned long long run_ns = 0, delay_ns = 0, pcount = 0;
        st >> run_ns >> delay_ns >> pcount;
        INFO("pid " << pid);
        CHECK(stints[pid] == pcount);
        ++tasks;
    }
    CHECK(tasks == 81);
}

TEST_CASE("trace.vcd is a value change dump and the translate filter names every pid it shows") {
    const fs::path dir = run_workload("vcd", "--vcd");
    CHECK_FALSE(fs::exists(dir / "trace.txt")); // --vcd alone writes no ftrace text
    std::istringstream in(file_text(dir / "trace.vcd"));
    std::map<std::string, std::string> vars; // id -> cpu<N>.name
    std::string scope, line;
    bool timescale = false;
    const std::regex var(R"(^\$var wire 32 (\S+) (\w+) \[31:0\] \$end$)");
    const std::regex scope_re(R"(^\$scope module (\w+) \$end$)");
    while (std::getline(in, line) && line != "$enddefinitions $end") {
        std::smatch m;
        if (line == "$timescale 1 ns $end") timescale = true;
        if (std::regex_match(line, m, scope_re)) scope = m[1].str();
        if (std::regex_match(line, m, var)) vars[m[1].str()] = scope + "." + m[2].str();
    }
    CHECK(timescale);
    REQUIRE(line == "$enddefinitions $end");
    REQUIRE(vars.size() == 32 * 5);
    long long last_t = -1;
    std::set<unsigned long> pids;
    std::size_t changes = 0;
    const std::regex value(R"(^b([01]+) (\S+)$)");
    while (std::getline(in, line)) {
        std::smatch m;
        if (line.empty() || line == "$dumpvars" || line == "$end") continue;
        if (line[0] == '#') {
            const long long t = std::stoll(line.substr(1));
            CHECK(t > last_t);
            last_t = t;
            continue;
        }
        REQUIRE(std::regex_match(line, m, value));
        REQUIRE(vars.count(m[2].str()));
        ++changes;
        const std::string& name = vars[m[2].str()];
        if (name.size() > 4 && name.substr(name.size() - 4) == ".pid")
            pids.insert(std::stoul(m[1].str(), nullptr, 2));
    }
    CHECK(changes > 100);
    CHECK(pids.size() == 82); // hackbench -g 2: the parent and 80 children, and idle (0)
    std::map<unsigned long, std::string> filter;
    std::istringstream f(file_text(dir / "trace.vcd.filter"));
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        unsigned long pid;
        std::string text;
        REQUIRE(words >> pid >> text);
        filter[pid] = text;
    }
    for (unsigned long pid : pids) {
        INFO("pid " << pid);
        REQUIRE(filter.count(pid));
        CHECK(filter[pid] == (pid == 0 ? std::string("idle") : "hackbench-" + std::to_string(pid)));
    }
}

TEST_CASE("plot works on a relative results directory, the default results/ included (gnuplot runs in it "
          "without a shell)") {
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
        WARN("gnuplot is not installed (make deps installs gnuplot-nox)");
        return;
    }
    const fs::path cwd = fs::current_path();
    const fs::path work = fs::temp_directory_path() / "warmsched-outputs-plot-relative";
    fs::remove_all(work);
    fs::create_directories(work);
    fs::current_path(work);
    // The README's command: no --out, so results/<experiment>/<timestamp> below the working directory.
    const auto r = run_cli("run --platform zen3-5950x --seed 1 --plot -- hackbench -p -g 1 -l 5");
    const auto again = run_cli("run --platform zen3-5950x --seed 1 --out rel/dir -- hackbench -p -g 1 -l 5");
    const auto plot = run_cli("plot rel/dir"); // a run without --plot: no timeline, the miss rates
    fs::current_path(cwd);
    INFO(r.out << r.err << plot.err);
    REQUIRE(r.status == 0);
    REQUIRE(again.status == 0);
    REQUIRE(plot.status == 0);
    std::size_t timelines = 0;
    for (const auto& f : fs::recursive_directory_iterator(work / "results"))
        if (f.path().filename() == "timeline.png" && fs::file_size(f.path()) > 1000) ++timelines;
    CHECK(timelines == 1);
    CHECK(fs::file_size(work / "rel" / "dir" / "plots" / "miss_rates.png") > 1000);
    CHECK(fs::file_size(work / "rel" / "dir" / "plots" / "miss_rates.svg") > 1000);
}

TEST_CASE("plot draws PNG and SVG files of a run and of a sweep with gnuplot") {
    const bool have_gnuplot = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
    if (!have_gnuplot) {
        WARN("gnuplot is not installed (make deps installs gnuplot-nox): checking the error only");
        const auto r = run_cli("run --platform zen3-5950x --plot --out " +
                               (fs::temp_directory_path() / "warmsched-outputs-noplot").string() +
                               " -- hackbench -p -g 1 -l 2");
        CHECK(r.status == 2);
        CHECK(r.err.find("error: plot: gnuplot not found") != std::string::npos);
        return;
    }
    auto check_image = [](const fs::path& p) {
        INFO(p.string());
        REQUIRE(fs::exists(p));
        const std::string data = file_text(p);
        REQUIRE(data.size() > 1000);
        if (p.extension() == ".png")
            CHECK(data.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
        else
            CHECK(data.find("<svg") != std::string::npos);
    };
    const fs::path dir = run_workload("plot", "--plot");
    for (const char* name : {"timeline", "migrations", "miss_rates"})
        for (const char* ext : {".png", ".svg"}) check_image(dir / "plots" / (std::string(name) + ext));
    // cyclictest -h: its histogram, one column per thread, adding up to the "# Total:" it printed.
    const fs::path cyc =
        run_workload("plot-cyclictest", "--plot", "cyclictest -n -p 90 -t 2 -i 200 -l 200 -h 50 -q");
    check_image(cyc / "plots" / "latency_histogram.png");
    check_image(cyc / "plots" / "latency_histogram.svg");
    {
        std::smatch m;
        const std::string report = file_text(cyc / "report.txt");
        REQUIRE(std::regex_search(report, m, std::regex(R"(\n# Total: (\d+) (\d+)\n)")));
        std::istringstream dat(file_text(cyc / "plots" / "latency_histogram.dat"));
        std::string header;
        std::getline(dat, header);
        CHECK(header == "us \"T:0\" \"T:1\"");
        double us = 0, t0 = 0, t1 = 0, sum0 = 0, sum1 = 0;
        while (dat >> us >> t0 >> t1) {
            sum0 += t0;
            sum1 += t1;
        }
        CHECK(sum0 == std::stod(m[1].str()));
        CHECK(sum1 == std::stod(m[2].str()));
    }
    // fio: its clat percentiles, every "<p>th=[<v>]" pair of the report, in order.
    const fs::path fio = run_workload("plot-fio", "--plot",
                                      "fio --name=randread --rw=randread --bs=4k --iodepth=4 --runtime=5ms");
    check_image(fio / "plots" / "latency.png");
    check_image(fio / "plots" / "latency.svg");
    {
        const std::string report = file_text(fio / "report.txt");
        const std::regex pair(R"(([0-9.]+)th=\[\s*(\d+)\])");
        std::vector<std::pair<double, double>> printed, plotted;
        for (auto it = std::sregex_iterator(report.begin(), report.end(), pair); it != std::sregex_iterator();
             ++it)
            printed.emplace_back(std::stod((*it)[1].str()), std::stod((*it)[2].str()));
        std::istringstream dat(file_text(fio / "plots" / "latency.dat"));
        std::string line;
        std::getline(dat, line);
        CHECK(line.rfind("# fio clat #1 (", 0) == 0);
        std::getline(dat, line);
        std::vector<double> xs;
        for (double p, v, x; dat >> p >> v >> x;) {
            plotted.emplace_back(p, v);
            xs.push_back(x);
        }
        CHECK(printed.size() >= 10);
        CHECK(plotted == printed);
        // Drawn by nines, in order; the 100th one past the last of the others.
        CHECK(std::is_sorted(xs.begin(), xs.end()));
        CHECK(file_text(fio / "plots" / "latency.gp").find("set ylabel 'latency (nsec)'") != std::string::npos); // fio's own unit
    }
    // schbench's percentile blocks (as latency_histogram::print writes them; a real schbench run needs a
    // simulated second): the last block of each name is plotted.
    {
        const fs::path sch = fs::temp_directory_path() / "warmsched-outputs-plot-schbench";
        fs::remove_all(sch);
        fs::create_directories(sch);
        fs::copy_file(fio / "stats.json", sch / "stats.json");
        std::ofstream(sch / "report.txt")
            << "Wakeup Latencies percentiles (usec) runtime 1 (s) (10 total samples)\n"
               "\t  50.0th: 9          (5 samples)\n\t  min=1, max=99\n"
               "Wakeup Latencies percentiles (usec) runtime 2 (s) (400 total samples)\n"
               "\t  50.0th: 5          (210 samples)\n\t  90.0th: 8          (150 samples)\n"
               "\t* 99.0th: 14         (36 samples)\n\t  99.9th: 22         (4 samples)\n\t  min=1, max=25\n"
               "Request Latencies percentiles (usec) runtime 2 (s) (400 total samples)\n"
               "\t  50.0th: 7000       (210 samples)\n\t* 99.0th: 9000       (190 samples)\n\t  min=6000, "
               "max=9500\n";
        const auto r = run_cli("plot " + sch.string());
        INFO(r.out << r.err);
        REQUIRE(r.status == 0);
        check_image(sch / "plots" / "latency.png");
        // x: the percentile's nines (-log10(1 - p/100)), so that 90, 99 and 99.9 are equally apart.
        CHECK(file_text(sch / "plots" / "latency.dat") ==
              "# Wakeup Latencies (usec)\npercentile latency x\n50 5 0.30103\n90 8 1\n99 14 2\n99.9 22 3\n\n\n"
              "# Request Latencies (usec)\npercentile latency x\n50 7000 0.30103\n99 9000 2\n\n\n");
        const std::string gp = file_text(sch / "plots" / "latency.gp");
        CHECK(gp.find("set xtics ('50' 0.301030, '90' 1.000000, '99' 2.000000, '99.9' 3.000000)") != std::string::npos);
        CHECK(gp.find("set ylabel 'latency (usec)'") != std::string::npos);
    }
    // Again from the directory; a sweep of two variants over two group counts.
    for (const char* name : {"timeline", "miss_rates"})
        fs::remove(dir / "plots" / (std::string(name) + ".png"));
    const auto again = run_cli("plot " + dir.string());
    INFO(again.out << again.err);
    REQUIRE(again.status == 0);
    check_image(dir / "plots" / "timeline.png");
    std::string points;
    for (const char* kernel : {"cfs", "eevdf"})
        for (const char* groups : {"1", "2"}) {
            const fs::path d =
                run_workload(std::string("sweep-") + kernel + groups, std::string("--kernel ") + kernel,
                             std::string("hackbench -p -g ") + groups + " -l 5");
            points += std::string(" ") + kernel + ":" + groups + ":" + d.string();
        }
    const fs::path out = fs::temp_directory_path() / "warmsched-outputs-sweep-plots";
    fs::remove_all(out);
    const auto sweep =
        run_cli("plot --sweep --metric migrations --x-label groups --out " + out.string() + points);
    INFO(sweep.out << sweep.err);
    REQUIRE(sweep.status == 0);
    check_image(out / "sweep.png");
    // A distance has one colour in every figure ("same LLC" green here and in the wake-affine tutorial).
    CHECK(file_text(dir / "plots" / "migrations.gp").find("using 1:3 with linespoints pt 7 ps 0.5 lc rgb '#228833'") !=
          std::string::npos);
    // Group counts are whole: a tick at each one swept, none at 1.5.
    CHECK(file_text(out / "sweep.gp").find("set xtics (1, 2)") != std::string::npos);
    check_image(out / "sweep.svg");
    // The data: one block per variant, x ascending, each point the run's migrations.
    const std::string dat = file_text(out / "sweep.dat");
    CHECK(dat.find("# cfs\nx amean stddev\n1 ") == 0);
    CHECK(dat.find("\n\n\n# eevdf\nx amean stddev\n1 ") != std::string::npos);
}

TEST_CASE("the same seed gives byte-identical trace.json and trace.vcd and plot data") {
    const fs::path a = run_workload("same-a", "--trace-format chrome --vcd --plot");
    const fs::path b = run_workload("same-b", "--trace-format chrome --vcd --plot");
    CHECK_FALSE(fs::exists(a / "trace.txt")); // chrome alone
    for (const char* f :
         {"trace.json", "trace.vcd", "trace.vcd.filter", "report.json", "migration_report.json",
          "plots/timeline.dat", "plots/migrations.dat", "plots/miss_rates.dat"}) {
        INFO(f);
        // The recorded command line names each run's own --out directory.
        const auto text = [&](const fs::path& dir) {
            std::string t = file_text(dir / f);
            for (auto at = t.find(dir.string()); at != std::string::npos; at = t.find(dir.string()))
                t.replace(at, dir.string().size(), "OUT");
            return t;
        };
        CHECK(text(a) == text(b));
    }
}

TEST_CASE("bad trace and plot options are one-line errors naming the option") {
    const auto bad_format = run_cli("run --platform zen3-5950x --trace-format ftrace,systrace --out " +
                                    (fs::temp_directory_path() / "warmsched-outputs-bad").string() +
                                    " -- hackbench -p -g 1 -l 2");
    CHECK(bad_format.status == 2);
    CHECK(bad_format.err.find("trace.formats") != std::string::npos);
    CHECK(bad_format.err.find("unknown trace format 'systrace' (expected ftrace, chrome, perfetto or a comma "
                              "list)") != std::string::npos);
    const auto bad_point = run_cli("plot --sweep cfs:two:/tmp");
    CHECK(bad_point.status == 2);
    CHECK(bad_point.err.find("error: --sweep: expected VARIANT:X:DIR") == 0);
    const auto not_results = run_cli("plot " + fs::temp_directory_path().string());
    CHECK(not_results.status == 2);
    CHECK(not_results.err.find("error: plot: ") == 0);
    CHECK(std::count(not_results.err.begin(), not_results.err.end(), '\n') == 1);
}

TEST_CASE(
    "every results JSON and config.yaml record the command line, seed, platform, kernel and workloads") {
    const fs::path dir = fs::temp_directory_path() / "warmsched-outputs-provenance";
    fs::remove_all(dir);
    const std::string args =
        "run --platform clovertown-e5335-2s --kernel cfs --seed 7 --trace-format chrome --out " +
        dir.string() + " -- hackbench -p -g 1 -l 5";
    const auto r = run_cli(args);
    REQUIRE(r.status == 0);
    for (const char* file : {"stats.json", "report.json", "migration_report.json", "trace.json"}) {
        INFO(file);
        const auto doc = nlohmann::json::parse(file_text(dir / file));
        const auto& run = std::string(file) == "trace.json" ? doc.at("otherData") : doc.at("run");
        CHECK(run.at("command_line") == "warmsched " + args);
        CHECK(run.at("seed") == 7);
        CHECK(run.at("platform") == "clovertown-e5335-2s");
        CHECK(run.at("kernel") == "cfs");
        CHECK(run.at("workloads") == nlohmann::json::array({"hackbench -p -g 1 -l 5"}));
    }
    CHECK(file_text(dir / "config.yaml").find("\n# Command line: warmsched " + args + "\n") !=
          std::string::npos);
    // A word with a blank is quoted as a shell would need it.
    const auto q = run_cli("run --out " + dir.string() + " -- taskset -c 0 hackbench -p -g 1 -l 5");
    REQUIRE(q.status == 0);
    CHECK(nlohmann::json::parse(file_text(dir / "report.json")).at("run").at("workloads").at(0) ==
          "taskset -c 0 hackbench -p -g 1 -l 5");
}
