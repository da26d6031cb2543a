// The schedstat files of a results directory, read the way schedstat parsers read the real ones: every
// line of /proc/schedstat v15 and v17 has its version's field count, and the end-minus-start deltas
// agree with the run's own counters in stats.txt and with the per-task files.
#include <catch2/catch.hpp>

#include "support/cli_runner.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {
std::vector<std::string> read_lines(const fs::path& p) {
    std::ifstream in(p);
    REQUIRE(in);
    std::vector<std::string> v;
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
}

std::vector<unsigned long long> numbers_after(const std::string& line, std::size_t skip_words) {
    std::istringstream in(line);
    std::string w;
    for (std::size_t i = 0; i < skip_words; ++i) in >> w;
    std::vector<unsigned long long> v;
    for (unsigned long long x; in >> x;) v.push_back(x);
    return v;
}

// One /proc/schedstat file: per CPU its 9 numbers, and every domain line's numbers (after name/mask).
struct schedstat_file {
    unsigned version = 0;
    std::vector<std::vector<unsigned long long>> cpus, domains;
    std::vector<std::string> masks, names;
};

schedstat_file parse(const fs::path& p, unsigned version) {
    const std::regex cpu_re(R"(^cpu\d+( \d+){9}$)");
    const std::regex v15_re(R"(^domain\d+ ([0-9a-f]+(,[0-9a-f]{8})*)( \d+){36}$)");
    const std::regex v17_re(R"(^domain\d+ ([A-Z]+) ([0-9a-f]+(,[0-9a-f]{8})*)( \d+){45}$)");
    const auto lines = read_lines(p);
    schedstat_file f;
    REQUIRE(lines.size() > 2);
    CHECK(lines[0] == "version " + std::to_string(version));
    CHECK(std::regex_match(lines[1], std::regex(R"(^timestamp \d+$)")));
    for (std::size_t i = 2; i < lines.size(); ++i) {
        const auto& l = lines[i];
        std::smatch m;
        if (l.rfind("cpu", 0) == 0) {
            INFO(l);
            CHECK(std::regex_match(l, cpu_re));
            f.cpus.push_back(numbers_after(l, 1));
        } else if (version == 15 && std::regex_match(l, m, v15_re)) {
            f.masks.push_back(m[1]);
            f.domains.push_back(numbers_after(l, 2));
        } else if (version == 17 && std::regex_match(l, m, v17_re)) {
            f.names.push_back(m[1]);
            f.masks.push_back(m[2]);
            f.domains.push_back(numbers_after(l, 3));
        } else {
            FAIL("line " << i + 1 << " of " << p << " does not follow version " << version << ": " << l);
        }
    }
    return f;
}

double stat_value(const fs::path& stats, const std::string& name) {
    for (const auto& l : read_lines(stats)) {
        std::istringstream in(l);
        std::string n;
        double v;
        if (in >> n >> v && n == name) return v;
    }
    FAIL("no " << name << " in stats.txt");
    return 0;
}

// A /proc/<pid>/sched field (counts as integers, times as ms.ns converted to ns).
long long sched_field(const std::vector<std::string>& lines, const std::string& name) {
    for (const auto& l : lines) {
        if (l.compare(0, name.size(), name) != 0 || l[name.size()] != ' ') continue;
        const std::string v = l.substr(l.find(':') + 1);
        const auto dot = v.find('.');
        if (dot == std::string::npos) return std::stoll(v);
        return std::stoll(v.substr(0, dot)) * 1000000 + std::stoll(v.substr(dot + 1));
    }
    FAIL("no " << name << " field");
    return 0;
}
} // namespace

TEST_CASE("schedstat v15 and v17 files have the kernel's layout and deltas equal to the run's counters") {
    const fs::path out = fs::temp_directory_path() / "warmsched-schedstat-out";
    fs::remove_all(out);
    const auto r = warmsched::test::run_cli("run --platform zen3-5950x --out " + out.string() +
                                            " -- hackbench -p -g 2 -l 20");
    REQUIRE(r.status == 0);
    CHECK(!fs::exists(out / "trace.txt")); // off by default
    const fs::path d = out / "schedstat";
    const auto s15 = parse(d / "v15-start.txt", 15), e15 = parse(d / "v15-end.txt", 15);
    const auto s17 = parse(d / "v17-start.txt", 17), e17 = parse(d / "v17-end.txt", 17);
    REQUIRE(e15.cpus.size() == 32);
    REQUIRE(e17.cpus.size() == 32);
    REQUIRE(e15.domains.size() == e17.domains.size());
    REQUIRE(s15.domains.size() == e15.domains.size());
    // zen3-5950x: per CPU SMT (2 CPUs), MC (the CCX, 16) and the package (32); 32 bits are one group.
    CHECK(e17.names[0] == "SMT");
    CHECK(e17.names[1] == "MC");
    CHECK(e15.masks[0] == "00010001"); // cpu0 and its SMT sibling cpu16
    CHECK(e15.masks[1] == "00ff00ff"); // CCX0: cpus 0-7 and 16-23
    CHECK(e15.masks[2] == "ffffffff");
    CHECK(e17.masks == e15.masks);

    auto cpu_delta = [](const schedstat_file& s, const schedstat_file& e, std::size_t field) {
        unsigned long long sum = 0;
        for (std::size_t c = 0; c < e.cpus.size(); ++c) sum += e.cpus[c][field] - s.cpus[c][field];
        return sum;
    };
    auto domain_delta = [](const schedstat_file& s, const schedstat_file& e, std::size_t field) {
        unsigned long long sum = 0;
        for (std::size_t i = 0; i < e.domains.size(); ++i) sum += e.domains[i][field] - s.domains[i][field];
        return sum;
    };
    const fs::path stats = out / "stats.txt";
    // cpu<N>: yld_count 0 sched_count sched_goidle ttwu_count ttwu_local rq_cpu_time run_delay pcount.
    const double wakeups = stat_value(stats, "kernel.wakeups");
    REQUIRE(wakeups > 0);
    CHECK(cpu_delta(s15, e15, 4) == wakeups);
    CHECK(cpu_delta(s17, e17, 4) == wakeups);
    // Domain blocks: v15 idle, busy, newidle x 8 fields; v17 busy, idle, newidle x 11 (lb_gained 8th).
    const double lb_idle = stat_value(stats, "kernel.lbCount::idle");
    const double lb_busy = stat_value(stats, "kernel.lbCount::busy");
    const double lb_newidle = stat_value(stats, "kernel.lbCount::newidle");
    REQUIRE(lb_idle + lb_busy + lb_newidle > 0);
    CHECK(domain_delta(s15, e15, 0) == lb_idle);
    CHECK(domain_delta(s15, e15, 8) == lb_busy);
    CHECK(domain_delta(s15, e15, 16) == lb_newidle);
    CHECK(domain_delta(s17, e17, 0) == lb_busy);
    CHECK(domain_delta(s17, e17, 11) == lb_idle);
    CHECK(domain_delta(s17, e17, 22) == lb_newidle);
    CHECK(domain_delta(s15, e15, 4) == stat_value(stats, "kernel.lbGained::idle"));
    CHECK(domain_delta(s17, e17, 7) == stat_value(stats, "kernel.lbGained::busy"));
    CHECK(domain_delta(s17, e17, 29) == stat_value(stats, "kernel.lbGained::newidle"));
    CHECK(domain_delta(s15, e15, 24 + 2) == stat_value(stats, "kernel.albPushed"));
    CHECK(domain_delta(s17, e17, 33 + 2) == stat_value(stats, "kernel.albPushed"));

    // Per-task files against the per-CPU and per-domain sums.
    unsigned long long pcount = 0, run_delay = 0, remote = 0, tasks = 0;
    for (const auto& entry : fs::directory_iterator(d)) {
        if (!entry.is_directory()) continue;
        ++tasks;
        const auto ss = numbers_after(read_lines(entry.path() / "schedstat").at(0), 0);
        REQUIRE(ss.size() == 3);
        const auto sched = read_lines(entry.path() / "sched");
        CHECK(std::regex_match(sched.at(0), std::regex(R"(^\S+ \()" + entry.path().filename().string() +
                                                       R"(, #threads: \d+\)$)")));
        CHECK(static_cast<long long>(ss[0]) == sched_field(sched, "se.sum_exec_runtime"));
        CHECK(static_cast<long long>(ss[1]) == sched_field(sched, "wait_sum"));
        pcount += ss[2];
        run_delay += ss[1];
        remote += static_cast<unsigned long long>(sched_field(sched, "nr_wakeups_remote"));
    }
    CHECK(tasks == 81); // hackbench and its 2 x 40 children
    CHECK(cpu_delta(s15, e15, 8) == pcount);
    CHECK(cpu_delta(s15, e15, 7) == run_delay);
    CHECK(domain_delta(s15, e15, 24 + 9) == remote);
    CHECK(domain_delta(s17, e17, 33 + 9) == remote);
}
