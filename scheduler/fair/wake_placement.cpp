// Wakeup placement; see wake_placement.h.
#include "scheduler/fair/wake_placement.h"

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/load_avg.h"

#include <algorithm>

namespace warmsched::scheduler {

namespace {
constexpr int none = -1;
void update_avg(nsec& avg, nsec sample) { // avg += (sample - avg) / 8
    const long long diff = static_cast<long long>(sample) - static_cast<long long>(avg);
    avg = static_cast<nsec>(static_cast<long long>(avg) + diff / 8);
}
} // namespace

wake_placement::wake_placement(scheduler& core)
    : core_(core), feat_(core.config().features), tun_(core.config().tunables), domains_(core.domains()),
      nr_idle_scan_stamp_(core.num_cpus(), ~nsec{0}) {
    const cpu_layout& l = core.layout();
    for (unsigned c = 0; c < l.num_cpus(); ++c) {
        smt_ = smt_ || l.siblings[c].size() > 1;
        runqueue& rq = core.rq(c);
        rq.max_idle_balance_cost = tun_.migration_cost_ns;
        rq.avg_idle = 2 * tun_.migration_cost_ns;
        rq.wake_avg_idle = rq.avg_idle / 2;
    }
    for (unsigned c = 0; c < l.num_cpus(); ++c) // every CPU starts idle
        if (sched_domain_shared* sh = domains_.sd_llc_shared(c)) sh->has_idle_cores = smt_;
}

unsigned wake_placement::llc_size(unsigned cpu) const {
    return domains_.sd_llc_size(cpu);
}

nsec wake_placement::jiffies(nsec now) const {
    return core_.config().jiffies(now);
}

bool wake_placement::available_idle_cpu(unsigned cpu) const {
    return core_.rq(cpu).is_idle();
}

bool wake_placement::sched_idle_cpu(unsigned cpu) const {
    const runqueue& rq = core_.rq(cpu);
    return rq.nr_running > 0 && rq.nr_running == rq.idle_policy_running;
}

void wake_placement::record_wakee(task& waker, const task& p, nsec now) {
    const nsec j = jiffies(now);
    if (j > waker.wakee_flip_decay_ts + core_.config().hz) { // once a second
        waker.wakee_flips >>= 1;
        waker.wakee_flip_decay_ts = j;
    }
    if (waker.last_wakee != &p) {
        if (feat_[feature::WAKEE_FLIPS_COUPLE]) {
            const unsigned f = llc_size(waker.cpu);
            if (waker.wakee_flips > const_cast<task&>(p).wakee_flips * 2 * f)
                ++const_cast<task&>(p).wakee_flips;
        }
        waker.last_wakee = &p;
        ++waker.wakee_flips;
    }
}

bool wake_placement::wake_wide(const task& waker, const task& p, unsigned f) const {
    unsigned master = waker.wakee_flips, slave = p.wakee_flips;
    if (master < slave) std::swap(master, slave);
    if (feat_[feature::WAKEE_FLIPS_COUPLE]) {
        if ((slave < f && master < (f >> 1) * f) || master < slave * f) return false;
        return true;
    }
    if (slave < f || master < slave * f) return false;
    return true;
}

int wake_placement::wake_affine_idle(unsigned this_cpu, unsigned prev, bool sync) const {
    if (available_idle_cpu(this_cpu) && domains_.cpus_share_cache(this_cpu, prev))
        return available_idle_cpu(prev) ? static_cast<int>(prev) : static_cast<int>(this_cpu);
    if (sync && core_.rq(this_cpu).nr_running == 1) return static_cast<int>(this_cpu);
    if (available_idle_cpu(prev)) return static_cast<int>(prev);
    return none;
}

int wake_placement::wake_affine_weight(const task& p, const task& waker, unsigned this_cpu, unsigned prev,
                                       bool sync, unsigned pct) const {
    const runqueue& this_rq = core_.rq(this_cpu);
    const runqueue& prev_rq = core_.rq(prev);
    long long this_eff = static_cast<long long>(cpu_load(this_rq));
    if (sync) {
        const long long current_load =
            waker.is_idle ? 0 : static_cast<long long>(task_h_load(this_rq, waker));
        if (current_load > this_eff) return static_cast<int>(this_cpu);
        this_eff -= current_load;
    }
    const long long task_load = static_cast<long long>(task_h_load(prev_rq, p));
    this_eff += task_load;
    if (feat_[feature::WA_BIAS]) this_eff *= 100;
    this_eff *= 1024; // capacity_of(prev)
    long long prev_eff = static_cast<long long>(cpu_load(prev_rq)) - task_load;
    if (feat_[feature::WA_BIAS]) prev_eff *= 100 + (static_cast<long long>(pct) - 100) / 2;
    prev_eff *= 1024; // capacity_of(this)
    if (sync) prev_eff += 1;
    return this_eff < prev_eff ? static_cast<int>(this_cpu) : none;
}

int wake_placement::wake_affine(sched_domain& sd, task& p, const task& waker, unsigned this_cpu,
                                unsigned prev, bool sync) {
    int target = none;
    if (feat_[feature::WA_IDLE]) target = wake_affine_idle(this_cpu, prev, sync);
    if (feat_[feature::WA_WEIGHT] && target == none)
        target = wake_affine_weight(p, waker, this_cpu, prev, sync, sd.imbalance_pct);
    ++p.stats.nr_wakeups_affine_attempts;
    if (target == none) return static_cast<int>(prev);
    ++sd.stats.ttwu_move_affine;
    ++p.stats.nr_wakeups_affine;
    return target;
}

unsigned wake_placement::select(task& p, unsigned prev, unsigned wake_flags, std::vector<unsigned>& probed) {
    const unsigned this_cpu = static_cast<unsigned>(core_.calling_cpu());
    task& waker = *core_.rq(this_cpu).curr;
    const nsec now = core_.rq(this_cpu).clock;
    const bool sync = (wake_flags & WF_SYNC) && waker.state != task_state::dead;
    record_wakee(waker, p, now);
    const bool want_affine = !wake_wide(waker, p, llc_size(this_cpu)) && p.allowed_on(this_cpu);
    unsigned new_cpu = prev;
    if (prev != this_cpu) probed.push_back(prev); // its idle state and load are read remotely
    // The domain walk: the lowest WAKE_AFFINE domain spanning prev decides affine vs prev. No level
    // has SD_BALANCE_WAKE, so a wakeup always takes the fast path below.
    if (want_affine) {
        for (sched_domain& sd : domains_.domains(this_cpu)) {
            if (sd.has(SD_WAKE_AFFINE) && sd.contains(prev)) {
                if (this_cpu != prev)
                    new_cpu = static_cast<unsigned>(wake_affine(sd, p, waker, this_cpu, prev, sync));
                break;
            }
        }
    }
    return select_idle_sibling(p, prev, new_cpu, probed);
}

int wake_placement::select_idle_smt(const task& p, unsigned prev, std::vector<unsigned>& probed) {
    for (unsigned cpu : core_.layout().siblings[prev]) {
        if (cpu == prev || !p.allowed_on(cpu)) continue;
        probed.push_back(cpu);
        if (available_idle_cpu(cpu) || sched_idle_cpu(cpu)) return static_cast<int>(cpu);
    }
    return none;
}

void wake_placement::update_nr_idle_scan(unsigned target, nsec jiffy) {
    sched_domain* llc = domains_.sd_llc(target);
    nsec& stamp = nr_idle_scan_stamp_[domains_.sd_llc_id(target)];
    if (!llc || stamp == jiffy) return;
    stamp = jiffy;
    std::uint64_t sum_util = 0;
    for (unsigned c : llc->span()) sum_util += cpu_util(core_.rq(c));
    // update_idle_cpu_scan uses the imbalance_pct of the domain above the LLC being balanced.
    const std::uint64_t weight = llc->span_weight, pct = llc->parent ? llc->parent->imbalance_pct : 117;
    const std::uint64_t x = sum_util / weight;
    const std::uint64_t tmp = std::min<std::uint64_t>(x * x * pct * pct / (10000 * 1024), 1024);
    llc->shared->nr_idle_scan = static_cast<unsigned>((1024 - tmp) * weight / 1024);
}

int wake_placement::select_idle_cpu(const task& p, bool has_idle_core, unsigned target,
                                    std::vector<unsigned>& probed) {
    sched_domain* llc = domains_.sd_llc(target);
    if (!llc) return none;
    const auto& span = llc->span().cpus();
    const unsigned this_cpu = static_cast<unsigned>(core_.calling_cpu());
    runqueue& this_rq = core_.rq(this_cpu);
    long long nr = 1ll << 30;
    if (feat_[feature::SIS_PROP] && !has_idle_core) {
        const nsec now = jiffies(this_rq.clock);
        while (this_rq.wake_stamp < now && this_rq.wake_avg_idle) { // busy since: age the prediction
            ++this_rq.wake_stamp;
            this_rq.wake_avg_idle >>= 1;
        }
        sched_domain* this_llc = domains_.sd_llc(this_cpu);
        const nsec avg_cost = (this_llc ? this_llc->avg_scan_cost : 0) + 1;
        const nsec span_avg = span.size() * this_rq.wake_avg_idle;
        nr = span_avg > 4 * avg_cost ? static_cast<long long>(span_avg / avg_cost) : 4;
    }
    if (feat_[feature::SIS_UTIL]) {
        update_nr_idle_scan(target, jiffies(this_rq.clock));
        nr = static_cast<long long>(llc->shared->nr_idle_scan) + 1;
        if (nr == 1) return none; // an overloaded LLC is unlikely to have an idle CPU
    }
    // Walk the LLC's allowed CPUs cyclically from target + 1.
    const auto start = std::upper_bound(span.begin(), span.end(), target) - span.begin();
    std::vector<bool>& skip = skip_; // reused: no allocation per wakeup
    skip.assign(span.size(), false);
    int idle_cpu = none;
    for (std::size_t k = 0; k < span.size(); ++k) {
        const std::size_t i = (static_cast<std::size_t>(start) + k) % span.size();
        const unsigned cpu = span[i];
        if (skip[i] || !p.allowed_on(cpu)) continue;
        if (has_idle_core) { // select_idle_core: the whole core must be idle
            bool idle = true;
            for (unsigned s : core_.layout().siblings[cpu]) {
                probed.push_back(s);
                if (!available_idle_cpu(s)) {
                    idle = false;
                    if (idle_cpu == none && sched_idle_cpu(s) && p.allowed_on(s))
                        idle_cpu = static_cast<int>(s);
                    if (idle_cpu != none) break;
                    continue;
                }
                if (idle_cpu == none && p.allowed_on(s)) idle_cpu = static_cast<int>(s);
            }
            if (idle) return static_cast<int>(cpu);
            for (unsigned s : core_.layout().siblings[cpu]) {
                const auto j = std::lower_bound(span.begin(), span.end(), s) - span.begin();
                if (static_cast<std::size_t>(j) < span.size() && span[j] == s) skip[j] = true;
            }
        } else {
            if (--nr <= 0) return none;
            probed.push_back(cpu);
            if (available_idle_cpu(cpu) || sched_idle_cpu(cpu)) {
                idle_cpu = static_cast<int>(cpu);
                break;
            }
        }
    }
    if (has_idle_core) llc->shared->has_idle_cores = false; // the search found none
    return idle_cpu;
}

unsigned wake_placement::select_idle_sibling(task& p, unsigned prev, unsigned target,
                                             std::vector<unsigned>& probed) {
    const sched_domain_tree& l = domains_;
    if (available_idle_cpu(target) || sched_idle_cpu(target)) return target;
    if (prev != target && l.cpus_share_cache(prev, target) &&
        (available_idle_cpu(prev) || sched_idle_cpu(prev)))
        return prev;
    const int recent = p.recent_used_cpu;
    p.recent_used_cpu = static_cast<int>(prev);
    if (recent >= 0 && static_cast<unsigned>(recent) != prev && static_cast<unsigned>(recent) != target &&
        l.cpus_share_cache(static_cast<unsigned>(recent), target) &&
        p.allowed_on(static_cast<unsigned>(recent))) {
        probed.push_back(static_cast<unsigned>(recent));
        if (available_idle_cpu(static_cast<unsigned>(recent)) ||
            sched_idle_cpu(static_cast<unsigned>(recent)))
            return static_cast<unsigned>(recent);
    }
    bool has_idle_core = false;
    if (smt_) {
        const sched_domain_shared* sh = l.sd_llc_shared(target);
        has_idle_core = sh && sh->has_idle_cores;
        if (!has_idle_core && l.cpus_share_cache(prev, target)) {
            const int i = select_idle_smt(p, prev, probed);
            if (i != none) return static_cast<unsigned>(i);
        }
    }
    const int i = select_idle_cpu(p, has_idle_core, target, probed);
    return i != none ? static_cast<unsigned>(i) : target;
}

void wake_placement::cpu_enters_idle(unsigned cpu, nsec now) {
    runqueue& rq = core_.rq(cpu);
    rq.idle_stamp = std::max<nsec>(now, 1);
    // __update_idle_core: a core whose threads are all idle sets the LLC's hint.
    if (!smt_) return;
    for (unsigned s : core_.layout().siblings[cpu])
        if (s != cpu && !available_idle_cpu(s)) return;
    if (sched_domain_shared* sh = domains_.sd_llc_shared(cpu)) sh->has_idle_cores = true;
}

void wake_placement::cpu_woken_from_idle(unsigned cpu, nsec now) {
    runqueue& rq = core_.rq(cpu);
    if (!rq.idle_stamp) return;
    const nsec delta = now > rq.idle_stamp ? now - rq.idle_stamp : 0;
    const nsec max = 2 * rq.max_idle_balance_cost;
    update_avg(rq.avg_idle, delta);
    if (rq.avg_idle > max) rq.avg_idle = max;
    rq.wake_stamp = jiffies(now);
    rq.wake_avg_idle = rq.avg_idle / 2;
    rq.idle_stamp = 0;
}

void wake_placement::account_scan(unsigned this_cpu, nsec time) {
    if (!feat_[feature::SIS_PROP]) return;
    runqueue& rq = core_.rq(this_cpu);
    rq.wake_avg_idle -= std::min(rq.wake_avg_idle, time);
    if (sched_domain* llc = domains_.sd_llc(this_cpu)) update_avg(llc->avg_scan_cost, time);
}

} // namespace warmsched::scheduler
