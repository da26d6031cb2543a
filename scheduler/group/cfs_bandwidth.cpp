// CFS bandwidth control; see cfs_bandwidth.h.
#include "scheduler/group/cfs_bandwidth.h"

#include "scheduler/core/scheduler.h"
#include "scheduler/fair/fair_class.h"

#include <algorithm>

namespace warmsched::scheduler {

namespace {
constexpr std::int64_t min_cfs_rq_runtime = 1'000'000; // kept by a queue that empties
constexpr nsec cfs_bandwidth_slack_period = 5'000'000; // the slack timer's delay
constexpr nsec min_bandwidth_expiration = 2'000'000 + cfs_bandwidth_slack_period;
} // namespace

cfs_bandwidth_control::cfs_bandwidth_control(scheduler& core) : core_(core) {}

bool cfs_bandwidth_control::task_based() const {
    return core_.config().features[feature::TASK_BASED_THROTTLE];
}

void cfs_bandwidth_control::build() {
    const task_groups& groups = core_.groups();
    index_.assign(groups.size(), -1);
    pools_.clear();
    pool_group_.clear();
    for (group_id g = 0; g < groups.size(); ++g) {
        const cgroup_spec& s = groups.spec(g);
        if (!s.quota_ns) continue;
        index_[g] = static_cast<int>(pools_.size());
        cfs_bandwidth b;
        b.quota = static_cast<std::int64_t>(*s.quota_ns);
        b.period = static_cast<std::int64_t>(s.period_ns);
        b.burst = static_cast<std::int64_t>(s.burst_ns);
        b.runtime = b.runtime_snap = b.quota; // tg_set_cfs_bandwidth: a full pool
        b.cpu.assign(core_.num_cpus(), cfs_rq_runtime{});
        pools_.push_back(std::move(b));
        pool_group_.push_back(g);
    }
    parked_.assign(pools_.empty() ? 0 : core_.num_cpus(), {});
    csd_.assign(pools_.empty() ? 0 : core_.num_cpus(), {});
    next_ = armed_ = std::numeric_limits<nsec>::max();
}

const cfs_rq_runtime* cfs_bandwidth_control::state(group_id g, unsigned cpu) const {
    const cfs_bandwidth* b = pool(g);
    return b ? &b->cpu[cpu] : nullptr;
}

bool cfs_bandwidth_control::throttled_hierarchy(const task& p, unsigned cpu) const {
    if (pools_.empty()) return false;
    for (group_id g : core_.groups()[p.cgroup].quota_chain)
        if (pools_[index_[g]].cpu[cpu].throttled) return true;
    return false;
}

unsigned cfs_bandwidth_control::throttle_count(group_id g, unsigned cpu) const {
    unsigned n = 0;
    if (pools_.empty()) return 0;
    for (group_id a : core_.groups()[g].quota_chain)
        if (pools_[index_[a]].cpu[cpu].throttled) ++n;
    return n;
}

bool cfs_bandwidth_control::lb_refuses(const task& p, unsigned src, unsigned dst) const {
    if (pools_.empty()) return false;
    const sched_features& f = core_.config().features;
    if (f[feature::THROTTLED_LB_PAIR] && (throttled_hierarchy(p, src) || throttled_hierarchy(p, dst)))
        return true;
    return f[feature::LB_THROTTLED_DEST] && throttled_hierarchy(p, dst);
}

// __assign_cfs_rq_runtime: tops the local runtime up to `target` from the pool.
bool cfs_bandwidth_control::assign_runtime(cfs_bandwidth& b, cfs_rq_runtime& rt, std::int64_t target,
                                           nsec now) {
    const std::int64_t min_amount = target - rt.runtime_remaining;
    start_period_timer(b, now);
    if (b.runtime > 0 && min_amount > 0) {
        const std::int64_t amount = std::min(b.runtime, min_amount);
        b.runtime -= amount;
        b.idle = false;
        rt.runtime_remaining += amount;
    }
    return rt.runtime_remaining > 0;
}

void cfs_bandwidth_control::account(runqueue& rq, task& p, nsec delta) {
    const std::int64_t slice = static_cast<std::int64_t>(core_.config().tunables.cfs_bandwidth_slice_ns);
    for (group_id g : core_.groups()[p.cgroup].quota_chain) {
        cfs_bandwidth& b = bw(g);
        cfs_rq_runtime& rt = b.cpu[rq.cpu];
        rt.runtime_remaining -= static_cast<std::int64_t>(delta);
        if (rt.runtime_remaining > 0 || rt.throttled) continue;
        if (!assign_runtime(b, rt, slice, rq.clock) && rq.curr == &p) core_.resched_curr(rq);
    }
}

void cfs_bandwidth_control::task_enqueued(runqueue& rq, const task& p) {
    for (group_id g : core_.groups()[p.cgroup].quota_chain) {
        cfs_rq_runtime& rt = bw(g).cpu[rq.cpu];
        ++rt.h_nr_running;
        if (rt.throttled && !rt.clock_started && !task_based()) { // the first task to wait in it
            rt.clock_started = true;
            rt.throttled_clock = rq.clock;
        }
    }
}

void cfs_bandwidth_control::task_dequeued(runqueue& rq, const task& p) {
    const std::int64_t slice = static_cast<std::int64_t>(core_.config().tunables.cfs_bandwidth_slice_ns);
    for (group_id g : core_.groups()[p.cgroup].quota_chain) {
        cfs_bandwidth& b = bw(g);
        cfs_rq_runtime& rt = b.cpu[rq.cpu];
        if (--rt.h_nr_running) continue;
        // return_cfs_rq_runtime: keep 1 ms, give the rest back.
        const std::int64_t slack = rt.runtime_remaining - min_cfs_rq_runtime;
        if (slack <= 0) continue;
        b.runtime += slack;
        rt.runtime_remaining -= slack;
        if (b.runtime > slice && !b.throttled_cpus.empty()) start_slack_timer(b, rq.clock);
    }
}

void cfs_bandwidth_control::park(runqueue& rq, task& p) {
    p.on_rq = true; // still queued as far as the core is concerned (TASK_ON_RQ_QUEUED)
    p.throttled = true;
    parked_[rq.cpu].push_back(&p);
}

void cfs_bandwidth_control::move_parked(runqueue& rq, task& p, group_id g) {
    auto& list = parked_[rq.cpu];
    list.erase(std::find(list.begin(), list.end(), &p));
    p.throttled = false;
    p.on_rq = false;
    p.cgroup = g;
    core_.class_of(p).enqueue_task(rq, p, ENQUEUE_WAKEUP);
    if (rq.curr == rq.idle) core_.resched_curr(rq);
}

void cfs_bandwidth_control::check_enqueue_throttle(runqueue& rq, const task& p) {
    if (task_based()) return;
    for (group_id g : core_.groups()[p.cgroup].quota_chain) { // each level the task makes non-empty
        cfs_bandwidth& b = bw(g);
        cfs_rq_runtime& rt = b.cpu[rq.cpu];
        if (rt.h_nr_running || rt.throttled) continue;
        if (rt.runtime_remaining <= 0)
            assign_runtime(b, rt, static_cast<std::int64_t>(core_.config().tunables.cfs_bandwidth_slice_ns),
                           rq.clock);
        if (rt.runtime_remaining <= 0) throttle(g, rq.cpu, rq.clock);
    }
}

bool cfs_bandwidth_control::task_throttled(const task& p) const {
    if (p.throttled) return true; // on a limbo list
    return !task_based() && p.on_rq && core_.is_fair(p) && throttled_hierarchy(p, p.cpu);
}

void cfs_bandwidth_control::check_prev(runqueue& rq, task& prev) {
    if (!core_.is_fair(prev)) return;
    for (group_id g : core_.groups()[prev.cgroup].quota_chain) {
        const cfs_rq_runtime& rt = bw(g).cpu[rq.cpu];
        if (rt.runtime_remaining > 0 || rt.throttled) continue;
        throttle(g, rq.cpu, rq.clock);
    }
}

// throttle_cfs_rq.
bool cfs_bandwidth_control::throttle(group_id g, unsigned cpu, nsec now) {
    cfs_bandwidth& b = bw(g);
    cfs_rq_runtime& rt = b.cpu[cpu];
    if (assign_runtime(b, rt, 1, now)) return false; // a last request for 1 ns
    b.throttled_cpus.push_back(cpu);
    rt.throttled = true;
    if (task_based()) { // the queue stays; tasks leave one by one at their return to user mode
        throttle_down(g, cpu, now);
        return true;
    }
    // The group's queue leaves the CPU (throttle_cfs_rq): its entity is dequeued from its parent with
    // its tasks still queued in it; the levels below stop their PELT clocks (tg_throttle_down).
    runqueue& rq = core_.rq(cpu);
    fair_class& fair = core_.fair();
    cfs_rq& q = fair.tg_rq(rq, g).q;
    throttle_down(g, cpu, now);
    q.throttled = true;
    fair.throttle_cfs_rq(rq, q);
    rt.clock_started = q.nr_running > 0; // throttled time counts while something waits in it
    rt.throttled_clock = now;
    return true;
}

// tg_throttle_down / tg_unthrottle_up over the queues of g's subtree that exist on `cpu`.
void cfs_bandwidth_control::throttle_down(group_id g, unsigned cpu, nsec now) {
    runqueue& rq = core_.rq(cpu);
    for (group_id d = g; d < rq.tg.size(); ++d) {
        if (!rq.tg[d] || !core_.groups().in_subtree(d, g)) continue;
        cfs_rq& q = rq.tg[d]->q;
        if (q.throttle_count++ == 0 && !q.pelt_stopped && (!task_based() || !q.nr_running)) {
            q.pelt_stopped = true; // the task-based model stops a queue's clock only once it is empty
            q.throttled_clock_pelt = now;
        }
    }
}

void cfs_bandwidth_control::throttle_up(group_id g, unsigned cpu, nsec now) {
    runqueue& rq = core_.rq(cpu);
    for (group_id d = g; d < rq.tg.size(); ++d) {
        if (!rq.tg[d] || !core_.groups().in_subtree(d, g)) continue;
        cfs_rq& q = rq.tg[d]->q;
        if (--q.throttle_count == 0 && q.pelt_stopped) {
            q.throttled_clock_pelt_time += now - q.throttled_clock_pelt;
            q.pelt_stopped = false;
        }
    }
}

// unthrottle_cfs_rq (the caller took it off the throttled list).
void cfs_bandwidth_control::unthrottle(group_id g, unsigned cpu, nsec now) {
    cfs_bandwidth& b = bw(g);
    cfs_rq_runtime& rt = b.cpu[cpu];
    runqueue& rq = core_.rq(cpu);
    core_.update_rq_clock(rq, now);
    rt.throttled = false;
    if (rt.clock_started) b.throttled_time += rq.clock - std::min(rq.clock, rt.throttled_clock);
    rt.clock_started = false;
    if (!task_based()) { // unthrottle_cfs_rq: the group's entity goes back on its parent
        fair_class& fair = core_.fair();
        cfs_rq& q = fair.tg_rq(rq, g).q;
        q.throttled = false;
        throttle_up(g, cpu, rq.clock);
        fair.unthrottle_cfs_rq(rq, q);
        return;
    }
    throttle_up(g, cpu, rq.clock);
    auto& list = parked_[cpu];
    for (std::size_t i = 0; i < list.size();) {
        task& p = *list[i];
        if (throttled_hierarchy(p, cpu)) {
            ++i;
            continue;
        }
        list.erase(list.begin() + static_cast<long>(i));
        p.throttled = false;
        p.on_rq = false;
        core_.class_of(p).enqueue_task(rq, p, ENQUEUE_WAKEUP);
    }
    if (rq.curr == rq.idle && rq.cfs.nr_running) core_.resched_curr(rq);
}

void cfs_bandwidth_control::picked(runqueue& rq, task& next) {
    if (!core_.is_fair(next) || !task_based()) return;
    if (throttled_hierarchy(next, rq.cpu)) next.throttle_work = true; // TWA_RESUME task work
}

void cfs_bandwidth_control::return_to_user(runqueue& rq, task& p) {
    p.throttle_work = false;
    if (!throttled_hierarchy(p, rq.cpu)) return; // unthrottled meanwhile: nothing to do
    core_.class_of(p).dequeue_task(rq, p, DEQUEUE_SLEEP | DEQUEUE_SPECIAL);
    park(rq, p);                                              // the limbo list
    for (group_id g : core_.groups()[p.cgroup].quota_chain) { // throttle time from the first limbo entry
        cfs_rq_runtime& rt = bw(g).cpu[rq.cpu];
        if (rt.throttled && !rt.clock_started) {
            rt.clock_started = true;
            rt.throttled_clock = rq.clock;
        }
    }
    core_.resched_curr(rq);
}

// ---- timers -----------------------------------------------------------------------------------------

void cfs_bandwidth_control::start_period_timer(cfs_bandwidth& b, nsec now) {
    if (b.period_active) return;
    b.period_active = true;
    const nsec period = static_cast<nsec>(b.period);
    b.period_expiry = (now / period + 1) * period; // hrtimer_forward_now from expiry 0
    update_next_timer();
}

bool cfs_bandwidth_control::refresh_within(const cfs_bandwidth& b, nsec now, nsec within) const {
    return !b.period_active || b.period_expiry < now + within;
}

void cfs_bandwidth_control::start_slack_timer(cfs_bandwidth& b, nsec now) {
    if (refresh_within(b, now, min_bandwidth_expiration) || b.slack_started) return;
    b.slack_started = true;
    b.slack_expiry = now + cfs_bandwidth_slack_period;
    update_next_timer();
}

void cfs_bandwidth_control::update_next_timer() {
    nsec next = std::numeric_limits<nsec>::max();
    for (const cfs_bandwidth& b : pools_) {
        if (b.period_active) next = std::min(next, b.period_expiry);
        if (b.slack_started) next = std::min(next, b.slack_expiry);
    }
    next_ = next;
    if (next_ < armed_) {
        armed_ = next_;
        const int c = core_.calling_cpu();
        core_.arm_sched_timer(c >= 0 ? static_cast<unsigned>(c) : 0u, next_);
    }
}

void cfs_bandwidth_control::run_timers(unsigned cpu, nsec now) {
    (void)cpu;
    if (armed_ <= now) armed_ = std::numeric_limits<nsec>::max(); // this is the interrupt asked for
    if (now < next_) return update_next_timer();
    for (std::size_t i = 0; i < pools_.size(); ++i) {
        cfs_bandwidth& b = pools_[i];
        const nsec period = static_cast<nsec>(b.period);
        if (b.period_active && b.period_expiry <= now) { // sched_cfs_period_timer
            const std::uint64_t overrun = (now - b.period_expiry) / period + 1;
            b.period_expiry += overrun * period;
            if (period_timer(pool_group_[i], overrun, now)) b.period_active = false;
        }
        if (b.slack_started && b.slack_expiry <= now) { // sched_cfs_slack_timer
            b.slack_started = false;
            const std::int64_t slice =
                static_cast<std::int64_t>(core_.config().tunables.cfs_bandwidth_slice_ns);
            if (!refresh_within(b, now, min_bandwidth_expiration) && b.runtime > slice)
                distribute(pool_group_[i], now);
        }
    }
    next_ = std::numeric_limits<nsec>::max();
    update_next_timer();
}

// do_sched_cfs_period_timer.
bool cfs_bandwidth_control::period_timer(group_id g, std::uint64_t overrun, nsec now) {
    cfs_bandwidth& b = bw(g);
    const bool throttled = !b.throttled_cpus.empty();
    b.nr_periods += overrun;
    // __refill_cfs_bandwidth_runtime, with burst accounting.
    b.runtime += b.quota;
    const std::int64_t used_over_quota = b.runtime_snap - b.runtime;
    if (used_over_quota > 0) {
        b.burst_time += static_cast<nsec>(used_over_quota);
        ++b.nr_burst;
    }
    b.runtime = std::min(b.runtime, b.quota + b.burst);
    b.runtime_snap = b.runtime;
    if (b.idle && !throttled) return true;
    if (!throttled) {
        b.idle = true;
        return false;
    }
    b.nr_throttled += overrun;
    distribute(g, now);
    b.idle = false;
    return false;
}

// distribute_cfs_runtime: in list order, each throttled queue gets what it owes plus 1 ns.
void cfs_bandwidth_control::distribute(group_id g, nsec now) {
    cfs_bandwidth& b = bw(g);
    std::size_t i = 0;
    const int here = core_.calling_cpu();
    const bool async = core_.config().features[feature::ASYNC_UNTHROTTLE];
    while (i < b.throttled_cpus.size() && b.runtime > 0) {
        const unsigned cpu = b.throttled_cpus[i];
        cfs_rq_runtime& rt = b.cpu[cpu];
        if (rt.csd_pending) { // already queued for its CPU's IPI
            ++i;
            continue;
        }
        const std::int64_t amount = std::min(-rt.runtime_remaining + 1, b.runtime);
        b.runtime -= amount;
        rt.runtime_remaining += amount;
        if (rt.runtime_remaining <= 0) {
            ++i;
        } else if (async && here >= 0 && cpu != static_cast<unsigned>(here)) {
            rt.csd_pending = true; // unthrottle_cfs_rq_async: it stays on the list until then
            csd_[cpu].push_back(g);
            core_.kick_cpu(cpu);
            ++i;
        } else {
            b.throttled_cpus.erase(b.throttled_cpus.begin() + static_cast<long>(i));
            unthrottle(g, cpu, now);
        }
    }
}

// __cfsb_csd_unthrottle on `cpu`.
void cfs_bandwidth_control::run_csd(unsigned cpu, nsec now) {
    std::vector<group_id> pending;
    pending.swap(csd_[cpu]);
    for (group_id g : pending) {
        cfs_bandwidth& b = bw(g);
        cfs_rq_runtime& rt = b.cpu[cpu];
        rt.csd_pending = false;
        b.throttled_cpus.erase(std::find(b.throttled_cpus.begin(), b.throttled_cpus.end(), cpu));
        if (rt.throttled) unthrottle(g, cpu, now);
    }
}

} // namespace warmsched::scheduler
