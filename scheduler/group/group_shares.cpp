// Group weights, flattened; see group_shares.h.
#include "scheduler/group/group_shares.h"

#include "scheduler/fair/weights.h"

#include <algorithm>
#include <cstdlib>

namespace warmsched::scheduler {

namespace {
constexpr std::uint64_t min_shares = 2;
constexpr unsigned __int128 max_task_weight = 1u
                                              << 26; // MAX_SHARES (2^18) times the nice -20 weight, rounded
} // namespace

void group_shares::build(unsigned ncpus) {
    cpus_.assign(groups_.enabled() ? ncpus : 0, {});
    load_avg_.assign(groups_.size(), 0);
}

std::uint32_t group_shares::own_weight(const task& p) {
    return p.policy == sched_policy::idle ? sched_idle_weight : weight_of_nice(p.nice);
}

std::uint32_t group_shares::calc_group_shares(group_id g, group_rq_weights& gr) {
    const std::int64_t load = static_cast<std::int64_t>(gr.load);
    // update_tg_load_avg: refresh this CPU's contribution once it drifted by more than 1/64.
    const std::int64_t delta = load - gr.contrib;
    if (std::llabs(delta) * 64 > gr.contrib) {
        load_avg_[g] += delta;
        gr.contrib = load;
    }
    const std::uint64_t shares = groups_[g].shares;
    const std::int64_t tg_weight = load_avg_[g] - gr.contrib + load;
    std::uint64_t w = shares;
    if (tg_weight > 0) w = shares * static_cast<std::uint64_t>(load) / static_cast<std::uint64_t>(tg_weight);
    return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(w, min_shares, shares));
}

void group_shares::update_chain(unsigned cpu, const task& p, bool enqueue) {
    auto& map = cpus_[cpu];
    // What changes in the current level's queue: an entity joins or leaves (with its weight), or an
    // entity already there changes weight.
    bool joins_or_leaves = true;
    std::int64_t weight_change = enqueue ? own_weight(p) : -static_cast<std::int64_t>(own_weight(p));
    for (group_id g : groups_[p.cgroup].chain) {
        if (g == 0) break; // the root queue is the flat queue itself
        group_rq_weights& gr = map[g];
        const bool was_queued = gr.nr > 0;
        const std::uint32_t old_se = gr.se_weight;
        if (joins_or_leaves) gr.nr = enqueue ? gr.nr + 1 : gr.nr - 1;
        gr.load = static_cast<std::uint64_t>(static_cast<std::int64_t>(gr.load) + weight_change);
        gr.se_weight = calc_group_shares(g, gr);
        const bool now_queued = gr.nr > 0;
        if (was_queued != now_queued) { // the group entity joins or leaves its parent's queue
            joins_or_leaves = true;
            weight_change = now_queued ? gr.se_weight : -static_cast<std::int64_t>(old_se);
        } else {
            joins_or_leaves = false;
            weight_change = static_cast<std::int64_t>(gr.se_weight) - old_se;
            if (weight_change == 0) break; // nothing changes further up
        }
    }
}

void group_shares::task_enqueued(unsigned cpu, const task& p) {
    if (p.cgroup) update_chain(cpu, p, true);
}

void group_shares::task_dequeued(unsigned cpu, const task& p) {
    if (p.cgroup) update_chain(cpu, p, false);
}

void group_shares::refresh(unsigned cpu) {
    auto& map = cpus_[cpu];
    // Deepest first, so that a parent's load sees its children's new entity weights.
    std::vector<std::pair<unsigned, group_id>> order;
    order.reserve(map.size());
    for (const auto& [g, gr] : map)
        if (gr.nr) order.emplace_back(groups_[g].depth, g);
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& [depth, g] : order) {
        group_rq_weights& gr = map[g];
        const std::uint32_t old_se = gr.se_weight;
        gr.se_weight = calc_group_shares(g, gr);
        const group_id parent = groups_[g].parent;
        if (parent != 0 && gr.se_weight != old_se)
            map[parent].load = static_cast<std::uint64_t>(static_cast<std::int64_t>(map[parent].load) +
                                                          static_cast<std::int64_t>(gr.se_weight) - old_se);
    }
}

std::uint32_t group_shares::task_weight(unsigned cpu, const task& p) const {
    if (!p.cgroup) return own_weight(p);
    const auto& map = cpus_[cpu];
    unsigned __int128 w = own_weight(p);
    for (group_id g : groups_[p.cgroup].chain) {
        if (g == 0) break;
        const auto it = map.find(g);
        if (it == map.end() || it->second.load == 0) break;
        w = w * it->second.se_weight / it->second.load;
    }
    return static_cast<std::uint32_t>(std::clamp<unsigned __int128>(w, min_shares, max_task_weight));
}

const group_rq_weights* group_shares::on(unsigned cpu, group_id g) const {
    if (cpu >= cpus_.size()) return nullptr;
    const auto it = cpus_[cpu].find(g);
    return it == cpus_[cpu].end() ? nullptr : &it->second;
}

} // namespace warmsched::scheduler
