// Periodic, newidle and NOHZ balancing; see balance_triggers.h.
#include "scheduler/fair/balance_triggers.h"

#include "scheduler/fair/load_avg.h"

#include <algorithm>

namespace warmsched::scheduler {

namespace {
constexpr nsec load_avg_period_ms = 32; // LOAD_AVG_PERIOD: the blocked-load refresh period

bool sched_idle_cpu(const runqueue& rq) {
    return rq.nr_running > 0 && rq.nr_running == rq.idle_policy_running;
}
} // namespace

balance_triggers::balance_triggers(scheduler& core, load_balancer& lb)
    : core_(core), lb_(lb), idle_mask_((core.num_cpus() + 63) / 64, 0) {
    const nsec hz = core.config().hz;
    max_load_balance_interval_ = std::max<nsec>(1, hz * core.num_cpus() / 10);
    // Every CPU starts idle with its tick stopped.
    for (unsigned c = 0; c < core.num_cpus(); ++c) nohz_balance_enter_idle(c);
}

nsec balance_triggers::msecs_to_jiffies(nsec ms) const {
    const nsec hz = core_.config().hz;
    return (ms * hz + 999) / 1000; // rounded up, as msecs_to_jiffies() does
}

nsec balance_triggers::balance_interval(const sched_domain& sd, bool busy) const {
    nsec interval = sd.balance_interval;
    if (busy) interval *= sd.busy_factor;
    interval = msecs_to_jiffies(interval);
    // Busy intervals one jiffy short, so that levels do not balance in lockstep.
    if (busy && interval > 0) interval -= 1;
    return std::clamp<nsec>(interval, 1, max_load_balance_interval_);
}

void balance_triggers::update_next_balance(const sched_domain& sd, nsec& next_balance) const {
    const nsec next = sd.last_balance + balance_interval(sd, false);
    if (next_balance > next) next_balance = next;
}

bool balance_triggers::update_newidle_cost(sched_domain& sd, nsec cost, nsec now) {
    const nsec j = jiffies(now), hz = core_.config().hz;
    if (cost > sd.max_newidle_lb_cost) {
        sd.max_newidle_lb_cost = cost;
        if (core_.config().features[feature::NEWIDLE_COST_WAIT_DECAY]) sd.last_decay_max_lb_cost = j;
    } else if (j > sd.last_decay_max_lb_cost + hz) {
        sd.max_newidle_lb_cost = sd.max_newidle_lb_cost * 253 / 256; // ~1% per second
        sd.last_decay_max_lb_cost = j;
        return true;
    }
    return false;
}

// ---- periodic ---------------------------------------------------------------------------------------

void balance_triggers::trigger_load_balance(runqueue& rq, nsec now) {
    if (!core_.domains().base(rq.cpu)) return; // a one-CPU machine: nothing to balance
    const cpu_idle_type idle = rq.is_idle() ? CPU_IDLE : CPU_NOT_IDLE; // rq->idle_balance at the tick
    nohz_balancer_kick(rq, now);
    if (jiffies(now) >= rq.next_balance) { // SCHED_SOFTIRQ (run_rebalance_domains)
        update_blocked_averages(rq, now);
        lb_.set_cause(migration_cause::periodic_balance);
        rebalance_domains(rq, idle, now);
    }
}

void balance_triggers::rebalance_domains(runqueue& rq, cpu_idle_type idle, nsec now) {
    const unsigned cpu = rq.cpu;
    const bool per_visit_decay = core_.config().features[feature::NEWIDLE_COST_WAIT_DECAY];
    const nsec j = jiffies(now), hz = core_.config().hz;
    bool busy = idle != CPU_IDLE && !sched_idle_cpu(rq);
    bool continue_balancing = true, need_decay = false, update_next = false;
    nsec next_balance = j + 60 * hz, max_cost = 0;
    const bool llc_only = core_.config().features[feature::NO_CROSS_LLC_BALANCE];
    for (sched_domain& sd : core_.domains().domains(cpu)) {
        if (llc_only && !sd.has(SD_SHARE_LLC)) break; // diagnostic: no balancing above the LLC
        // A regular visit of every domain: decay the newidle maxima.
        const bool decayed = update_newidle_cost(sd, 0, now);
        need_decay = per_visit_decay ? decayed : (need_decay || decayed);
        max_cost += sd.max_newidle_lb_cost;
        // Another CPU of our group balances the levels above more actively.
        if (!continue_balancing) {
            if (need_decay) continue;
            break;
        }
        nsec interval = balance_interval(sd, busy);
        if (j >= sd.last_balance + interval) {
            if (lb_.load_balance(cpu, sd, idle, continue_balancing, now)) {
                // DST_PINNED may have moved the tasks elsewhere: look at our state again.
                idle = core_.rq(cpu).is_idle() ? CPU_IDLE : CPU_NOT_IDLE;
                busy = idle != CPU_IDLE && !sched_idle_cpu(rq);
            }
            sd.last_balance = j;
            interval = balance_interval(sd, busy);
        }
        if (next_balance > sd.last_balance + interval) {
            next_balance = sd.last_balance + interval;
            update_next = true;
        }
    }
    if (need_decay)
        rq.max_idle_balance_cost = std::max<nsec>(core_.config().tunables.migration_cost_ns, max_cost);
    if (update_next) rq.next_balance = next_balance;
}

// ---- newidle ----------------------------------------------------------------------------------------

int balance_triggers::newidle_balance(runqueue& rq, nsec now) {
    const unsigned cpu = rq.cpu;
    nsec next_balance = jiffies(now) + core_.config().hz;
    rq.idle_stamp = std::max<nsec>(now, 1); // the balance's time counts as idle time
    sched_domain* base = core_.domains().base(cpu);
    bool skip = !core_.rd_overloaded();
    if (core_.config().features[feature::NEWIDLE_SKIP_BY_LB_COST])
        skip = skip || (base && rq.avg_idle < base->max_newidle_lb_cost);
    else
        skip = skip || rq.avg_idle < core_.config().tunables.migration_cost_ns;
    int pulled = 0;
    if (skip) {
        if (base) update_next_balance(*base, next_balance);
    } else {
        lb_.set_cause(migration_cause::newidle_balance);
        update_blocked_averages(rq, now);
        nsec curr_cost = 0;
        const sched_features& feat = core_.config().features;
        const bool llc_only = feat[feature::NO_CROSS_LLC_BALANCE];
        const bool next_first = feat[feature::NEWIDLE_NEXT_BALANCE_FIRST];
        for (sched_domain& sd : core_.domains().domains(cpu)) {
            if (llc_only && !sd.has(SD_SHARE_LLC)) break; // diagnostic: no balancing above the LLC
            bool continue_balancing = true;
            if (next_first) update_next_balance(sd, next_balance);
            // Stop where the expected cost would eat the expected idle time.
            if (rq.avg_idle < curr_cost + sd.max_newidle_lb_cost) {
                if (!next_first) update_next_balance(sd, next_balance);
                break;
            }
            if (sd.has(SD_BALANCE_NEWIDLE)) {
                pulled = static_cast<int>(lb_.load_balance(cpu, sd, CPU_NEWLY_IDLE, continue_balancing, now));
                const nsec cost = lb_.last_cost();
                if (feat[feature::NEWIDLE_COST_WAIT_DECAY])
                    update_newidle_cost(sd, cost, now);
                else
                    sd.max_newidle_lb_cost = std::max(sd.max_newidle_lb_cost, cost);
                curr_cost += cost;
            }
            if (!next_first) update_next_balance(sd, next_balance);
            // NEWIDLE_BAIL_OUT: should_we_balance stopped the walk if a task arrived; before it, the loop
            // looked itself.
            if (pulled || (feat[feature::NEWIDLE_BAIL_OUT] ? !continue_balancing : rq.nr_running > 0)) break;
        }
        rq.max_idle_balance_cost = std::max(rq.max_idle_balance_cost, curr_cost);
        if (rq.cfs.h_nr_running && !pulled) pulled = 1; // something arrived meanwhile
    }
    if (rq.next_balance > next_balance) rq.next_balance = next_balance;
    if (pulled) rq.idle_stamp = 0;
    return pulled;
}

// ---- NOHZ -------------------------------------------------------------------------------------------

void balance_triggers::set_llc_busy(unsigned cpu, bool busy) {
    runqueue& rq = core_.rq(cpu);
    sched_domain_shared* sds = core_.domains().sd_llc_shared(cpu);
    if (!sds || rq.llc_nohz_idle != busy) return; // already in that state
    rq.llc_nohz_idle = !busy;
    if (busy)
        ++sds->nr_busy_cpus;
    else if (sds->nr_busy_cpus > 0)
        --sds->nr_busy_cpus;
}

void balance_triggers::nohz_balance_enter_idle(unsigned cpu) {
    runqueue& rq = core_.rq(cpu);
    rq.has_blocked_load = true;
    if (!rq.nohz_tick_stopped) {
        if (!core_.domains().base(cpu)) return; // on_null_domain
        rq.nohz_tick_stopped = true;
        idle_mask_[cpu >> 6] |= std::uint64_t{1} << (cpu & 63);
        ++nohz_nr_cpus_;
        set_llc_busy(cpu, false);
        // NOHZ_NEXT_KICK's effect: the ILB is due no later than this CPU's own next balance.
        nohz_next_balance_ = std::min(nohz_next_balance_, rq.next_balance);
    }
    nohz_has_blocked_ = true;
}

void balance_triggers::nohz_balance_exit_idle(runqueue& rq) {
    if (!rq.nohz_tick_stopped) return;
    rq.nohz_tick_stopped = false;
    idle_mask_[rq.cpu >> 6] &= ~(std::uint64_t{1} << (rq.cpu & 63));
    --nohz_nr_cpus_;
    set_llc_busy(rq.cpu, true);
}

void balance_triggers::nohz_balancer_kick(runqueue& rq, nsec now) {
    if (rq.is_idle()) return;
    nohz_balance_exit_idle(rq); // the first busy tick after idle
    if (nohz_nr_cpus_ == 0) return;
    const nsec j = jiffies(now);
    unsigned flags = 0;
    if (nohz_has_blocked_ && j > nohz_next_blocked_) flags = NOHZ_STATS_KICK;
    if (j >= nohz_next_balance_) {
        const sched_domain* base = core_.domains().base(rq.cpu);
        const sched_domain_shared* sds = core_.domains().sd_llc_shared(rq.cpu);
        if (rq.nr_running >= 2 || (base && rq.cfs.h_nr_running >= 1 && check_cpu_capacity(rq, *base)) ||
            (sds && sds->nr_busy_cpus > 1))
            flags = NOHZ_KICK_MASK;
    }
    if (flags) kick_ilb(flags, now);
}

int balance_triggers::find_new_ilb() const {
    const int self = core_.calling_cpu();
    for (std::size_t w = 0; w < idle_mask_.size(); ++w) {
        for (std::uint64_t bits = idle_mask_[w]; bits; bits &= bits - 1) {
            const unsigned cpu = static_cast<unsigned>(w * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
            if (static_cast<int>(cpu) == self) continue;
            if (core_.rq(cpu).is_idle()) return static_cast<int>(cpu);
        }
    }
    return -1;
}

void balance_triggers::kick_ilb(unsigned flags, nsec now) {
    if (flags & NOHZ_BALANCE_KICK) nohz_next_balance_ = jiffies(now) + 1;
    const int ilb = find_new_ilb();
    if (ilb < 0) return;
    runqueue& rq = core_.rq(static_cast<unsigned>(ilb));
    if ((rq.nohz_idle_balance & flags) == flags) return; // nothing new for it
    const unsigned prev = rq.nohz_idle_balance;
    rq.nohz_idle_balance |= flags;
    if (prev & NOHZ_KICK_MASK) return; // already kicked
    core_.send_ipi(static_cast<unsigned>(ilb));
}

bool balance_triggers::update_nohz_stats(runqueue& rq, nsec now) {
    if (!rq.has_blocked_load || !nohz_idle(rq.cpu)) return false;
    const nsec j = jiffies(now);
    if (!(j > rq.last_blocked_load_update_tick)) return true;
    update_blocked_averages(rq, now);
    rq.last_blocked_load_update_tick = j;
    rq.has_blocked_load = rq.cfs.avg.load_avg || rq.cfs.avg.util_avg || rq.cfs.avg.runnable_avg;
    return rq.has_blocked_load;
}

void balance_triggers::nohz_csd(unsigned cpu, nsec now) {
    runqueue& rq = core_.rq(cpu);
    const unsigned flags = rq.nohz_idle_balance & NOHZ_KICK_MASK;
    rq.nohz_idle_balance = 0;
    if (!flags) return;
    if (!rq.is_idle() || rq.need_resched) return; // got work meanwhile: the next owner will do it
    nohz_idle_balance(rq, flags, now);
}

void balance_triggers::nohz_idle_balance(runqueue& this_rq, unsigned flags, nsec now) {
    const nsec j = jiffies(now);
    nsec next_balance = j + 60 * core_.config().hz;
    bool update_next = false, has_blocked_load = false, aborted = false;
    if (flags & NOHZ_STATS_KICK) nohz_has_blocked_ = false;
    // The idle CPUs from the one after this CPU, ending with this one, so that others pull first.
    std::vector<unsigned>& order = scratch_;
    order.clear();
    const unsigned start = (this_rq.cpu + 1) % core_.num_cpus();
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t w = 0; w < idle_mask_.size(); ++w)
            for (std::uint64_t bits = idle_mask_[w]; bits; bits &= bits - 1) {
                const unsigned cpu =
                    static_cast<unsigned>(w * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
                if ((cpu >= start) == (pass == 0)) order.push_back(cpu);
            }
    for (unsigned balance_cpu : order) {
        if (!nohz_idle(balance_cpu) || !core_.rq(balance_cpu).is_idle()) continue;
        // This CPU got work: leave the rest to the next balancer.
        if (!this_rq.is_idle() && this_rq.need_resched) {
            if (flags & NOHZ_STATS_KICK) has_blocked_load = true;
            aborted = true;
            break;
        }
        runqueue& rq = core_.rq(balance_cpu);
        if (flags & NOHZ_STATS_KICK) has_blocked_load = update_nohz_stats(rq, now) || has_blocked_load;
        if (j >= rq.next_balance) {
            core_.update_rq_clock(rq, now);
            if (flags & NOHZ_BALANCE_KICK) {
                lb_.set_cause(migration_cause::nohz_balance);
                rebalance_domains(rq, CPU_IDLE, now);
            }
        }
        if (next_balance > rq.next_balance) {
            next_balance = rq.next_balance;
            update_next = true;
        }
    }
    if (!aborted) {
        if (update_next) nohz_next_balance_ = next_balance;
        if (flags & NOHZ_STATS_KICK) nohz_next_blocked_ = j + msecs_to_jiffies(load_avg_period_ms);
    }
    if (has_blocked_load) nohz_has_blocked_ = true;
}

} // namespace warmsched::scheduler
