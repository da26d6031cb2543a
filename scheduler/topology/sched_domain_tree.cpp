// build_sched_domains() and cpu_attach_domain() of kernel/sched/topology.c; see sched_domain_tree.h.
#include "scheduler/topology/sched_domain_tree.h"

#include "scheduler/topology/sched_domains.h"

#include <algorithm>
#include <map>
#include <utility>

namespace warmsched::scheduler {
namespace {

// Level names as static strings (sched_domain::name points at them).
const char* level_name(const std::string& n) {
    for (const char* s : {"SMT", "CLS", "MC", "PKG", "DIE", "NODE", "NUMA"})
        if (n == s) return s;
    return "?";
}

// The SD flags each x86 topology level contributes (x86_smt_flags, x86_cluster_flags, x86_core_flags,
// PKG/DIE and NODE: none, cpu_numa_flags). ITMT's SD_ASYM_PACKING is not modelled.
unsigned topology_flags(const sched_domain_level& l) {
    const std::string& n = l.name;
    if (n == "SMT") return SD_SHARE_CPUCAPACITY | SD_SHARE_LLC;
    if (n == "CLS") return SD_CLUSTER | SD_SHARE_LLC;
    if (n == "MC") return SD_SHARE_LLC;
    if (l.numa) return SD_NUMA;
    return 0;
}

} // namespace

// Builds the per-CPU domains in the kernel's two phases: the full per-CPU chains with their groups
// (struct s_data), then each CPU's attach, which drops degenerate domains; then lays out the survivors.
struct tree_builder {
    sched_domain_tree& tr;
    const platform::topology& t;
    unsigned n = 0;
    std::vector<sched_domain_level> levels;
    std::map<std::vector<unsigned>, const cpumask*> interned;

    struct pre_group {
        const cpumask* span;
        const cpumask* mask;
        unsigned flags;   // the child domain's flags when the group was built
        int sgc_level;    // sched_group_capacity key: topology level ...
        unsigned sgc_cpu; // ... and CPU
        bool shared;      // a non-overlapping group: one object per (level, first CPU), shared by CPUs
    };
    struct pre_domain {
        bool built = false;
        const cpumask* span = nullptr;
        unsigned weight = 0; // of the level's mask (sd_init's sd_weight)
        sd_parameters p{};
        unsigned imb_numa_nr = 0;
        std::vector<pre_group> groups;
    };
    std::vector<pre_domain> pre;                                     // [level * n + cpu]
    std::vector<unsigned> depth;                                     // per CPU: how many levels its chain has
    std::map<std::pair<int, unsigned>, unsigned> shared_group_flags; // sched_group::flags of shared groups

    tree_builder(sched_domain_tree& tree, const platform::topology& topo,
                 const std::vector<std::vector<unsigned>>& distances)
        : tr(tree), t(topo), n(topo.num_cpus()) {
        sched_domain_options o;
        o.has_cluster = tr.cluster_level_;
        if (tr.kernel_ == kernel_version::cfs_v5_15) o.package_name = "DIE";
        levels = sched_domain_candidates(t, distances, o);
        pre.resize(levels.size() * n);
        depth.assign(n, 0);
    }

    pre_domain& at(std::size_t level, unsigned cpu) { return pre[level * n + cpu]; }
    const cpumask* intern(std::vector<unsigned> cpus) {
        auto it = interned.find(cpus);
        if (it != interned.end()) return it->second;
        tr.masks_.emplace_back(cpus, n);
        return interned.emplace(std::move(cpus), &tr.masks_.back()).first->second;
    }

    void build_chains() {
        for (unsigned c = 0; c < n; ++c) {
            for (std::size_t l = 0; l < levels.size(); ++l) {
                pre_domain& d = at(l, c);
                std::vector<unsigned> span = levels[l].span[c];
                d.weight = static_cast<unsigned>(span.size());
                if (l > 0 && !at(l - 1, c).span->subset_of(cpumask(span, n))) {
                    // "arch topology borken": the kernel widens the domain to its child.
                    for (unsigned x : at(l - 1, c).span->cpus()) span.push_back(x);
                    std::sort(span.begin(), span.end());
                    span.erase(std::unique(span.begin(), span.end()), span.end());
                }
                d.built = true;
                d.span = intern(std::move(span));
                d.p = sd_init_parameters(topology_flags(levels[l]), d.weight, levels[l].numa_distance);
                if (levels[l].numa) d.p.flags |= SD_OVERLAP; // SDTL_OVERLAP: every NUMA level
                depth[c] = static_cast<unsigned>(l + 1);
                if (d.span->weight() == n) break; // this CPU's chain spans the machine
            }
        }
    }

    // build_sched_groups(): the child domains covering the span, from this CPU's onwards (wrapping).
    void build_groups(std::size_t l, unsigned c) {
        pre_domain& d = at(l, c);
        std::vector<char> covered(n, 0);
        d.span->for_each_wrap(c, [&](unsigned i) {
            if (covered[i]) return;
            const pre_domain* child = l > 0 && at(l, i).built ? &at(l - 1, i) : nullptr;
            const cpumask* span = child ? child->span : intern({i});
            for (unsigned x : span->cpus()) covered[x] = 1;
            const int lv = static_cast<int>(l);
            const auto key = std::make_pair(lv, span->first());
            const unsigned flags = child ? child->p.flags : 0;
            shared_group_flags.emplace(key, flags); // get_group(): set at the first visit
            d.groups.push_back({span, span, flags, lv, span->first(), true});
        });
    }

    // build_overlap_sched_groups(): for each uncovered CPU, the child domain of that CPU's domain at this
    // level (descending while it would leave this span), with the balance mask of build_balance_mask().
    void build_overlap_groups(std::size_t l, unsigned c) {
        pre_domain& d = at(l, c);
        std::vector<char> covered(n, 0);
        d.span->for_each_wrap(c, [&](unsigned i) {
            if (covered[i]) return;
            if (!at(l, i).built || !at(l, i).span->test(i)) return; // that CPU's chain stopped lower
            std::size_t sl = l;                                     // the sibling's level
            if (sl > 0 && !at(sl - 1, i).span->subset_of(*d.span)) {
                // find_descended_sibling()
                while (sl > 0 && !at(sl - 1, i).span->subset_of(*d.span)) --sl;
                while (sl > 0 && *at(sl - 1, i).span == *at(sl, i).span) --sl;
            }
            const pre_domain* child = sl > 0 ? &at(sl - 1, i) : nullptr;
            const cpumask* span = child ? child->span : at(sl, i).span;
            for (unsigned x : span->cpus()) covered[x] = 1;
            std::vector<unsigned> mask;
            for (unsigned j : span->cpus()) {
                const pre_domain& sj = at(sl, j);
                if (sj.built && sl > 0 && *at(sl - 1, j).span == *span) mask.push_back(j);
            }
            if (mask.empty()) mask.push_back(span->first()); // the kernel WARNs; keep a balance CPU
            const cpumask* m = intern(std::move(mask));
            d.groups.push_back(
                {span, m, child ? child->p.flags : 0, static_cast<int>(sl), m->first(), false});
        });
    }

    // v5.18+: the NUMA imbalance allowed so that LLCs do not get imbalanced (on the full chains).
    void compute_imb_numa_nr() {
        if (!tr.numa_imb_per_llc_) return;
        for (unsigned c = 0; c < n; ++c) {
            unsigned imb = 0, imb_span = 1;
            for (std::size_t l = 0; l < depth[c]; ++l) {
                pre_domain& sd = at(l, c);
                const pre_domain* child = l > 0 ? &at(l - 1, c) : nullptr;
                const unsigned w = sd.span->weight();
                if (!(sd.p.flags & SD_SHARE_LLC) && child && (child->p.flags & SD_SHARE_LLC)) {
                    const unsigned nr_llcs = w / child->span->weight();
                    imb = std::max(1u, nr_llcs == 1 ? w >> 3 : nr_llcs);
                    sd.imb_numa_nr = imb;
                    imb_span = w; // based on the first NUMA domain above, if there is one
                    for (std::size_t u = l + 1; u < depth[c]; ++u)
                        if (at(u, c).p.flags & SD_NUMA) {
                            imb_span = at(u, c).span->weight();
                            break;
                        }
                } else {
                    sd.imb_numa_nr = imb * std::max(1u, w / imb_span);
                }
            }
        }
    }

    // The local group's flags (sd->groups->flags): the shared object for non-overlapping groups.
    void set_local_group_flags(std::size_t l, unsigned c, unsigned flags) {
        pre_group& g = at(l, c).groups.front();
        if (g.shared)
            shared_group_flags[{g.sgc_level, g.sgc_cpu}] = flags;
        else
            g.flags = flags;
    }

    // cpu_attach_domain(): drop degenerate parents (handing SD_PREFER_SIBLING down), then a degenerate base.
    std::vector<std::size_t> attach(unsigned c) {
        std::vector<std::size_t> chain;
        for (std::size_t l = 0; l < depth[c]; ++l) chain.push_back(l);
        auto nr_groups = [&](std::size_t l) { return static_cast<unsigned>(at(l, c).groups.size()); };
        for (std::size_t k = 0; k + 1 < chain.size();) {
            pre_domain& tmp = at(chain[k], c);
            const pre_domain& parent = at(chain[k + 1], c);
            if (sd_parent_degenerate(tmp.p.flags, *tmp.span == *parent.span, parent.span->weight(),
                                     parent.p.flags, nr_groups(chain[k + 1]))) {
                if (k + 2 < chain.size()) set_local_group_flags(chain[k + 2], c, tmp.p.flags);
                if (parent.p.flags & SD_PREFER_SIBLING) tmp.p.flags |= SD_PREFER_SIBLING;
                chain.erase(chain.begin() + static_cast<std::ptrdiff_t>(k) + 1);
            } else {
                ++k;
            }
        }
        if (!chain.empty()) {
            const pre_domain& sd = at(chain.front(), c);
            if (sd_degenerate(sd.span->weight(), sd.p.flags, nr_groups(chain.front()))) {
                chain.erase(chain.begin());
                if (!chain.empty()) set_local_group_flags(chain.front(), c, 0);
            }
        }
        return chain;
    }

    void run() {
        build_chains();
        for (unsigned c = 0; c < n; ++c)
            for (std::size_t l = 0; l < depth[c]; ++l) {
                if (at(l, c).p.flags & SD_OVERLAP)
                    build_overlap_groups(l, c);
                else
                    build_groups(l, c);
            }
        compute_imb_numa_nr();
        std::vector<std::vector<std::size_t>> chains(n);
        for (unsigned c = 0; c < n; ++c) chains[c] = attach(c);
        lay_out(chains);
    }

    void lay_out(const std::vector<std::vector<std::size_t>>& chains) {
        std::size_t nd = 0, ng = 0;
        for (unsigned c = 0; c < n; ++c)
            for (std::size_t l : chains[c]) {
                ++nd;
                ng += at(l, c).groups.size();
            }
        tr.domains_.reserve(nd);
        tr.groups_.reserve(ng);
        tr.first_.assign(n + 1, 0);
        std::map<std::pair<int, unsigned>, std::size_t> sgc_index, shared_index;
        std::vector<std::size_t> group_first; // per domain: index of its first group
        std::vector<std::pair<std::size_t, std::size_t>> sgc_of, shared_of; // (group or domain, index)
        for (unsigned c = 0; c < n; ++c) {
            tr.first_[c] = static_cast<unsigned>(tr.domains_.size());
            for (std::size_t l : chains[c]) {
                const pre_domain& p = at(l, c);
                sched_domain d;
                d.cpu = c;
                d.level = static_cast<int>(l);
                d.name = level_name(levels[l].name);
                d.numa_distance = levels[l].numa_distance;
                d.cpus = p.span;
                d.span_weight = p.span->weight();
                d.flags = p.p.flags;
                d.min_interval = p.p.min_interval;
                d.max_interval = p.p.max_interval;
                d.busy_factor = p.p.busy_factor;
                d.imbalance_pct = p.p.imbalance_pct;
                d.cache_nice_tries = p.p.cache_nice_tries;
                d.balance_interval = p.p.min_interval;
                d.imb_numa_nr = p.imb_numa_nr;
                d.nr_groups = static_cast<unsigned>(p.groups.size());
                group_first.push_back(tr.groups_.size());
                for (const pre_group& pg : p.groups) {
                    sched_group g;
                    g.cpus = pg.span;
                    g.balance_mask = pg.mask;
                    g.group_weight = pg.span->weight();
                    std::vector<unsigned> cores;
                    for (unsigned x : pg.span->cpus()) cores.push_back(t.core_of_cpu(x));
                    std::sort(cores.begin(), cores.end());
                    g.cores = static_cast<unsigned>(std::unique(cores.begin(), cores.end()) - cores.begin());
                    g.flags = pg.shared ? shared_group_flags.at({pg.sgc_level, pg.sgc_cpu}) : pg.flags;
                    const auto key = std::make_pair(pg.sgc_level, pg.sgc_cpu);
                    auto it = sgc_index.find(key);
                    if (it == sgc_index.end()) {
                        // init_sched_groups_capacity()/update_group_capacity() with every CPU at 1024.
                        sched_group_capacity cap;
                        cap.capacity = SCHED_CAPACITY_SCALE * g.group_weight;
                        cap.min_capacity = cap.max_capacity = SCHED_CAPACITY_SCALE;
                        cap.id = pg.sgc_cpu;
                        it = sgc_index.emplace(key, tr.capacities_.size()).first;
                        tr.capacities_.push_back(cap);
                    }
                    sgc_of.emplace_back(tr.groups_.size(), it->second);
                    tr.groups_.push_back(g);
                }
                if (d.flags & SD_SHARE_LLC) {
                    const auto key = std::make_pair(d.level, p.span->first());
                    auto it = shared_index.find(key);
                    if (it == shared_index.end()) {
                        sched_domain_shared s;
                        s.nr_busy_cpus = p.weight;
                        it = shared_index.emplace(key, tr.shared_.size()).first;
                        tr.shared_.push_back(s);
                    }
                    shared_of.emplace_back(tr.domains_.size(), it->second);
                }
                tr.domains_.push_back(d);
            }
        }
        tr.first_[n] = static_cast<unsigned>(tr.domains_.size());
        // Pointers only now: the arrays no longer grow.
        for (auto [g, s] : sgc_of) tr.groups_[g].sgc = &tr.capacities_[s];
        for (auto [d, s] : shared_of) tr.domains_[d].shared = &tr.shared_[s];
        for (unsigned c = 0; c < n; ++c)
            for (unsigned i = tr.first_[c]; i < tr.first_[c + 1]; ++i) {
                sched_domain& d = tr.domains_[i];
                d.groups = d.nr_groups ? &tr.groups_[group_first[i]] : nullptr;
                d.child = i > tr.first_[c] ? &tr.domains_[i - 1] : nullptr;
                d.parent = i + 1 < tr.first_[c + 1] ? &tr.domains_[i + 1] : nullptr;
            }
    }
};

sched_domain_tree::sched_domain_tree(const platform::topology& t,
                                     const std::vector<std::vector<unsigned>>& distances,
                                     const sched_features& f)
    : kernel_(f.kernel()), numa_imb_per_llc_(f[feature::NUMA_IMB_PER_LLC]),
      highest_flag_shared_child_(f[feature::HIGHEST_FLAG_SHARED_CHILD]),
      cluster_level_(f[feature::CLUSTER_LEVEL]) {
    tree_builder b(*this, t, distances);
    b.run();
    // update_top_cache_domain()
    const unsigned n = t.num_cpus();
    sd_llc_.assign(n, nullptr);
    sd_numa_.assign(n, nullptr);
    sd_llc_size_.assign(n, 1);
    sd_llc_id_.resize(n);
    sd_share_id_.resize(n);
    for (unsigned c = 0; c < n; ++c) {
        sd_llc_id_[c] = c;
        if (sched_domain* sd = highest_flag_domain(c, SD_SHARE_LLC)) {
            sd_llc_[c] = sd;
            sd_llc_size_[c] = sd->span_weight;
            sd_llc_id_[c] = sd->span().first();
        }
        sched_domain* cls = lowest_flag_domain(c, SD_CLUSTER);
        sd_share_id_[c] = cls ? cls->span().first() : sd_llc_id_[c];
        sd_numa_[c] = lowest_flag_domain(c, SD_NUMA);
    }
}

sched_domain* sched_domain_tree::highest_flag_domain(unsigned cpu, unsigned flag) {
    sched_domain* hsd = nullptr;
    unsigned shared_child = 0;
    for (unsigned b = 0; b < sd_flag_count; ++b)
        if (sd_flag_meta(b) & SDF_SHARED_CHILD) shared_child |= 1u << b;
    for (sched_domain& sd : domains(cpu)) {
        if (sd.flags & flag) {
            hsd = &sd;
            continue;
        }
        // HIGHEST_FLAG_SHARED_CHILD stops only where the flag, shared with children, cannot reappear;
        // v5.15 always stops.
        if (!highest_flag_shared_child_ || (flag & shared_child)) break;
    }
    return hsd;
}

sched_domain* sched_domain_tree::lowest_flag_domain(unsigned cpu, unsigned flag) {
    for (sched_domain& sd : domains(cpu))
        if (sd.flags & flag) return &sd;
    return nullptr;
}

std::string sched_domain_tree::describe(unsigned cpu) const {
    std::string s;
    for (const sched_domain& d : domains(cpu))
        s += (s.empty() ? "" : ", ") + std::string(d.name) + " " + std::to_string(d.span_weight);
    return s;
}

} // namespace warmsched::scheduler
