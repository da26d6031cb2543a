// Reading the kernel section; see kernel_config.h.
#include "sim/kernel_config.h"
#include "base/files/input_file.h"

#include "scheduler/core/sched_sysctl.h"
#include "scheduler/ext/policy_loader.h"

namespace warmsched::sim {

using scheduler::kernel_version;

scheduler::sched_config read_kernel_config(config::config_reader& r, unsigned ncpus) {
    const std::string v = r.choice("version", {"eevdf", "cfs"}, "eevdf");
    const kernel_version k = v == "cfs" ? kernel_version::cfs_v5_15 : kernel_version::eevdf_v6_12;
    const char* this_kernel = k == kernel_version::cfs_v5_15 ? "cfs (v5.15)" : "eevdf (v6.12)";
    const char* other_kernel = k == kernel_version::cfs_v5_15 ? "eevdf (v6.12)" : "cfs (v5.15)";
    auto c = scheduler::sched_config::defaults(k, ncpus);
    c.hz = static_cast<unsigned>(r.integer("hz", 250, 100, 1000));
    if (c.hz != 100 && c.hz != 250 && c.hz != 300 && c.hz != 1000)
        r.error("hz", "must be 100, 250, 300 or 1000");
    // How long the machine has been up when the run starts (scheduler.h sched_config::uptime_s).
    const double uptime_ps = r.time_ps("uptime", 300e12);
    if (!(uptime_ps >= 0 && uptime_ps <= 86400e12)) r.error("uptime", "must be 0s..86400s (a day)");
    c.uptime_s = static_cast<unsigned>(uptime_ps / 1e12);

    auto f = r.child("features");
    const scheduler::sched_features other(k == kernel_version::cfs_v5_15 ? kernel_version::eevdf_v6_12
                                                                         : kernel_version::cfs_v5_15);
    for (int i = 0; i < static_cast<int>(scheduler::feature::count); ++i) {
        const auto feat = static_cast<scheduler::feature>(i);
        const std::string name = scheduler::sched_features::name(feat);
        if (c.features.exists(feat)) {
            c.features.set(name, f.boolean(name, c.features[feat]));
        } else if (f.has(name)) {
            f.consume(name);
            f.error(name, std::string("no such feature in ") + this_kernel +
                              (other.exists(feat) ? std::string("; it exists in ") + other_kernel : ""));
        }
    }
    f.finish();

    auto s = r.child("sysctl");
    const long long scaling = s.integer("tunable_scaling", 1, 0, 2);
    c.tunables = scheduler::fair_tunables::defaults(ncpus, static_cast<unsigned>(scaling));
    for (const auto& t : scheduler::sched_sysctls()) {
        const bool here = k == kernel_version::cfs_v5_15 ? t.in_cfs : t.in_eevdf;
        if (!here) {
            if (s.has(t.name)) {
                s.consume(t.name);
                s.error(t.name,
                        std::string("no such tunable in ") + this_kernel + "; it exists in " + other_kernel);
            }
            continue;
        }
        long long def = 0;
        const std::string n = t.name;
        if (n == "latency_ns") def = static_cast<long long>(c.tunables.latency_ns);
        if (n == "min_granularity_ns") def = static_cast<long long>(c.tunables.min_granularity_ns);
        if (n == "wakeup_granularity_ns") def = static_cast<long long>(c.tunables.wakeup_granularity_ns);
        if (n == "base_slice_ns") def = static_cast<long long>(c.tunables.base_slice_ns);
        if (n == "migration_cost_ns") def = static_cast<long long>(c.tunables.migration_cost_ns);
        if (n == "sched_child_runs_first") def = c.child_runs_first ? 1 : 0;
        if (n == "sched_rt_period_us") def = c.rt.sched_rt_period_us;
        if (n == "sched_rt_runtime_us") def = c.rt.sched_rt_runtime_us;
        if (n == "sched_rr_timeslice_ms") def = c.rt.sched_rr_timeslice_ms;
        if (n == "sched_cfs_bandwidth_slice_us")
            def = static_cast<long long>(c.tunables.cfs_bandwidth_slice_ns / 1000);
        scheduler::apply_sysctl(c, n, s.integer(n, def, t.min, t.max));
    }
    if (c.rt.sched_rt_runtime_us > c.rt.sched_rt_period_us) // the kernel's sched_rt_handler: EINVAL
        s.error("sched_rt_runtime_us",
                "must not exceed sched_rt_period_us (" + std::to_string(c.rt.sched_rt_period_us) + ")");
    s.finish();

    // A policy of one's own in the ext class (docs/writing-a-policy.md).
    const std::string policy = r.text("policy", std::string("none"));
    const bool all = r.boolean("policy_all", false);
    const double timeout_ps = r.time_ps("policy_timeout", 30e12);
    if (policy != "none") {
        try {
            c.ext.policy = scheduler::load_policy(policy);
            base::note_input_file(scheduler::policy_path(policy)); // --force keeps away from it
        } catch (const scheduler::policy_load_error& e) {
            r.error("policy", e.what());
        }
        c.ext.switch_all = all;
        if (!(timeout_ps >= 1e9 && timeout_ps <= 3600e12)) r.error("policy_timeout", "must be 1ms..1h");
        c.ext.watchdog_timeout = static_cast<scheduler::nsec>(timeout_ps / 1000);
    } else if (all) {
        r.error("policy_all", "needs kernel.policy (a policy to move the fair tasks to)");
    }
    return c;
}

} // namespace warmsched::sim
