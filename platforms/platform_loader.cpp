// Platform description reader and validator; see platform_loader.h.
#include "platforms/platform_loader.h"
#include "platforms/time_dilation.h"

#include "platforms/config/config_reader.h"
#include "platforms/fabric_graph.h"
#include "platforms/import/platform_import.h"
#include "platforms/platform_catalog.h"
#include "platforms/topology.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace warmsched::platform {
namespace {
using config::config_reader;

constexpr unsigned max_cpus = 4096;
// Limits of what a real machine has, well past the largest shipped today, so that a typo (16TiB for
// 16MiB, 1e-300GB/s) is an error in one line instead of a run that allocates until bad_alloc or
// whose probes give numbers no machine could. docs/platforms.md "Limits" lists them.
constexpr std::uint64_t max_cache_size = 4ull << 30;  // one cache instance (emr-8580-2s: 300MiB per socket)
constexpr std::uint64_t max_total_cache = 8ull << 30; // every instance of every level together
constexpr double max_cache_latency_ps = 1e6;          // 1us (an LLC hit is 10-50ns)
constexpr double max_memory_latency_ps = 1e7;         // 10us (CXL memory: ~300ns)
// No DRAM answers faster: activating a row and reading a column (tRCD + CL) take ~25-30ns on every
// DDR3, DDR4 and DDR5 part; the shipped platforms' controller-side latency is 32-75ns.
constexpr double min_memory_latency_ps = 1e4; // 10ns
// A locked read-modify-write costs tens of cycles over a store, a snoop of a peer's private cache tens of
// ns: the shipped values are 17-38 cycles. 1us, the bound of a cache hit, is far past any machine.
constexpr double max_coherence_latency_ps = 1e6;
// The slowest block device still in use (an SD card, a USB 2.0 stick) streams several MB/s.
constexpr double min_block_bandwidth = 1e6; // 1MB/s
constexpr double max_link_latency_ps = 1e7;           // 10us per fabric hop
constexpr double min_bandwidth = 1e7;                 // 10MB/s
constexpr double max_bandwidth = 1e15;                // 1PB/s
constexpr std::uint64_t max_page_size = 1ull << 30;   // 1GiB pages

// topology.cpu_ids: every Linux CPU number once, one per hardware thread in tree order.
void read_cpu_ids(config_reader& topo, platform_params& p) {
    unsigned long long n = p.threads_per_core;
    for (const auto& l : p.levels) n = std::min<unsigned long long>(n * l.count, max_cpus + 1ull);
    if (n > max_cpus) return; // check_consistency reports the size
    const auto cpus = static_cast<unsigned>(n);
    std::vector<bool> seen(cpus, false);
    for (const auto& text : topo.text_list("cpu_ids")) {
        unsigned long id = 0;
        const bool digits = !text.empty() && text.size() <= 9 &&
                            std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        if (digits) id = std::stoul(text);
        if (!digits || id >= cpus) {
            topo.error("cpu_ids", "'" + text + "' is not a CPU number of this machine (0-" +
                                      std::to_string(cpus - 1) + ")");
            return;
        }
        if (seen[id]) {
            topo.error("cpu_ids", "CPU " + text + " is listed twice");
            return;
        }
        seen[id] = true;
        p.cpu_ids.push_back(static_cast<unsigned>(id));
    }
    if (p.cpu_ids.size() != cpus)
        topo.error("cpu_ids", "expected " + std::to_string(cpus) + " CPU numbers (one per hardware thread), got " +
                                  std::to_string(p.cpu_ids.size()));
}

void read_levels(config_reader& topo, platform_params& p) {
    auto levels = topo.children("levels", true);
    std::set<std::string> seen;
    for (auto& l : levels) {
        level_params lp;
        lp.name = l.text("name");
        lp.count = static_cast<unsigned>(l.integer("count", std::nullopt, 1, max_cpus));
        if (lp.name == "machine") l.error("name", "'machine' is the implicit root; do not list it");
        if (!seen.insert(lp.name).second) l.error("name", "level '" + lp.name + "' is listed twice");
        l.finish();
        p.levels.push_back(lp);
    }
    if (!levels.empty() &&
        (p.levels.size() < 2 || p.levels.front().name != "socket" || p.levels.back().name != "core"))
        topo.error("levels", "levels must start with 'socket' and end with 'core' (outermost first)");
    p.threads_per_core = static_cast<unsigned>(topo.integer("threads_per_core", 1, 1, 8));
    if (topo.has("cpu_ids")) {
        if (topo.has("cpu_numbering")) {
            topo.text("cpu_numbering");
            topo.error("cpu_numbering", "give cpu_numbering or cpu_ids, not both");
        }
        read_cpu_ids(topo, p);
    } else {
        p.cpu_numbering = topo.choice("cpu_numbering", {"siblings_last", "siblings_adjacent"}, "siblings_last");
    }
    topo.finish();
}

void read_core(config_reader& r, platform_params& p) {
    p.core.frequency_hz = r.frequency("frequency");
    if (p.core.frequency_hz < 1e8 || p.core.frequency_hz > 1e10)
        r.error("frequency", "frequency must be between 100MHz and 10GHz");
    p.core.base_cpi = r.number("base_cpi", 1.0, 0.05, 20);
    p.core.smt_throughput = r.number("smt_throughput", 1.0, 0.05, 1.0);
    p.core.max_outstanding_misses = static_cast<unsigned>(r.integer("max_outstanding_misses", 10, 1, 256));
    p.core.stream_outstanding_misses = static_cast<unsigned>(r.integer(
        "stream_outstanding_misses", p.core.max_outstanding_misses, p.core.max_outstanding_misses, 512));
    p.core.atomic_latency_ps =
        r.latency("atomic_latency", config::latency_value{0, true}).to_ps(p.core.frequency_hz);
    if (p.core.atomic_latency_ps > max_coherence_latency_ps)
        r.error("atomic_latency", "a locked read-modify-write of more than 1us is no machine's (they cost tens of "
                                  "cycles; got " + config::format_time_ps(p.core.atomic_latency_ps) + ")");
    r.finish();
}

void read_kernel_costs(config_reader& r, platform_params& p) {
    kernel_cost_params& k = p.kernel_costs;
    const kernel_cost_params d;
    auto cost = [&](const char* key, double def) {
        const double v = r.time_ps(key, def);
        if (v < 0 || v > 1e10) r.error(key, "must be between 0 and 10ms");
        return v;
    };
    k.context_switch_ps = cost("context_switch", d.context_switch_ps);
    k.mm_switch_ps = cost("mm_switch", d.mm_switch_ps);
    k.syscall_ps = cost("syscall", d.syscall_ps);
    k.pipe_write_ps = cost("pipe_write", d.pipe_write_ps);
    k.pipe_read_ps = cost("pipe_read", d.pipe_read_ps);
    k.unix_skb_alloc_ps = cost("unix_skb_alloc", d.unix_skb_alloc_ps);
    k.unix_skb_free_ps = cost("unix_skb_free", d.unix_skb_free_ps);
    k.wakeup_ps = cost("wakeup", d.wakeup_ps);
    k.remote_enqueue_ps = cost("remote_enqueue", d.remote_enqueue_ps);
    k.ipi_ps = cost("ipi", d.ipi_ps);
    k.ipi_send_ps = cost("ipi_send", d.ipi_send_ps);
    k.ipi_handler_ps = cost("ipi_handler", d.ipi_handler_ps);
    k.idle_exit_ps = cost("idle_exit", d.idle_exit_ps);
    k.idle_polling = r.boolean("idle_polling", d.idle_polling);
    k.max_cstate = static_cast<int>(r.integer("max_cstate", d.max_cstate, -1, 9));
    k.acpi_dummy_wait_ps = cost("acpi_dummy_wait", d.acpi_dummy_wait_ps);
    k.fork_ps = cost("fork", d.fork_ps);
    k.clone_ps = cost("clone", d.clone_ps);
    k.exit_ps = cost("exit", d.exit_ps);
    k.exec_ps = cost("exec", d.exec_ps);
    k.io_submit_ps = cost("io_submit", d.io_submit_ps);
    k.io_complete_ps = cost("io_complete", d.io_complete_ps);
    k.migrate_ps = cost("migrate", d.migrate_ps);
    r.finish();
}

// idle_states: the cpuidle driver's table (drivers/acpi/processor_idle.c from ACPI _CST, or
// intel_idle's), shallowest first.
void read_idle_states(config_reader& root, const config_reader& costs, platform_params& p) {
    auto states = root.children("idle_states");
    if (!states.empty() && costs.has("idle_exit"))
        costs.error("idle_exit", "the platform lists idle_states: set the exit_time of a state there instead");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < states.size(); ++i) {
        auto& r = states[i];
        idle_state_params s;
        s.name = r.text("name");
        if (!seen.insert(s.name).second) r.error("name", "idle state '" + s.name + "' is listed twice");
        auto time = [&](const char* key, std::optional<double> def) {
            const double v = r.time_ps(key, def);
            if (v < 0 || v > 1e10) r.error(key, "must be between 0 and 10ms");
            return v;
        };
        s.polling = r.boolean("polling", false);
        if (s.polling && i != 0) r.error("polling", "only state 0 can be the polling loop");
        s.exit_latency_ps = time("exit_latency", s.polling ? std::optional<double>(0.0) : std::nullopt);
        s.target_residency_ps = time("target_residency", s.polling ? std::optional<double>(0.0) : std::nullopt);
        s.exit_time_ps = time("exit_time", s.exit_latency_ps);
        s.flushes_core = r.boolean("flushes_core", false);
        s.io_port = r.boolean("io_port", false);
        if (s.polling && (s.exit_time_ps > 0 || s.flushes_core || s.io_port))
            r.error("polling", "the polling loop has no exit time and flushes nothing");
        if (!p.idle_states.empty() && s.exit_latency_ps < p.idle_states.back().exit_latency_ps)
            r.error("exit_latency", "states must be listed shallowest first (exit latency not below the previous)");
        r.finish();
        p.idle_states.push_back(s);
    }
    if (p.idle_states.empty()) { // one C1: the model before idle states were listed
        idle_state_params c1;
        c1.name = "C1";
        c1.exit_latency_ps = c1.exit_time_ps = p.kernel_costs.idle_exit_ps;
        c1.target_residency_ps = p.kernel_costs.idle_exit_ps;
        p.idle_states.push_back(c1);
    }
    if (p.kernel_costs.max_cstate >= static_cast<int>(p.idle_states.size()))
        root.error_in("kernel_costs", "max_cstate",
                      "the platform has idle states 0.." + std::to_string(p.idle_states.size() - 1));
}

void read_block_device(config_reader& r, platform_params& p) {
    block_device_params& b = p.block_device;
    const block_device_params d;
    auto latency = [&](const char* key, double def) {
        const double v = r.time_ps(key, def);
        if (v <= 0 || v > 1e12) r.error(key, "must be more than 0 and at most 1s");
        return v;
    };
    b.name = r.text("name", d.name);
    b.random_read_latency_ps = latency("random_read_latency", d.random_read_latency_ps);
    b.sequential_read_latency_ps = latency("sequential_read_latency", d.sequential_read_latency_ps);
    b.random_write_latency_ps = latency("random_write_latency", d.random_write_latency_ps);
    b.sequential_write_latency_ps = latency("sequential_write_latency", d.sequential_write_latency_ps);
    b.read_iops = r.number("read_iops", d.read_iops, 1, 1e9);
    b.write_iops = r.number("write_iops", d.write_iops, 1, 1e9);
    b.read_bandwidth = r.bandwidth("read_bandwidth", d.read_bandwidth);
    b.write_bandwidth = r.bandwidth("write_bandwidth", d.write_bandwidth);
    for (const auto& [key, v] : {std::pair<const char*, double>{"read_bandwidth", b.read_bandwidth},
                                 {"write_bandwidth", b.write_bandwidth}})
        if (r.has(key) && (v < min_block_bandwidth || v > max_bandwidth))
            r.error(key, "must be between 1MB/s (an SD card or a USB 2.0 stick, the slowest storage in use) and "
                         "1PB/s, got " + config::format_bandwidth(v));
    b.queue_depth = static_cast<unsigned>(r.integer("queue_depth", d.queue_depth, 1, 65535));
    b.irq_cpu = static_cast<int>(r.integer("irq_cpu", d.irq_cpu, -1, 1 << 20));
    b.capacity = r.size("capacity", d.capacity, 1u << 20);
    r.finish();
}

void check_bandwidth(config_reader& r, const char* key, double bytes_per_s) {
    if (bytes_per_s < min_bandwidth || bytes_per_s > max_bandwidth)
        r.error(key, "must be between 10MB/s and 1PB/s, got " + config::format_bandwidth(bytes_per_s));
}

bool is_group(const platform_params& p, const std::string& name) {
    if (name == "machine") return true;
    return std::any_of(p.levels.begin(), p.levels.end(),
                       [&](const level_params& l) { return l.name == name; });
}

int group_depth(const platform_params& p, const std::string& name) {
    if (name == "machine") return 0;
    for (std::size_t i = 0; i < p.levels.size(); ++i)
        if (p.levels[i].name == name) return static_cast<int>(i) + 1;
    return -1;
}

std::string group_names(const platform_params& p) {
    std::string s = "machine";
    for (const auto& l : p.levels) s += ", " + l.name;
    return s;
}

void read_caches(config_reader& root, platform_params& p) {
    auto caches = root.children("caches", true);
    if (caches.empty()) root.error("caches", "at least one cache level is required");
    int prev_depth = 1 << 20;
    std::set<std::string> names;
    for (std::size_t i = 0; i < caches.size(); ++i) {
        auto& c = caches[i];
        cache_params cp;
        cp.name = c.text("name");
        cp.shared_by = c.text("shared_by");
        cp.size = c.size("size");
        cp.associativity = static_cast<unsigned>(c.integer("associativity", std::nullopt, 1, 64));
        cp.line_size = static_cast<unsigned>(c.size("line_size", 64));
        cp.latency_ps = c.latency("latency").to_ps(p.core.frequency_hz > 0 ? p.core.frequency_hz : 1e9);
        std::string incl = c.choice("inclusion", {"inclusive", "non_inclusive", "victim"}, "inclusive");
        cp.inclusion = incl == "victim"          ? inclusion_policy::victim
                       : incl == "non_inclusive" ? inclusion_policy::non_inclusive
                                                 : inclusion_policy::inclusive;
        cp.replacement = c.choice("replacement", {"lru", "random"}, "lru") == "lru"
                             ? replacement_policy::lru
                             : replacement_policy::random;
        cp.peer_snoop_latency_ps = c.latency("peer_snoop_latency", config::latency_value{0, true})
                                       .to_ps(p.core.frequency_hz > 0 ? p.core.frequency_hz : 1e9);
        c.finish();

        if (!names.insert(cp.name).second)
            c.error("name", "two cache levels are named '" + cp.name + "' (stats and messages name a level by it)");
        // An L1 hit takes at least a cycle (4-5 on every shipped core); the later levels must be slower still.
        const double cycle_ps = 1e12 / (p.core.frequency_hz > 0 ? p.core.frequency_hz : 1e9);
        if (i == 0 && c.has("latency") && cp.latency_ps < cycle_ps * (1 - 1e-9))
            c.error("latency", "a cache hit takes at least one core cycle (" + config::format_time_ps(cycle_ps) +
                                   " at core.frequency), got " + config::format_time_ps(cp.latency_ps));
        if (cp.peer_snoop_latency_ps > max_coherence_latency_ps)
            c.error("peer_snoop_latency", "a snoop of a peer's cache of more than 1us is no machine's (tens of ns "
                                          "on real ones; got " + config::format_time_ps(cp.peer_snoop_latency_ps) + ")");

        if (cp.line_size == 0 || (cp.line_size & (cp.line_size - 1)) != 0 || cp.line_size < 16)
            c.error("line_size", "line size must be a power of two of at least 16B");
        else if (i > 0 && !p.caches.empty() && cp.line_size != p.caches.front().line_size)
            c.error("line_size", "every cache level must use the same line size as " + p.caches.front().name);
        if (cp.size && cp.associativity && cp.line_size &&
            cp.size % (static_cast<std::uint64_t>(cp.associativity) * cp.line_size) != 0)
            c.error("size", "size is not a whole number of sets of " + std::to_string(cp.associativity) +
                                " ways of " + std::to_string(cp.line_size) + "B");
        if (!cp.shared_by.empty() && !is_group(p, cp.shared_by))
            c.error("shared_by", "'" + cp.shared_by + "' is not a grouping level (" + group_names(p) + ")");
        int d = group_depth(p, cp.shared_by);
        if (d >= 0 && d > prev_depth)
            c.error("shared_by", "a cache level cannot be shared by fewer cores than the level above it");
        if (d >= 0) prev_depth = d;
        if (cp.size > max_cache_size)
            c.error("size", "the model supports caches of at most " + config::format_size(max_cache_size) +
                                " (its tags take a host byte for every 5 bytes of cache; the largest shipped LLC, "
                                "emr-8580-2s's, is 300MiB)");
        if (cp.latency_ps > max_cache_latency_ps)
            c.error("latency", "a cache hit of more than 1us is not a cache (" +
                                   config::format_time_ps(cp.latency_ps) + ")");
        if (i > 0 && cp.latency_ps <= p.caches.back().latency_ps)
            c.error("latency", "must be larger than the latency of " + p.caches.back().name);
        if (i > 0 && cp.size <= p.caches.back().size && cp.shared_by == "core")
            c.error("size", "a private level must be larger than the level above it");
        bool last = i + 1 == caches.size();
        if (i == 0 && cp.shared_by != "core" && !cp.shared_by.empty())
            c.error("shared_by", "the first cache level must be private to the core");
        if (!last && cp.shared_by != "core" && !cp.shared_by.empty())
            c.error("shared_by", "only the last cache level (the LLC) may be shared by several cores");
        if (last && cp.shared_by == "core" && caches.size() > 0)
            c.error("shared_by",
                    "the last cache level (the LLC) must be shared by a grouping level, not 'core'");
        if (!last && i > 0 && cp.inclusion != inclusion_policy::inclusive)
            c.error("inclusion", "private levels are modelled inclusive of the level above");
        p.caches.push_back(cp);
    }
}

void read_memory(config_reader& r, platform_params& p) {
    p.memory.controllers_per = r.text("controllers_per", "socket");
    if (!is_group(p, p.memory.controllers_per))
        r.error("controllers_per",
                "'" + p.memory.controllers_per + "' is not a grouping level (" + group_names(p) + ")");
    p.memory.latency_ps = r.time_ps("latency");
    p.memory.bandwidth = r.bandwidth("bandwidth");
    p.memory.interleave = r.size("interleave", 4096, 64);
    p.memory.page_size = r.size("page_size", 4096, 64);
    if (r.has("latency") && p.memory.latency_ps < min_memory_latency_ps)
        r.error("latency", "a memory latency under 10ns is no DRAM's (row activation and column read alone take "
                           "~25ns; got " + config::format_time_ps(p.memory.latency_ps) + ")");
    else if (p.memory.latency_ps > max_memory_latency_ps)
        r.error("latency", "a memory latency of more than 10us is not a machine's (" +
                               config::format_time_ps(p.memory.latency_ps) + ")");
    if (r.has("bandwidth")) check_bandwidth(r, "bandwidth", p.memory.bandwidth);
    // Lines are placed by interleave block and page: a block that splits a line has no meaning.
    const unsigned line = p.caches.empty() ? 64 : p.caches.front().line_size;
    for (auto [key, v] : {std::pair<const char*, std::uint64_t>{"interleave", p.memory.interleave},
                          {"page_size", p.memory.page_size}})
        if (v && ((v & (v - 1)) != 0 || v < line || v > max_page_size))
            r.error(key, "must be a power of two from the line size (" + std::to_string(line) + "B) to 1GiB, got " +
                             config::format_size(v));
    r.finish();
}

void read_numa(config_reader& r, platform_params& p) {
    p.numa.node_per = r.text("node_per", "socket");
    if (!is_group(p, p.numa.node_per))
        r.error("node_per", "'" + p.numa.node_per + "' is not a grouping level (" + group_names(p) + ")");
    p.numa.distances = r.matrix("distances");
    r.finish();
}

void read_fabric(config_reader& r, platform_params& p) {
    p.fabric.directory_latency_ps = r.time_ps("directory_latency", 0);
    p.fabric.bandwidth_window_ps = r.time_ps("bandwidth_window", 10e3);
    if (p.fabric.bandwidth_window_ps < 1e3) r.error("bandwidth_window", "must be at least 1ns");
    if (p.fabric.directory_latency_ps > max_link_latency_ps)
        r.error("directory_latency", "must be at most 10us");
    std::set<std::string> kinds = {"llc", "memory"};
    for (auto& s : r.children("stops")) {
        stop_params sp;
        sp.name = s.text("name");
        sp.per = s.text("per");
        if (!is_group(p, sp.per))
            s.error("per", "'" + sp.per + "' is not a grouping level (" + group_names(p) + ")");
        if (!kinds.insert(sp.name).second)
            s.error("name", "stop kind '" + sp.name + "' is defined twice (llc and memory are built in)");
        s.finish();
        p.fabric.stops.push_back(sp);
    }
    auto links = r.children("links", true);
    for (auto& l : links) {
        link_params lp;
        lp.from = l.text("from");
        lp.to = l.text("to");
        for (const auto* k : {&lp.from, &lp.to})
            if (!k->empty() && !kinds.count(*k))
                l.error(k == &lp.from ? "from" : "to",
                        "'" + *k + "' is not a stop kind (llc, memory or a declared stop)");
        std::string pat =
            l.choice("pattern", {"containment", "ring", "all"}, lp.from == lp.to ? "all" : "containment");
        lp.pattern = pat == "ring"  ? link_pattern::ring
                     : pat == "all" ? link_pattern::all
                                    : link_pattern::containment;
        lp.within = l.text("within", "machine");
        if (!is_group(p, lp.within))
            l.error("within", "'" + lp.within + "' is not a grouping level (" + group_names(p) + ")");
        if (lp.from == lp.to && lp.pattern == link_pattern::containment)
            l.error("pattern", "a link between stops of one kind needs pattern ring or all");
        if (lp.from != lp.to && lp.pattern != link_pattern::containment)
            l.error("pattern",
                    "links between different stop kinds connect each stop to the one containing it");
        lp.latency_ps = l.time_ps("latency");
        lp.bandwidth = l.bandwidth("bandwidth");
        lp.reverse_bandwidth = l.bandwidth("reverse_bandwidth", lp.bandwidth);
        if (l.has("bandwidth")) check_bandwidth(l, "bandwidth", lp.bandwidth);
        if (l.has("reverse_bandwidth")) check_bandwidth(l, "reverse_bandwidth", lp.reverse_bandwidth);
        if (lp.latency_ps < 0 || lp.latency_ps > max_link_latency_ps)
            l.error("latency", "a fabric hop must take between 0 and 10us");
        l.finish();
        p.fabric.links.push_back(lp);
    }
    r.finish();
}

// Checks that need the whole description: NUMA nodes vs LLCs and memory, the distance table.
void check_consistency(config_reader& root, const platform_params& p, config::error_list& errors) {
    if (!errors.empty()) return;
    const int node_depth = group_depth(p, p.numa.node_per);
    const int llc_depth = group_depth(p, p.caches.back().shared_by);
    const int mc_depth = group_depth(p, p.memory.controllers_per);
    if (node_depth > llc_depth)
        root.error_in("numa", "node_per",
                      "a NUMA node ('" + p.numa.node_per + "') cannot be smaller than an LLC ('" +
                          p.caches.back().shared_by + "')");
    if (mc_depth < node_depth)
        root.error_in("memory", "controllers_per",
                      "a memory controller ('" + p.memory.controllers_per +
                          "') cannot serve several NUMA nodes ('" + p.numa.node_per + "')");
    // 64-bit products: 4096 x 4096 x 256 wraps an unsigned to 0, which passed the CPU-count check.
    std::uint64_t all_cores = 1;
    for (const auto& l : p.levels) all_cores = std::min<std::uint64_t>(all_cores * l.count, max_cpus + 1);
    if (all_cores * p.threads_per_core > max_cpus) {
        root.error_in("topology", "levels",
                      "the machine has more than " + std::to_string(max_cpus) + " CPUs");
        return;
    }
    const unsigned cores = static_cast<unsigned>(all_cores);
    if (p.block_device.irq_cpu >= static_cast<int>(cores * p.threads_per_core))
        root.error_in("block_device", "irq_cpu",
                      std::to_string(p.block_device.irq_cpu) + " is not a CPU of this machine (0-" +
                          std::to_string(cores * p.threads_per_core - 1) + "; -1: the submitting CPU)");
    // The directory keeps a 64-bit sharer mask of LLCs, the LLC a 64-bit mask of its cores.
    unsigned llcs = 1, cores_per_llc = 1;
    for (int d = 1; d <= static_cast<int>(p.levels.size()); ++d)
        (d <= llc_depth ? llcs : cores_per_llc) *= p.levels[d - 1].count;
    if (llcs > 64)
        root.error_in("topology", "levels",
                      "the model supports at most 64 LLCs, this machine has " + std::to_string(llcs));
    if (cores_per_llc > 64)
        root.error("caches", "the model supports at most 64 cores per LLC, " + p.caches.back().name +
                                 " has " + std::to_string(cores_per_llc));
    // Every cache instance is allocated: the sum over levels of size x instances bounds the tag arrays.
    std::uint64_t total_cache = 0; // at most 4096 CPUs x 4GiB per instance: no overflow
    for (const auto& c : p.caches) {
        std::uint64_t instances = 1;
        for (int d = 1; d <= group_depth(p, c.shared_by); ++d) instances *= p.levels[d - 1].count;
        total_cache += c.size * instances;
    }
    if (total_cache > max_total_cache)
        root.error("caches", "the model holds at most " + config::format_size(max_total_cache) +
                                 " of cache in all, this machine has " + config::format_size(total_cache));
    unsigned nodes = 1;
    for (int d = 1; d <= node_depth; ++d) nodes *= p.levels[d - 1].count;
    const auto& dist = p.numa.distances;
    if (!dist.empty()) {
        bool ok = dist.size() == nodes;
        for (const auto& row : dist) ok = ok && row.size() == nodes;
        if (!ok) {
            root.error_in("numa", "distances",
                          "the table must be " + std::to_string(nodes) + " x " + std::to_string(nodes) +
                              " (one row and column per NUMA node)");
            return;
        }
        for (unsigned i = 0; i < nodes; ++i)
            for (unsigned j = 0; j < nodes; ++j) {
                if (i == j && dist[i][j] != 10) {
                    root.error_in("numa", "distances", "the local distance (diagonal) must be 10");
                    return;
                }
                if (i != j && (dist[i][j] <= 10 || dist[i][j] > 254)) {
                    root.error_in("numa", "distances", "remote distances must be in (10, 254]");
                    return;
                }
                if (dist[i][j] != dist[j][i]) {
                    root.error_in("numa", "distances", "the table must be symmetric");
                    return;
                }
            }
    }
}

// calibration: what `warmsched calibrate` measured, for the reader: the machine, the kernel, the date, the
// repeats, and per figure its status, median, min, max and method. Documentation only (the values the
// model uses are the keys themselves); checked so that a hand-edited file stays well formed.
void read_calibration(config_reader& root) {
    if (!root.has("calibration")) return;
    auto c = root.child("calibration");
    c.text("machine");
    c.text("kernel");
    c.text("date");
    c.integer("repeats", std::nullopt, 1, 1000);
    for (auto& f : c.children("figures")) {
        f.text("key");
        const std::string status = f.text("status");
        if (status != "measured" && status != "solved" && status != "split")
            f.error("status", "must be measured, solved or split, got '" + status + "'");
        for (const char* k : {"median", "min", "max"}) f.text(k);
        f.text("from");
        f.finish();
    }
    c.text_list("estimates");
    c.finish();
}

} // namespace

const std::vector<std::string>& platform_keys() {
    static const std::vector<std::string> keys = {
        "name",         "description",   "topology",    "core",      "caches",    "memory",         "numa",
        "fabric",       "kernel_costs",  "idle_states", "block_device", "estimated", "calibration", "time_dilation"};
    return keys;
}

platform_params read_platform(const config::config_node& root, config::config_node* resolved,
                              const std::string& key_prefix) {
    config::error_list errors;
    config_reader r(&root, key_prefix, errors, resolved, root.where());
    platform_params p;
    p.name = r.text("name");
    if (r.has("name") && p.name.empty()) r.error("name", "an empty name (the platform's name heads every report)");
    p.description = r.text("description", "");
    auto topo = r.child("topology");
    read_levels(topo, p);
    auto core = r.child("core");
    read_core(core, p);
    read_caches(r, p);
    auto mem = r.child("memory");
    read_memory(mem, p);
    auto numa = r.child("numa");
    read_numa(numa, p);
    auto fab = r.child("fabric");
    read_fabric(fab, p);
    auto costs = r.child("kernel_costs");
    read_kernel_costs(costs, p);
    read_idle_states(r, costs, p);
    auto disk = r.child("block_device");
    read_block_device(disk, p);
    r.text_list("estimated"); // free-form list of estimated parameters, for documentation
    read_calibration(r);
    const double dilation = r.number("time_dilation", 1.0, 1.0, 1e6); // platforms/time_dilation.h
    r.finish();
    check_consistency(r, p, errors);
    errors.throw_if_any();
    apply_time_dilation(p, dilation);
    // The fabric must connect every LLC to every memory controller; the graph builder reports it.
    topology t(p);
    fabric_graph g(p, t, root.find("fabric") ? root.find("fabric")->where() : root.where(),
                   (key_prefix.empty() ? "" : key_prefix + ".") + "fabric.links");
    return p;
}

std::string set_sampling_problem(const platform_params& p, unsigned ratio) {
    if (ratio == 0 || (ratio & (ratio - 1)) != 0) return "the set-sampling ratio must be a power of two";
    for (const auto& c : p.caches) {
        const std::uint64_t sets = c.size / (static_cast<std::uint64_t>(c.associativity) * c.line_size);
        if (sets % ratio != 0)
            return "cannot sample 1 in " + std::to_string(ratio) + " sets: " + c.name + " has " +
                   std::to_string(sets) + " sets";
    }
    return {};
}

config::config_node load_platform_file(const std::string& path) {
    if (!import::is_hwloc_xml(path)) return config::load_yaml_file(path);
    import::import_request r;
    r.from = import::import_from::hwloc;
    r.input = path;
    return config::load_yaml_text(import::import_platform_yaml(r), path + " (imported)");
}

platform_params load_platform(const std::string& name_or_path, const std::vector<std::string>& overrides,
                              config::config_node* resolved) {
    config::config_node root = load_platform_file(resolve_platform_path(name_or_path));
    for (const auto& o : overrides) config::apply_override(root, o);
    return read_platform(root, resolved);
}

} // namespace warmsched::platform
