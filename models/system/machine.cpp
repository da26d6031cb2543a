// Machine elaboration; see machine.h.
#include "models/system/machine.h"

#include <tlm_utils/tlm_quantumkeeper.h>

#include <algorithm>

namespace warmsched::models {
namespace {
std::vector<std::vector<unsigned>> node_controllers(const platform::topology& t) {
    std::vector<std::vector<unsigned>> v;
    for (unsigned n = 0; n < t.num_nodes(); ++n) v.push_back(t.controllers_of_node(n));
    return v;
}
std::vector<unsigned> controller_nodes(const platform::topology& t) {
    std::vector<unsigned> v;
    for (unsigned m = 0; m < t.num_memory_controllers(); ++m) v.push_back(t.node_of_controller(m));
    return v;
}
} // namespace

machine::machine(const sc_core::sc_module_name& name, const platform::platform_params& p,
                 const machine_options& o)
    : sc_module(name), p_(p), topo_(p), graph_(p, topo_, config::origin{}),
      addresses_(p.caches.front().line_size, p.memory.page_size, p.memory.interleave, node_controllers(topo_),
                 controller_nodes(topo_)) {
    tlm::tlm_global_quantum::instance().set(ps_time(o.quantum_ps));
    const unsigned line = line_size();
    const ps_t cycle = static_cast<ps_t>(1e12 / p.core.frequency_hz + 0.5);
    const auto& llc_cfg = p.caches.back();
    // Under set sampling 1-in-N a sampled line stands for N lines of traffic at 1/N of the bandwidth; an
    // N times longer accounting window keeps the queueing statistics of the full machine.
    const ps_t window_ps = static_cast<ps_t>(p.fabric.bandwidth_window_ps) * o.set_sampling;

    // LLCs first: cores bind to them.
    std::vector<unsigned> llc_socket(topo_.num_llcs()), llc_node(topo_.num_llcs());
    std::vector<std::vector<unsigned>> llc_cores(topo_.num_llcs());
    for (unsigned c = 0; c < topo_.num_cores(); ++c) {
        const unsigned l = topo_.llc_of_core(c);
        llc_cores[l].push_back(c);
        llc_socket[l] = topo_.socket_of_core(c);
        llc_node[l] = topo_.node_of_core(c);
    }
    for (unsigned l = 0; l < topo_.num_llcs(); ++l) {
        llc_params lp;
        lp.index = l;
        lp.node = llc_node[l];
        lp.cores = llc_cores[l];
        lp.size = llc_cfg.size;
        lp.associativity = llc_cfg.associativity;
        lp.line_size = line;
        lp.latency_ps = static_cast<ps_t>(llc_cfg.latency_ps + 0.5);
        lp.peer_snoop_ps = static_cast<ps_t>(llc_cfg.peer_snoop_latency_ps + 0.5);
        lp.inclusion = llc_cfg.inclusion;
        lp.random_replacement = llc_cfg.replacement == platform::replacement_policy::random;
        lp.seed = o.seed * 1000003 + 7919 * l + 1;
        lp.set_sampling = o.set_sampling;
        llcs_.push_back(std::make_unique<llc>(("llc" + std::to_string(l)).c_str(), lp, addresses_));
    }

    // Cores and their harts.
    for (unsigned c = 0; c < topo_.num_cores(); ++c) {
        core_module_params cp;
        cp.index = c;
        cp.llc = topo_.llc_of_core(c);
        const auto& peers = llc_cores[cp.llc];
        cp.index_in_llc = static_cast<unsigned>(std::find(peers.begin(), peers.end(), c) - peers.begin());
        cp.atomic_ps = static_cast<ps_t>(p.core.atomic_latency_ps + 0.5);
        cp.seed = o.seed * 7777 + c + 1;
        cp.set_sampling = o.set_sampling;
        for (unsigned lv = 0; lv < topo_.num_private_levels(); ++lv) {
            const auto& cc = p.caches[lv];
            cp.levels.push_back({cc.name, cc.size, cc.associativity, line,
                                 static_cast<ps_t>(cc.latency_ps + 0.5),
                                 cc.replacement == platform::replacement_policy::random});
        }
        cores_.push_back(std::make_unique<core>(("core" + std::to_string(c)).c_str(), cp));
    }
    harts_.resize(topo_.num_cpus());
    for (unsigned c = 0; c < topo_.num_cores(); ++c)
        for (unsigned t = 0; t < topo_.threads_per_core(); ++t) {
            const unsigned cpu = topo_.cpu_of(c, t);
            hart_params hp{cpu,
                           c,
                           line,
                           cycle,
                           p.core.max_outstanding_misses,
                           p.core.stream_outstanding_misses,
                           o.set_sampling};
            harts_[cpu] = std::make_unique<hart>(("cpu" + std::to_string(cpu)).c_str(), hp);
            harts_[cpu]->bind(*cores_[c]);
        }
    // Below the harts the models call each other directly (models/cache/llc.h): core <-> LLC in port
    // order, LLC <-> fabric <-> home directory -> memory controller.
    fabric_ = std::make_unique<fabric>("fabric", graph_, line, window_ps, 1.0 / o.set_sampling);
    for (unsigned l = 0; l < topo_.num_llcs(); ++l) {
        std::vector<core*> ports;
        for (unsigned c : llc_cores[l]) {
            cores_[c]->connect(*llcs_[l]);
            ports.push_back(cores_[c].get());
        }
        llcs_[l]->connect(std::move(ports), *fabric_);
    }
    for (unsigned m = 0; m < topo_.num_memory_controllers(); ++m) {
        memory_controller_params mp{m, static_cast<ps_t>(p.memory.latency_ps + 0.5),
                                    p.memory.bandwidth / o.set_sampling, line, window_ps};
        memories_.push_back(std::make_unique<memory_controller>(("mem" + std::to_string(m)).c_str(), mp));
        directory_params dp{m, topo_.node_of_controller(m),
                            static_cast<ps_t>(p.fabric.directory_latency_ps + 0.5), llc_socket, llc_node};
        homes_.push_back(std::make_unique<directory>(("home" + std::to_string(m)).c_str(), dp, *fabric_,
                                                     *memories_[m]));
    }
    {
        std::vector<llc*> llcs;
        for (auto& l : llcs_) llcs.push_back(l.get());
        std::vector<directory*> homes;
        for (auto& d : homes_) homes.push_back(d.get());
        fabric_->attach(std::move(llcs), std::move(homes));
    }
    // Steady flows of fast-forwarded compute use the links, then the memory controllers.
    std::vector<link_occupancy*> resources;
    for (unsigned i = 0; i < fabric_->num_links(); ++i) resources.push_back(&fabric_->link(i));
    fabric_->set_flow_meter(&flows_);
    for (unsigned m = 0; m < memories_.size(); ++m) {
        memories_[m]->set_flow_meter(&flows_, static_cast<unsigned>(resources.size()));
        resources.push_back(&memories_[m]->channels());
    }
    flows_.attach(std::move(resources), topo_.num_cpus());
}

void machine::set_access_observer(access_observer* o) {
    for (auto& h : harts_) h->set_observer(o);
    for (auto& c : cores_) c->set_observer(o);
    for (auto& l : llcs_) l->set_observer(o);
}

host_visits machine::visits() const {
    host_visits v;
    for (const auto& h : harts_) h->add_visits(v);
    for (const auto& c : cores_) c->add_visits(v);
    for (const auto& l : llcs_) l->add_visits(v);
    for (const auto& d : homes_) v.line_records += d->line_record_visits();
    v.line_records += addresses_.line_record_visits();
    for (unsigned i = 0; i < fabric_->num_links(); ++i) v.link_buckets += fabric_->link(i).reservations();
    for (const auto& m : memories_) v.link_buckets += m->channels().reservations();
    return v;
}

void machine::add_stats(stats::group& system) const {
    for (const auto& h : harts_) h->add_stats(system.child(h->basename()));
    for (const auto& c : cores_) c->add_stats(system.child(c->basename()));
    for (const auto& l : llcs_) l->add_stats(system.child(l->basename()));
    for (const auto& d : homes_) d->add_stats(system.child(d->basename()));
    for (const auto& m : memories_) m->add_stats(system.child(m->basename()));
}

} // namespace warmsched::models
