// cpu.stat files, summary table and stats.txt lines; see cgroup_stats.h.
#include "sim/cgroups/cgroup_stats.h"
#include "base/files/output_file.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace warmsched::sim {

namespace fs = std::filesystem;
using scheduler::cgroup_cpu_stat;
using scheduler::group_id;

cgroup_report cgroup_report::of(const workloads::sim_kernel& k, const scheduler::cgroup_tree& tree,
                                const cgroup_report* earlier) {
    cgroup_report r;
    r.tree = tree;
    r.threads.resize(tree.groups.size());
    const auto& s = k.sched();
    for (group_id g = 0; g < tree.groups.size(); ++g) r.stats.push_back(s.cpu_stat(g, k.now()));
    // The user / kernel time of each group's subtree, from its tasks.
    std::vector<double> user(tree.groups.size(), 0), kernel(tree.groups.size(), 0);
    for (const auto& kt : k.tasks()) {
        const auto run = kt->t.se.sum_exec_runtime;
        const auto utime = std::min<scheduler::nsec>(kt->utime, run);
        if (kt->t.state != scheduler::task_state::dead && !kt->t.is_idle)
            r.threads[s.task_group_of(kt->t)].push_back(kt->t.pid);
        for (group_id g = s.task_group_of(kt->t);; g = tree.groups[g].parent) {
            user[g] += static_cast<double>(utime);
            kernel[g] += static_cast<double>(run - utime);
            if (g == 0) break;
        }
    }
    for (group_id g = 0; g < tree.groups.size(); ++g) {
        cgroup_cpu_stat& st = r.stats[g];
        if (st.user_ns + st.system_ns != 0 || st.usage_ns == 0) continue;
        const double both = user[g] + kernel[g];
        st.user_ns = both > 0 ? static_cast<std::uint64_t>(static_cast<double>(st.usage_ns) * user[g] / both)
                              : st.usage_ns;
        st.system_ns = st.usage_ns - st.user_ns;
        if (!earlier) continue;
        // cputime_adjust: system time does not go below the earlier read's, then user time does not
        // (usage only grows, so each keeps the other monotonic).
        const cgroup_cpu_stat& prev = earlier->stats[g];
        st.system_ns = std::max(st.system_ns, prev.system_ns);
        st.user_ns = st.usage_ns - st.system_ns;
        if (st.user_ns < prev.user_ns) {
            st.user_ns = prev.user_ns;
            st.system_ns = st.usage_ns - st.user_ns;
        }
    }
    return r;
}

void write_cpu_stat(std::ostream& out, const cgroup_cpu_stat& s) {
    out << "usage_usec " << s.usage_ns / 1000 << "\n"
        << "user_usec " << s.user_ns / 1000 << "\n"
        << "system_usec " << s.system_ns / 1000 << "\n"
        << "nr_periods " << s.nr_periods << "\n"
        << "nr_throttled " << s.nr_throttled << "\n"
        << "throttled_usec " << s.throttled_ns / 1000 << "\n"
        << "nr_bursts " << s.nr_bursts << "\n"
        << "burst_usec " << s.burst_ns / 1000 << "\n";
}

std::string cpu_stat_path(const std::string& out_dir, const std::string& group_path) {
    fs::path p = fs::path(out_dir) / "cgroup";
    if (group_path != "/") p /= group_path.substr(1);
    return (p / "cpu.stat").string();
}

void write_cpu_stat_files(const std::string& out_dir, const cgroup_report& r, const cgroup_report* at_start) {
    for (group_id g = 0; g < r.tree.groups.size(); ++g) {
        const fs::path file = cpu_stat_path(out_dir, r.tree.groups[g].path);
        base::make_directories(file.parent_path().string());
        base::output_file out(file.string());
        write_cpu_stat(out, r.stats[g]);
        out.close();
        if (at_start) {
            base::output_file start(file.string() + ".start");
            write_cpu_stat(start, at_start->stats[g]);
            start.close();
        }
        base::output_file threads((file.parent_path() / "cgroup.threads").string());
        for (int pid : r.threads[g]) threads << pid << "\n";
        threads.close();
    }
}

namespace {
unsigned long long ull(std::uint64_t v) {
    return static_cast<unsigned long long>(v);
}
} // namespace

void print_cgroup_summary(std::ostream& out, const scheduler::cgroup_tree& tree, const stats::group& kernel,
                          double sim_s) {
    const auto& groups = tree.groups;
    const stats::group& cgroup = kernel.at("cgroup");
    std::vector<unsigned> children(groups.size(), 0);
    unsigned with_quota = 0;
    for (group_id g = 1; g < groups.size(); ++g) {
        ++children[groups[g].parent];
        if (groups[g].quota_ns) ++with_quota;
    }
    unsigned leaves = 0;
    for (group_id g = 1; g < groups.size(); ++g) leaves += children[g] == 0;
    char b[320];
    std::snprintf(b, sizeof b,
                  "%-18s %u groups (%u leaves, %u with a quota); cpu.stat of each in cgroup/<path>/\n",
                  "cgroups", static_cast<unsigned>(groups.size() - 1), leaves, with_quota);
    out << b;
    std::snprintf(b, sizeof b, "  %-28s %-16s %10s %9s %10s %12s %11s %9s\n", "group", "cpu.max", "usage s",
                  "CPUs", "nr_periods", "nr_throttled", "throttled s", "nr_bursts");
    out << b;
    // One row's figures, from the group's cpu.stat stats (kernel.cgroup.<path>.*), or summed over groups.
    struct figures {
        std::uint64_t usage_us = 0, nr_periods = 0, nr_throttled = 0, throttled_us = 0, nr_bursts = 0;
        void add(const stats::group& c) {
            usage_us += c.count("usage_usec");
            nr_periods += c.count("nr_periods");
            nr_throttled += c.count("nr_throttled");
            throttled_us += c.count("throttled_usec");
            nr_bursts += c.count("nr_bursts");
        }
    };
    auto row = [&](const std::string& name, const std::string& max, const figures& f) {
        const double usage_s = static_cast<double>(f.usage_us) / 1e6;
        std::snprintf(b, sizeof b, "  %-28s %-16s %10.4f %9.2f %10llu %12llu %11.4f %9llu\n", name.c_str(),
                      max.c_str(), usage_s, sim_s > 0 ? usage_s / sim_s : 0.0, ull(f.nr_periods),
                      ull(f.nr_throttled), static_cast<double>(f.throttled_us) / 1e6, ull(f.nr_bursts));
        out << b;
    };
    constexpr unsigned max_rows = 12;
    unsigned rows = 0;
    figures rest;
    unsigned rest_n = 0;
    for (group_id g = 1; g < groups.size(); ++g) {
        const auto& spec = groups[g];
        if (spec.parent != 0 && !spec.quota_ns) continue; // neither top-level nor limited
        const stats::group& c = cgroup.at(spec.path);
        if (rows < max_rows) {
            const std::string max = spec.quota_ns ? std::to_string(*spec.quota_ns / 1000) + " " +
                                                        std::to_string(spec.period_ns / 1000)
                                                  : "max " + std::to_string(spec.period_ns / 1000);
            std::string name = spec.path;
            if (name.size() > 28) name = "..." + name.substr(name.size() - 25);
            figures f;
            f.add(c);
            row(name, max, f);
            ++rows;
        } else {
            ++rest_n;
            rest.add(c);
        }
    }
    if (rest_n) row("(" + std::to_string(rest_n) + " more, summed)", "", rest);
}

void add_cgroup_stats(stats::group& kernel, const cgroup_report& r) {
    using stats::unit;
    stats::group& cgroup = kernel.child("cgroup");
    for (group_id g = 0; g < r.tree.groups.size(); ++g) {
        stats::group& c = cgroup.child(r.tree.groups[g].path);
        const auto& s = r.stats[g];
        c.add("usage_usec", s.usage_ns / 1000, unit::microsecond, "cpu.stat: CPU time of the group's tasks");
        c.add("user_usec", s.user_ns / 1000, unit::microsecond, "cpu.stat: of it in user mode");
        c.add("system_usec", s.system_ns / 1000, unit::microsecond, "cpu.stat: of it in the kernel");
        c.add("nr_periods", s.nr_periods, unit::count, "cpu.stat: bandwidth periods with the group active");
        c.add("nr_throttled", s.nr_throttled, unit::count, "cpu.stat: periods in which it was throttled");
        c.add("throttled_usec", s.throttled_ns / 1000, unit::microsecond,
              "cpu.stat: time its run queues spent throttled, summed over CPUs");
        c.add("nr_bursts", s.nr_bursts, unit::count, "cpu.stat: periods that used burst runtime");
        c.add("burst_usec", s.burst_ns / 1000, unit::microsecond, "cpu.stat: runtime used beyond the quota");
    }
}

} // namespace warmsched::sim
