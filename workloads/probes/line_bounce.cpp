// Core-to-core line bounce probe; see line_bounce.h.
#include "workloads/probes/line_bounce.h"

#include "workloads/probes/probe_program.h"

#include <algorithm>
#include <random>

namespace warmsched::workloads {

std::string cpu_relation(const platform::topology& t, unsigned a, unsigned b,
                         const platform::fabric_graph* g) {
    const unsigned ca = t.core_of_cpu(a), cb = t.core_of_cpu(b);
    if (ca == cb) return "smt";
    if (t.llc_of_core(ca) == t.llc_of_core(cb)) return "same_llc";
    const auto& names = t.level_names(); // socket ... core
    const int llc_depth = t.depth(t.cache_group(t.llc_level()));
    for (int d = llc_depth - 1; d >= 2; --d) {
        const std::string& g = names[d - 1];
        if (t.group_of_core(g, ca) == t.group_of_core(g, cb)) return "same_" + g;
    }
    if (t.socket_of_core(ca) == t.socket_of_core(cb)) {
        if (!g) return "same_socket";
        const auto& r = g->route(g->llc_stop(t.llc_of_core(ca)), g->llc_stop(t.llc_of_core(cb)));
        return "same_socket/" + std::to_string(r.hops()) + "hops";
    }
    return "cross_socket";
}

std::vector<std::pair<unsigned, unsigned>> cpu_pairs(const platform::topology& t, unsigned n,
                                                     std::uint64_t seed) {
    std::vector<std::pair<unsigned, unsigned>> all;
    for (unsigned a = 0; a < t.num_cpus(); ++a)
        for (unsigned b = a + 1; b < t.num_cpus(); ++b) all.emplace_back(a, b);
    if (n == 0 || n >= all.size()) return all;
    std::mt19937_64 rng(seed);
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(n);
    std::sort(all.begin(), all.end());
    return all;
}

line_bounce::line_bounce(models::machine& m, line_bounce_options o) : m_(m), o_(std::move(o)) {}

double line_bounce::bounce(unsigned a, unsigned b, std::uint64_t addr) {
    models::hart& ha = m_.cpu(a);
    models::hart& hb = m_.cpu(b);
    handoff flag;
    const unsigned total = o_.warmup_round_trips + o_.round_trips;
    models::ps_t start = 0, end = 0;
    // Thread A: CAS 0->1 on even turns; thread B: CAS 1->0 on odd turns.
    auto pa = spawn_program("ping", [&] {
        for (unsigned i = 0; i < total; ++i) {
            flag.wait_for(0);
            ha.sync();
            if (i == o_.warmup_round_trips) start = ha.now();
            ha.atomic(addr);
            ha.sync();
            flag.set(1);
        }
    });
    auto pb = spawn_program("pong", [&] {
        for (unsigned i = 0; i < total; ++i) {
            flag.wait_for(1);
            hb.sync();
            hb.atomic(addr);
            hb.sync();
            end = hb.now();
            flag.set(0);
        }
    });
    join(pa);
    join(pb);
    return static_cast<double>(end - start) / 1e3 / (2.0 * o_.round_trips);
}

void line_bounce::run() {
    const auto& t = m_.topo();
    const std::uint64_t interleave = m_.platform().memory.interleave;
    for (const auto& [a, b] : o_.pairs) {
        const unsigned node = t.node_of_core(t.core_of_cpu(a));
        const unsigned lines = static_cast<unsigned>(t.controllers_of_node(node).size());
        double sum = 0;
        for (unsigned k = 0; k < lines; ++k) {
            // Consecutive interleave chunks land on consecutive controllers of the node.
            const std::uint64_t addr = next_region_ + k * interleave;
            m_.addresses().place(addr, interleave, node);
            sum += bounce(a, b, addr);
        }
        next_region_ += (lines + 1) * interleave;
        results_.push_back({a, b, cpu_relation(t, a, b, &m_.graph()), sum / lines});
    }
}

} // namespace warmsched::workloads
