// When a task's compute may run fast-forwarded (cpu_executor with fast_forward 1-in-N): the detailed
// chunks it runs on one CPU, with the same SMT sibling state and the same memory profile, are summed in
// windows of 8,192 accesses; once it has made at least three accesses per line of its working set
// there (a uniformly walked working set has then been touched all but 5%: the refill after a
// migration, a stacking or a cold start is over) and the time per instruction of the last three
// windows agrees within 4%, the compute has settled, and its chunks may take that time per instruction while
// sending only a sample of their accesses through the hierarchy. A chunk's memory time follows its sample's
// latency per source (own L2, own L3, another L3, DRAM) weighted by the settled mix of sources, so that
// queues that grew since (a link or memory channel filling up) slow it down. Every 1,024 sampled accesses the
// samples' mix of sources, at the settled latency per source, is compared with the settled mean
// latency; a difference of more than 50% (the mix changed: a co-runner in the LLC started or stopped)
// means the compute has drifted, and it settles
// again from three detailed windows (its refill there is not repeated). Anything that changes where or beside
// whom it runs (a switch, a migration, the SMT sibling going busy or idle) starts it over.
//
// The thresholds are choices of this model, not measured figures: the windows' spread is a few times
// the sampling noise of a window's mean latency with 8,192 accesses; the drift limit is wide because a
// sampled task's lines age faster in a shared LRU cache than a detailed co-runner's (its accesses are
// fewer), which moves the mix a little without anything having changed (docs/kernel.md).
#pragma once

#include "models/cpu/hart.h"
#include "workloads/kernel/memory_profile.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace warmsched::workloads {

// Where a run of accesses was served and what each source's accesses took.
struct access_mix {
    static constexpr int sources = static_cast<int>(models::mem_source::count);
    std::array<double, sources> count{}, latency_ps{};

    // The accesses a hart made between two readings of its statistics.
    static access_mix between(const models::hart_stats& before, const models::hart_stats& after) {
        access_mix m;
        for (int s = 0; s < sources; ++s) {
            m.count[s] = static_cast<double>(after.accesses[s] - before.accesses[s]);
            m.latency_ps[s] = static_cast<double>(after.latency_ps[s] - before.latency_ps[s]);
        }
        return m;
    }
    void add(const access_mix& o) {
        for (int s = 0; s < sources; ++s) count[s] += o.count[s], latency_ps[s] += o.latency_ps[s];
    }
    double accesses() const { return sum(count); }
    double mean_latency_ps() const { return accesses() > 0 ? sum(latency_ps) / accesses() : 0; }

private:
    static double sum(const std::array<double, sources>& a) {
        double t = 0;
        for (double v : a) t += v;
        return t;
    }
};

class compute_settling {
public:
    static constexpr double window_accesses = 8192;
    static constexpr double settle_spread = 0.04;
    static constexpr double drift_accesses = 1024;
    static constexpr double drift_limit = 0.5;

    static constexpr double refill_accesses_per_line = 3;

    // Is this the same place and profile as the measurements were made in? If not, starts over.
    // `working_set_lines`: lines of the profile's working set.
    void at(unsigned cpu, std::uint64_t epoch, const memory_profile* profile, double working_set_lines) {
        if (cpu == cpu_ && epoch == epoch_ && profile == profile_) return;
        start_over();
        cpu_ = cpu;
        epoch_ = epoch;
        profile_ = profile;
        refill_ = refill_accesses_per_line * working_set_lines;
    }

    // A detailed chunk: `instructions` retired in `ps`, making the accesses `mix`.
    void detailed(std::uint64_t instructions, double ps, const access_mix& mix) {
        cur_.instructions += static_cast<double>(instructions);
        cur_.ps += ps;
        cur_.mix.add(mix);
        made_ += mix.accesses();
        if (cur_.mix.accesses() < window_accesses) return;
        windows_[filled_ % 3] = cur_;
        ++filled_;
        cur_ = {};
        if (filled_ < 3) return;
        double lo = 1e300, hi = 0, ps_sum = 0, instr = 0;
        access_mix all;
        for (const window& w : windows_) {
            const double per = w.ps / w.instructions;
            lo = std::min(lo, per);
            hi = std::max(hi, per);
            ps_sum += w.ps;
            instr += w.instructions;
            all.add(w.mix);
        }
        if (hi > lo * (1 + settle_spread) || made_ < refill_) return;
        settled_ = true;
        ps_per_instruction_ = ps_sum / instr;
        reference_ = all;
    }

    bool settled() const { return settled_; }
    double ps_per_instruction() const { return ps_per_instruction_; }
    double latency_per_access() const { return reference_.mean_latency_ps(); }

    // How much slower than when it settled the memory is for a sample: the settled mix of sources at
    // the sample's latency per source (a source the sample did not reach keeps its settled latency).
    // Only queues that grew or shrank move it; a change of mix is drift's business.
    double slowdown(const access_mix& sample) const {
        double now = 0, then = 0;
        for (int s = 0; s < access_mix::sources; ++s) {
            if (reference_.count[s] == 0) continue;
            const double settled_lat = reference_.latency_ps[s] / reference_.count[s];
            const double lat = sample.count[s] > 0 ? sample.latency_ps[s] / sample.count[s] : settled_lat;
            now += reference_.count[s] * lat;
            then += reference_.latency_ps[s];
        }
        return then > 0 ? now / then : 1.0;
    }

    // A fast-forwarded chunk's sample. Returns false when the compute has drifted: the samples' mix of
    // sources, at the settled latency per source, is more than 50% off the settled mean latency (the
    // queues are slowdown()'s business).
    bool sampled(const access_mix& sample) {
        drift_.add(sample);
        if (drift_.accesses() < drift_accesses) return true;
        double at_settled = 0;
        for (int s = 0; s < access_mix::sources; ++s)
            at_settled += reference_.count[s] > 0
                              ? drift_.count[s] * reference_.latency_ps[s] / reference_.count[s]
                              : drift_.latency_ps[s];
        const double mean = at_settled / drift_.accesses(), ref = latency_per_access();
        drift_ = {};
        if (std::abs(mean - ref) <= drift_limit * ref) return true;
        const double made = made_; // the refill here is still done: only the windows start over
        start_over();
        made_ = made;
        return false;
    }

private:
    void start_over() {
        cur_ = {};
        drift_ = {};
        windows_ = {};
        filled_ = 0;
        made_ = 0;
        settled_ = false;
    }

    struct window {
        double instructions = 0, ps = 0;
        access_mix mix;
    };
    unsigned cpu_ = ~0u;
    std::uint64_t epoch_ = 0;
    const memory_profile* profile_ = nullptr;
    window cur_;
    access_mix drift_, reference_;
    std::array<window, 3> windows_{};
    unsigned filled_ = 0;
    double made_ = 0, refill_ = 0; // accesses made here, and needed before settling
    bool settled_ = false;
    double ps_per_instruction_ = 0;
};

} // namespace warmsched::workloads
