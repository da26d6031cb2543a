// One load-balance pass; see load_balance.h.
#include "scheduler/fair/load_balance.h"

#include "scheduler/fair/load_avg.h"

#include <algorithm>
#include <climits>

namespace warmsched::scheduler {

namespace {
constexpr unsigned max_pinned_interval = 512; // ms
constexpr long numa_imbalance_min = 2;

template <class T> T sub_positive(T v, T d) {
    return v - std::min(v, d);
}
unsigned long shr_bound(unsigned long v, unsigned shift) {
    return v >> std::min(shift, 63u);
}
// cpu_util_cfs_boost (v6.12) and cpu_util (v5.15): the larger of util and util_est, capped at capacity.
unsigned long rq_util(const runqueue& rq, bool boost) {
    std::uint64_t u = cpu_util(rq);
    if (boost) u = std::min<std::uint64_t>(std::max(u, rq.cfs.avg.runnable_avg), SCHED_CAPACITY_SCALE);
    return static_cast<unsigned long>(u);
}
bool smt_vs_nonsmt_groups(const sched_group* a, const sched_group* b) {
    return a && b && (a->flags & SD_SHARE_CPUCAPACITY) != (b->flags & SD_SHARE_CPUCAPACITY);
}
} // namespace

bool lb_env::in_cpus(unsigned cpu) const {
    return sd->contains(cpu) && std::find(dropped.begin(), dropped.end(), cpu) == dropped.end();
}

load_balancer::load_balancer(scheduler& core)
    : core_(core), feat_(core.config().features), tun_(core.config().tunables) {}

// ---- statistics -------------------------------------------------------------------------------------

void load_balancer::update_group_capacity(sched_domain& sd, unsigned cpu, nsec jiffies) {
    sched_group_capacity& sgc = *sd.groups[0].sgc;
    const nsec hz = core_.config().hz;
    const nsec interval = std::clamp<nsec>((sd.balance_interval * hz + 999) / 1000, 1,
                                           std::max<nsec>(1, hz * core_.num_cpus() / 10));
    sgc.next_update = jiffies + interval;
    if (!sd.child) { // update_cpu_capacity(): the original capacity less RT/IRQ pressure
        runqueue& rq = core_.rq(cpu);
        const unsigned long cap =
            rq.capacity_pressure >= SCHED_CAPACITY_SCALE ? 1 : SCHED_CAPACITY_SCALE - rq.capacity_pressure;
        rq.cpu_capacity = cap;
        sgc.capacity = sgc.min_capacity = sgc.max_capacity = cap;
        return;
    }
    unsigned long capacity = 0, min_cap = ULONG_MAX, max_cap = 0;
    if (sd.child->has(SD_OVERLAP)) { // the child's groups need not cover this group: per CPU
        for (unsigned c : sd.groups[0].span()) {
            const unsigned long cap = core_.rq(c).cpu_capacity;
            capacity += cap;
            min_cap = std::min(min_cap, cap);
            max_cap = std::max(max_cap, cap);
        }
    } else {
        for (const sched_group& g : sd.child->group_list()) {
            capacity += g.sgc->capacity;
            min_cap = std::min(min_cap, g.sgc->min_capacity);
            max_cap = std::max(max_cap, g.sgc->max_capacity);
        }
    }
    sgc.capacity = capacity;
    sgc.min_capacity = min_cap;
    sgc.max_capacity = max_cap;
}

void load_balancer::update_sg_lb_stats(lb_env& env, const sd_lb_stats& sds, const sched_group& group,
                                       sg_lb_stats& sgs, bool& sg_overloaded) {
    sgs = sg_lb_stats{};
    const bool local_group = &group == sds.local;
    for (unsigned i : group.span()) {
        if (!env.in_cpus(i)) continue;
        ++rqs_examined_;
        const runqueue& rq = core_.rq(i);
        const unsigned long load = cpu_load(rq);
        sgs.group_load += load;
        sgs.group_util += rq_util(rq, false);
        sgs.group_runnable += cpu_runnable(rq);
        sgs.sum_h_nr_running += rq.cfs.h_nr_running;
        const unsigned nr = rq.nr_running;
        sgs.sum_nr_running += nr;
        if (nr == 0 && idle_cpu(i)) {
            ++sgs.idle_cpus;
            continue; // an idle CPU has no misfit task
        }
        if (nr > 1) sg_overloaded = true;
        if (local_group) continue;
        // On symmetric CPUs: a lone task on a CPU that RT/IRQ work slows down is a misfit.
        if (feat_[feature::LB_REDUCED_CAPACITY_MISFIT] && env.idle != CPU_NOT_IDLE && rq.cfs.h_nr_running == 1 && check_cpu_capacity(rq, *env.sd))
            sgs.group_misfit_task_load = std::max(sgs.group_misfit_task_load, load);
    }
    sgs.group_capacity = group.capacity();
    sgs.group_weight = group.weight();
    // smt_balance: an SMT group with more than one task, seen by an idle CPU.
    if (feat_[feature::LB_SMT_BALANCE] && !local_group && env.idle != CPU_NOT_IDLE && (group.flags & SD_SHARE_CPUCAPACITY) &&
        sgs.sum_h_nr_running > 1)
        sgs.group_smt_balance = true;
    sgs.type = group_classify(env.sd->imbalance_pct, group, sgs);
    if (sgs.type == group_type::overloaded)
        sgs.avg_load = sgs.group_load * SCHED_CAPACITY_SCALE / sgs.group_capacity;
}

bool load_balancer::update_sd_pick_busiest(const sd_lb_stats& sds, const sched_group& sg,
                                           const sg_lb_stats& sgs) const {
    const sg_lb_stats& busiest = sds.busiest_stat;
    if (!sgs.sum_h_nr_running) return false; // nothing to pull
    if (sgs.type > busiest.type) return true;
    if (sgs.type < busiest.type) return false;
    bool has_spare = false;
    switch (sgs.type) {
    case group_type::overloaded:
        return sgs.avg_load > busiest.avg_load;
    case group_type::imbalanced:
        return false; // the first one
    case group_type::asym_packing:
        return false; // not modelled
    case group_type::misfit_task:
        return feat_[feature::LB_MISFIT_KEEP_FIRST] ? sgs.group_misfit_task_load > busiest.group_misfit_task_load
                    : sgs.group_misfit_task_load >= busiest.group_misfit_task_load;
    case group_type::smt_balance:
        if (sgs.idle_cpus != 0 || busiest.idle_cpus != 0) {
            has_spare = true;
            break;
        }
        [[fallthrough]];
    case group_type::fully_busy:
        // avg_load is only computed for overloaded groups: among fully busy ones, v5.15 keeps the first;
        // LB_FULLY_BUSY_SMT takes the last unless the busiest so far is an SMT group (which needs more help).
        if (!feat_[feature::LB_FULLY_BUSY_SMT]) return sgs.avg_load > busiest.avg_load;
        if (sgs.avg_load < busiest.avg_load) return false;
        if (sgs.avg_load == busiest.avg_load && sds.busiest && (sds.busiest->flags & SD_SHARE_CPUCAPACITY))
            return false;
        return true;
    case group_type::has_spare:
        // LB_SMT_BALANCE: do not pull a lone task off an SMT core to empty it; prefer SMT groups with more.
        if (feat_[feature::LB_SMT_BALANCE] && smt_vs_nonsmt_groups(sds.busiest, &sg))
            return !((sg.flags & SD_SHARE_CPUCAPACITY) && sgs.sum_h_nr_running <= 1);
        has_spare = true;
        break;
    }
    if (has_spare) { // the fewest idle CPUs, then the most tasks
        if (sgs.idle_cpus > busiest.idle_cpus) return false;
        if (sgs.idle_cpus == busiest.idle_cpus && sgs.sum_nr_running <= busiest.sum_nr_running) return false;
    }
    return true;
}

void load_balancer::update_sd_lb_stats(lb_env& env, sd_lb_stats& sds) {
    sds = sd_lb_stats{};
    sds.busiest_stat.idle_cpus = UINT_MAX; // init_sd_lb_stats: the worst busiest
    sds.busiest_stat.type = group_type::has_spare;
    const nsec jiffies = core_.config().jiffies(now_);
    bool sg_overloaded = false;
    sg_lb_stats tmp;
    for (const sched_group& sg : env.sd->group_list()) {
        const bool local_group = sg.contains(env.dst_cpu);
        sg_lb_stats* sgs = &tmp;
        if (local_group) {
            sds.local = &sg;
            sgs = &sds.local_stat;
            if (env.idle != CPU_NEWLY_IDLE || jiffies >= sg.sgc->next_update)
                update_group_capacity(*env.sd, env.dst_cpu, jiffies);
        }
        update_sg_lb_stats(env, sds, sg, *sgs, sg_overloaded);
        if (!local_group && update_sd_pick_busiest(sds, sg, *sgs)) {
            sds.busiest = &sg;
            sds.busiest_stat = *sgs;
        }
        sds.total_load += sgs->group_load;
        sds.total_capacity += sgs->group_capacity;
    }
    // Tasks should go to a sibling of the busiest group's child domain first (v5.15: this CPU's child).
    if (feat_[feature::LB_PREFER_SIBLING_BUSIEST])
        sds.prefer_sibling = sds.busiest && (sds.busiest->flags & SD_PREFER_SIBLING);
    else
        sds.prefer_sibling = env.sd->child && env.sd->child->has(SD_PREFER_SIBLING);
    if (!env.sd->parent) core_.set_rd_overloaded(sg_overloaded); // the root domain's overload flag
}

long load_balancer::sibling_imbalance(const lb_env& env, const sd_lb_stats& sds, const sg_lb_stats& busiest,
                                      const sg_lb_stats& local) const {
    if (env.idle == CPU_NOT_IDLE || !busiest.sum_nr_running) return 0;
    const long nb = sds.busiest->cores, nl = sds.local->cores;
    if (nb == nl) return static_cast<long>(sub_positive(busiest.sum_nr_running, local.sum_nr_running));
    // Balance tasks per core between groups of different core counts.
    long imbalance = nl * busiest.sum_nr_running;
    imbalance = sub_positive<long>(imbalance, nb * local.sum_nr_running);
    imbalance = (2 * imbalance + nl + nb) / (nl + nb);
    if (imbalance <= 1 && local.sum_nr_running == 0 && busiest.sum_nr_running > 1) imbalance = 2;
    return imbalance;
}

void load_balancer::calculate_imbalance(lb_env& env, sd_lb_stats& sds) {
    sg_lb_stats& local = sds.local_stat;
    sg_lb_stats& busiest = sds.busiest_stat;
    if (busiest.type == group_type::misfit_task) {
        // No asymmetric capacities here: a misfit is a task on a CPU with reduced capacity (v6.12).
        env.type = migration_type::load;
        env.imbalance = static_cast<long>(busiest.group_misfit_task_load);
        return;
    }
    if (busiest.type == group_type::smt_balance || busiest.type == group_type::imbalanced) {
        env.type = migration_type::task; // move one task and let the next pass look again
        env.imbalance = 1;
        return;
    }
    if (local.type == group_type::has_spare) {
        if (busiest.type > group_type::fully_busy && !env.sd->has(SD_SHARE_LLC)) {
            // Fill the local group's spare capacity from an overloaded group above the LLC.
            env.type = migration_type::util;
            env.imbalance =
                static_cast<long>(std::max(local.group_capacity, local.group_util) - local.group_util);
            if (env.idle != CPU_NOT_IDLE && env.imbalance == 0) {
                env.type = migration_type::task;
                env.imbalance = 1;
            }
            return;
        }
        env.type = migration_type::task;
        if (busiest.group_weight == 1 || sds.prefer_sibling)
            env.imbalance = feat_[feature::LB_SIBLING_IMBALANCE]
                                ? sibling_imbalance(env, sds, busiest, local)
                                : static_cast<long>(sub_positive(busiest.sum_nr_running, local.sum_nr_running));
        else
            env.imbalance =
                std::max<long>(0, static_cast<long>(local.idle_cpus) - static_cast<long>(busiest.idle_cpus));
        if (feat_[feature::NUMA_IMB_PER_LLC]) {
            // adjust_numa_imbalance with imb_numa_nr, before halving.
            if (env.sd->has(SD_NUMA) && local.sum_nr_running + 1 <= env.sd->imb_numa_nr &&
                env.imbalance <= numa_imbalance_min)
                env.imbalance = 0;
            env.imbalance >>= 1;
        } else {
            env.imbalance >>= 1;
            // v5.15's NUMA allowance, after halving: a small imbalance while the local node is lightly used.
            if (env.sd->has(SD_NUMA) && env.imbalance <= numa_imbalance_min &&
                local.sum_nr_running + 1 < (local.group_weight >> 2))
                env.imbalance = 0;
        }
        return;
    }
    if (local.type < group_type::overloaded) { // local will become overloaded: avg_load is needed now
        local.avg_load = local.group_load * SCHED_CAPACITY_SCALE / local.group_capacity;
        if (local.avg_load >= busiest.avg_load) {
            env.imbalance = 0;
            return;
        }
        sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity;
        if (local.avg_load >= sds.avg_load) {
            env.imbalance = 0;
            return;
        }
    }
    // Both groups (will) be overloaded: bring both towards the domain's average, no further.
    env.type = migration_type::load;
    const unsigned long a =
        (busiest.avg_load - std::min(busiest.avg_load, sds.avg_load)) * busiest.group_capacity;
    const unsigned long b = (sds.avg_load - std::min(sds.avg_load, local.avg_load)) * local.group_capacity;
    env.imbalance = static_cast<long>(std::min(a, b) / SCHED_CAPACITY_SCALE);
}

const sched_group* load_balancer::find_busiest_group(lb_env& env, sd_lb_stats& sds) {
    update_sd_lb_stats(env, sds);
    const sg_lb_stats& local = sds.local_stat;
    const sg_lb_stats& busiest = sds.busiest_stat;
    auto balanced = [&]() -> const sched_group* {
        env.imbalance = 0;
        return nullptr;
    };
    if (!sds.busiest) return balanced();
    const bool force = busiest.type == group_type::misfit_task || busiest.type == group_type::asym_packing ||
                       busiest.type == group_type::imbalanced;
    if (!force) {
        if (local.type > busiest.type) return balanced();
        if (local.type == group_type::overloaded) {
            if (local.avg_load >= busiest.avg_load) return balanced();
            sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity;
            if (local.avg_load >= sds.avg_load) return balanced();
            if (100 * busiest.avg_load <= env.sd->imbalance_pct * local.avg_load) return balanced();
        }
        const bool sibling_force = sds.prefer_sibling && local.type == group_type::has_spare &&
                                   (feat_[feature::LB_SIBLING_IMBALANCE] ? sibling_imbalance(env, sds, busiest, local) > 1
                                         : busiest.sum_nr_running > local.sum_nr_running + 1);
        if (!sibling_force && busiest.type != group_type::overloaded) {
            // Busiest is not overloaded: only an idle CPU pulls, and only to even out idle CPUs.
            if (env.idle == CPU_NOT_IDLE) return balanced();
            const bool smt_pull = feat_[feature::LB_SMT_BALANCE] && busiest.type == group_type::smt_balance &&
                                  smt_vs_nonsmt_groups(sds.local, sds.busiest);
            if (!smt_pull) {
                if (busiest.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1) return balanced();
                if (busiest.sum_h_nr_running == 1) return balanced();
            }
        }
    }
    calculate_imbalance(env, sds);
    return env.imbalance ? sds.busiest : nullptr;
}

runqueue* load_balancer::find_busiest_queue(lb_env& env, const sched_group& group) {
    runqueue* busiest = nullptr;
    unsigned long busiest_util = 0, busiest_load = 0, busiest_capacity = 1;
    unsigned busiest_nr = 0;
    for (unsigned i : group.span()) {
        if (!env.in_cpus(i)) continue;
        ++rqs_examined_;
        runqueue& rq = core_.rq(i);
        const unsigned nr = rq.cfs.h_nr_running;
        if (!nr) continue;
        const unsigned long capacity = rq.cpu_capacity;
        switch (env.type) {
        case migration_type::load: {
            const unsigned long load = cpu_load(rq);
            // A lone task bigger than the imbalance stays, unless its CPU lost capacity.
            if (nr == 1 && static_cast<long>(load) > env.imbalance && !check_cpu_capacity(rq, *env.sd)) break;
            if (load * busiest_capacity > busiest_load * capacity) { // max load / capacity
                busiest_load = load;
                busiest_capacity = capacity;
                busiest = &rq;
            }
            break;
        }
        case migration_type::util: {
            const unsigned long util = rq_util(rq, feat_[feature::LB_RUNNABLE_BOOST]);
            if (nr <= 1) continue; // one running task cannot be detached
            if (busiest_util < util) {
                busiest_util = util;
                busiest = &rq;
            }
            break;
        }
        case migration_type::task:
            if (busiest_nr < nr) {
                busiest_nr = nr;
                busiest = &rq;
            }
            break;
        case migration_type::misfit:
            break; // no asymmetric capacities: never selected
        }
    }
    return busiest;
}

bool load_balancer::should_we_balance(const lb_env& env) const {
    if (!env.in_cpus(env.dst_cpu)) return false;
    // Every CPU may balance when it goes idle (NEWIDLE_BAIL_OUT: unless something arrived meanwhile).
    if (env.idle == CPU_NEWLY_IDLE) return !(feat_[feature::NEWIDLE_BAIL_OUT] && core_.rq(env.dst_cpu).nr_running > 0);
    const sched_group& sg = env.sd->groups[0];
    int idle_smt = -1;
    for (unsigned cpu : *sg.balance_mask) {
        if (!env.in_cpus(cpu) || !idle_cpu(cpu)) continue;
        // LB_IDLE_CORE_FIRST: an idle CPU on a busy core balances only if no core is idle (not at the SMT
        // level).
        if (feat_[feature::LB_IDLE_CORE_FIRST] && !env.sd->has(SD_SHARE_CPUCAPACITY)) {
            bool core_idle = true;
            for (unsigned s : core_.layout().siblings[cpu])
                core_idle = core_idle && (s == cpu || idle_cpu(s));
            if (!core_idle) {
                if (idle_smt < 0) idle_smt = static_cast<int>(cpu);
                continue;
            }
        }
        return cpu == env.dst_cpu; // the first idle CPU (core)
    }
    if (idle_smt >= 0) return static_cast<unsigned>(idle_smt) == env.dst_cpu;
    return sg.balance_cpu() == env.dst_cpu; // none idle: the group's first CPU
}

// ---- moving tasks ---------------------------------------------------------------------------------

bool load_balancer::task_hot(const task& p, const lb_env& env) const {
    if (p.policy == sched_policy::idle) return false;
    if (env.sd->has(SD_SHARE_CPUCAPACITY)) return false; // SMT siblings share the caches
    const runqueue& src = core_.rq(env.src_cpu);
    if (feat_[feature::CACHE_HOT_BUDDY] && core_.rq(env.dst_cpu).nr_running &&
        (src.cfs.next == &p.se || src.cfs.last == &p.se)) // v6.12 has no last buddy: cfs.last stays null
        return true;
    if (tun_.migration_cost_ns == 0) return false;
    const long long delta = static_cast<long long>(src.clock) - static_cast<long long>(p.se.exec_start);
    return delta < static_cast<long long>(tun_.migration_cost_ns);
}

bool load_balancer::can_migrate_task(task& p, lb_env& env) {
    if (p.se.sched_delayed) return false; // a delayed-dequeue sleeper stays (see the header)
    // CFS bandwidth control: throttled_lb_pair (per-cfs_rq model) or lb_throttled_hierarchy (v6.18).
    if (core_.bandwidth().active() && core_.bandwidth().lb_refuses(p, env.src_cpu, env.dst_cpu)) return false;
    if (!p.allowed_on(env.dst_cpu)) {
        ++p.stats.nr_failed_migrations_affine;
        env.flags |= LBF_SOME_PINNED;
        if (env.idle == CPU_NEWLY_IDLE || (env.flags & (LBF_DST_PINNED | LBF_ACTIVE_LB))) return false;
        // Remember a CPU of the local group it may run on, to retry there.
        for (unsigned c : *env.dst_grpmask) {
            if (env.in_cpus(c) && p.allowed_on(c)) {
                env.flags |= LBF_DST_PINNED;
                env.new_dst_cpu = c;
                break;
            }
        }
        return false;
    }
    env.flags &= ~LBF_ALL_PINNED; // at least one task could run on dst
    if (p.on_cpu) {
        ++p.stats.nr_failed_migrations_running;
        return false;
    }
    if (env.flags & LBF_ACTIVE_LB) return true;
    const bool hot = task_hot(p, env);
    if (!hot || env.sd->nr_balance_failed > env.sd->cache_nice_tries) {
        if (hot) {
            ++env.sd->stats.lb_hot_gained[env.idle];
            ++p.stats.nr_forced_migrations;
        }
        return true;
    }
    ++p.stats.nr_failed_migrations_hot;
    return false;
}

void load_balancer::detach_task(task& p, lb_env& env) {
    core_.detach_task(p, env.dst_cpu, cause_);
    env.tasks.push_back(&p);
}

unsigned load_balancer::detach_tasks(lb_env& env, runqueue& src) {
    if (src.nr_running <= 1) { // emptied meanwhile: no task was tested
        env.flags &= ~LBF_ALL_PINNED;
        return 0;
    }
    if (env.imbalance <= 0) return 0;
    unsigned detached = 0;
    while (!src.cfs_tasks.empty()) {
        // Do not steal the last task: the source would come back for it.
        if (env.idle != CPU_NOT_IDLE && src.nr_running <= 1) break;
        if (++env.loop > env.loop_max) break;
        if (env.loop > env.loop_break) { // the kernel drops the locks here; so do we, then resume
            env.loop_break += tun_.nr_migrate;
            env.flags |= LBF_NEED_BREAK;
            break;
        }
        task& p = *src.cfs_tasks.tail; // the least recently run
        ++rqs_examined_;
        bool take = can_migrate_task(p, env);
        if (take) {
            switch (env.type) {
            case migration_type::load: {
                const unsigned long load = std::max<std::uint64_t>(task_h_load(src, p), 1);
                if (feat_[feature::LB_MIN] && load < 16 && !env.sd->nr_balance_failed) take = false;
                // Not more than the imbalance, less strictly after failed attempts.
                else if (static_cast<long>(shr_bound(load, env.sd->nr_balance_failed)) > env.imbalance)
                    take = false;
                else
                    env.imbalance -= static_cast<long>(load);
                break;
            }
            case migration_type::util: {
                const unsigned long util = std::max(task_util(p), task_util_est(p)); // task_util_est()
                if (static_cast<long>(util) > env.imbalance)
                    take = false;
                else
                    env.imbalance -= static_cast<long>(util);
                break;
            }
            case migration_type::task:
                --env.imbalance;
                break;
            case migration_type::misfit:
                take = false; // every task fits a symmetric CPU
                break;
            }
        }
        if (!take) {
            src.cfs_tasks.move_to_front(p); // rotate it to the MRU end
            continue;
        }
        detach_task(p, env);
        ++detached;
        // NEWIDLE balancing adds latency: a preemptible kernel stops after one task.
        if (env.idle == CPU_NEWLY_IDLE && core_.config().preemptible) break;
        if (env.imbalance <= 0) break;
    }
    env.sd->stats.lb_gained[env.idle] += detached;
    return detached;
}

void load_balancer::attach_tasks(lb_env& env, nsec now) {
    core_.update_rq_clock(core_.rq(env.dst_cpu), now);
    for (task* p : env.tasks) core_.attach_task(*p);
    runqueue& self = core_.rq(static_cast<unsigned>(core_.calling_cpu()));
    self.balance_migrations += static_cast<unsigned>(env.tasks.size());
    env.tasks.clear();
}

bool load_balancer::need_active_balance(const lb_env& env) const {
    const sched_domain& sd = *env.sd;
    // Task balancing (pinned tasks, spare capacity spread) keeps failing.
    if (env.type == migration_type::task && sd.nr_balance_failed > sd.cache_nice_tries + 2) return true;
    // An idle CPU, and a lone fair task on a CPU whose capacity RT/IRQ work reduced.
    const runqueue& src = core_.rq(env.src_cpu);
    if (env.idle != CPU_NOT_IDLE && src.cfs.h_nr_running == 1 && check_cpu_capacity(src, sd) &&
        src.cpu_capacity * sd.imbalance_pct < core_.rq(env.dst_cpu).cpu_capacity * 100)
        return true;
    return env.type == migration_type::misfit;
}

// ---- the pass -------------------------------------------------------------------------------------

unsigned load_balancer::load_balance(unsigned this_cpu, sched_domain& sd, cpu_idle_type idle,
                                     bool& continue_balancing, nsec now) {
    rqs_examined_ = 0;
    now_ = now;
    sched_domain* sd_parent = sd.parent;
    lb_env env;
    env.sd = &sd;
    env.dst_cpu = this_cpu;
    env.dst_grpmask = sd.groups[0].balance_mask;
    env.idle = idle;
    env.loop_break = tun_.nr_migrate;
    ++sd.stats.lb_count[idle];
    unsigned ld_moved = 0;
    bool active_balance = false;
    runqueue* busiest = nullptr;
    enum { balanced, all_pinned, one_pinned, moved_or_failed } outcome = balanced;
    for (;;) { // redo:
        if (!should_we_balance(env)) {
            continue_balancing = false;
            break;
        }
        sd_lb_stats sds;
        const sched_group* group = find_busiest_group(env, sds);
        if (!group) {
            ++sd.stats.lb_nobusyg[idle];
            break;
        }
        busiest = find_busiest_queue(env, *group);
        if (!busiest) {
            ++sd.stats.lb_nobusyq[idle];
            break;
        }
        const auto imb = static_cast<std::uint64_t>(env.imbalance);
        sd.stats.lb_imbalance[idle] += imb;
        switch (env.type) {
        case migration_type::load:
            sd.stats.lb_imbalance_load[idle] += imb;
            break;
        case migration_type::util:
            sd.stats.lb_imbalance_util[idle] += imb;
            break;
        case migration_type::task:
            sd.stats.lb_imbalance_task[idle] += imb;
            break;
        case migration_type::misfit:
            sd.stats.lb_imbalance_misfit[idle] += imb;
            break;
        }
        env.src_cpu = busiest->cpu;
        ld_moved = 0;
        env.flags |= LBF_ALL_PINNED; // cleared as soon as a task could run on dst
        bool redo = false;
        if (busiest->nr_running > 1) {
            env.loop_max = std::min(tun_.nr_migrate, busiest->nr_running);
            for (;;) { // more_balance:
                core_.update_rq_clock(*busiest, now);
                const unsigned cur = detach_tasks(env, *busiest);
                if (cur) {
                    attach_tasks(env, now);
                    ld_moved += cur;
                }
                if (env.flags & LBF_NEED_BREAK) {
                    env.flags &= ~LBF_NEED_BREAK;
                    continue;
                }
                // Tasks that could not come here may go to another CPU of the local group.
                if ((env.flags & LBF_DST_PINNED) && env.imbalance > 0) {
                    env.dropped.push_back(env.dst_cpu);
                    env.dst_cpu = env.new_dst_cpu;
                    env.flags &= ~LBF_DST_PINNED;
                    env.loop = 0;
                    env.loop_break = tun_.nr_migrate;
                    continue;
                }
                break;
            }
            // Affinity kept this level from balancing: the parent sees our group as imbalanced.
            if (sd_parent && (env.flags & LBF_SOME_PINNED) && env.imbalance > 0)
                sd_parent->groups[0].sgc->imbalance = 1;
            if (env.flags & LBF_ALL_PINNED) { // every task there is pinned away: try another CPU
                env.dropped.push_back(busiest->cpu);
                bool others = false;
                for (unsigned c : sd.span())
                    if (env.in_cpus(c) && !env.dst_grpmask->test(c)) others = true;
                if (others) {
                    env.loop = 0;
                    env.loop_break = tun_.nr_migrate;
                    redo = true;
                } else {
                    outcome = all_pinned;
                }
            }
        }
        if (redo) continue;
        if (outcome != all_pinned) outcome = moved_or_failed;
        break;
    }

    if (outcome == moved_or_failed) {
        if (!ld_moved) {
            ++sd.stats.lb_failed[idle];
            // Newidle passes are too frequent to count (LB_MISFIT_NO_BACKOFF: nor misfit migrations).
            if (idle != CPU_NEWLY_IDLE && !(feat_[feature::LB_MISFIT_NO_BACKOFF] && env.type == migration_type::misfit))
                ++sd.nr_balance_failed;
            if (need_active_balance(env)) {
                if (!busiest->curr->allowed_on(this_cpu)) {
                    outcome = one_pinned; // its running task cannot come here
                } else {
                    env.flags &= ~LBF_ALL_PINNED;
                    if (!busiest->active_balance) {
                        busiest->active_balance = true;
                        busiest->push_cpu = this_cpu;
                        active_balance = true;
                        core_.resched_curr(*busiest); // wake its stopper (stop_one_cpu_nowait)
                    }
                }
            }
        } else {
            sd.nr_balance_failed = 0;
        }
        if (outcome == moved_or_failed && (!active_balance || need_active_balance(env)))
            sd.balance_interval = sd.min_interval; // we were unbalanced
    } else if (outcome == balanced || outcome == all_pinned) {
        // Balanced despite affinity constraints: clear the imbalance flag once others could move.
        if (outcome == balanced && sd_parent && !(env.flags & LBF_ALL_PINNED))
            sd_parent->groups[0].sgc->imbalance = 0;
        ++sd.stats.lb_balanced[idle];
        sd.nr_balance_failed = 0;
    }
    if (outcome != moved_or_failed) {
        ld_moved = 0;
        // Newidle ignores intervals (LB_MISFIT_NO_BACKOFF: so do misfit migrations): do not back off on them.
        if (!(env.idle == CPU_NEWLY_IDLE || (feat_[feature::LB_MISFIT_NO_BACKOFF] && env.type == migration_type::misfit))) {
            if (((env.flags & LBF_ALL_PINNED) && sd.balance_interval < max_pinned_interval) ||
                sd.balance_interval < sd.max_interval)
                sd.balance_interval *= 2;
        }
    }
    // The pass's own cost, charged to the CPU running it.
    last_cost_ = tun_.lb_pass_cost_ns + tun_.lb_rq_cost_ns * rqs_examined_;
    core_.rq(static_cast<unsigned>(core_.calling_cpu())).balance_cost_ns += last_cost_;
    return ld_moved;
}

void load_balancer::active_load_balance_cpu_stop(unsigned cpu, nsec now) {
    runqueue& busiest = core_.rq(cpu);
    const unsigned target = busiest.push_cpu;
    const bool pending = busiest.active_balance;
    busiest.active_balance = false;
    if (!pending) return;
    // Is there any task to move? (nr_running counts the stopper itself in the kernel.)
    if (busiest.nr_running + 1 <= 1 || target == cpu) return;
    sched_domain* sd = nullptr; // a domain of the target spanning the busiest CPU
    for (sched_domain& d : core_.domains().domains(target))
        if (d.contains(cpu)) {
            sd = &d;
            break;
        }
    if (!sd) return;
    lb_env env;
    env.sd = sd;
    env.dst_cpu = target;
    env.src_cpu = cpu;
    env.dst_grpmask = sd->groups[0].balance_mask;
    env.idle = CPU_IDLE;
    env.flags = LBF_ACTIVE_LB;
    ++sd->stats.alb_count;
    now_ = now;
    core_.update_rq_clock(busiest, now);
    rqs_examined_ = 1;
    // detach_one_task: the first movable task from the least recently run end.
    task* moved = nullptr;
    for (task* p = busiest.cfs_tasks.tail; p; p = p->mru_prev) {
        if (!can_migrate_task(*p, env)) continue;
        set_cause(migration_cause::active_balance);
        detach_task(*p, env);
        moved = p;
        break;
    }
    if (moved) {
        ++sd->stats.lb_gained[env.idle];
        ++sd->stats.alb_pushed;
        sd->nr_balance_failed = 0; // done: reset the failure counter
        attach_tasks(env, now);
    } else {
        ++sd->stats.alb_failed;
    }
    last_cost_ = tun_.lb_pass_cost_ns + tun_.lb_rq_cost_ns * rqs_examined_;
    core_.rq(static_cast<unsigned>(core_.calling_cpu())).balance_cost_ns += last_cost_;
}

} // namespace warmsched::scheduler
