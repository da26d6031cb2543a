// Coherence stress test: random loads, stores and atomics from every CPU of a small machine on a small set
// of lines (so that lines are shared, migrate and get evicted at every level), with the coherence
// invariants between the cores' tag arrays, the LLCs' domain maps and the home directories checked after
// every access. Run for each LLC inclusion policy, on one socket (one home) and on two sockets (two homes).
#include "models/common/run_simulation.h"
#include "models/system/machine.h"
#include "support/mini_platform.h"
#include "workloads/probes/probe_program.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <sstream>

using namespace warmsched;
using models::line_state;

namespace {

// Two sockets x 2 LLCs x 2 cores, SMT2, one memory controller per socket (two homes), first touch.
std::string two_socket_yaml(const std::string& inclusion, bool one_private_level = false, bool random = false,
                            bool three_private_levels = false) {
    const std::string repl = random ? ", replacement: random" : "";
    std::string l2 =
        one_private_level
            ? ""
            : "  - {name: l2, shared_by: core, size: 1KiB, associativity: 4, latency: 4cycles" + repl + "}\n";
    if (three_private_levels)
        l2 +=
            "  - {name: l2b, shared_by: core, size: 2KiB, associativity: 4, latency: 8cycles" + repl + "}\n";
    return R"(name: mini2s
topology:
  levels:
    - {name: socket, count: 2}
    - {name: ccx, count: 2}
    - {name: core, count: 2}
  threads_per_core: 2
core:
  frequency: 1GHz
  max_outstanding_misses: 4
  atomic_latency: 10cycles
caches:
  - {name: l1d, shared_by: core, size: 256B, associativity: 2, latency: 1cycles)" +
           repl + R"(}
)" + l2 + R"(  - {name: l3, shared_by: ccx, size: 4KiB, associativity: 4, latency: 20cycles, inclusion: )" +
           inclusion + repl + R"(, peer_snoop_latency: 5cycles}
memory:
  controllers_per: socket
  latency: 50ns
  bandwidth: 6.4GB/s
  page_size: 1KiB
  interleave: 1KiB
numa:
  node_per: socket
fabric:
  directory_latency: 2ns
  stops:
    - {name: hub, per: socket}
  links:
    - {from: hub, to: llc, latency: 10ns, bandwidth: 64GB/s}
    - {from: hub, to: memory, latency: 5ns, bandwidth: 64GB/s}
    - {from: hub, to: hub, pattern: all, latency: 30ns, bandwidth: 32GB/s}
)";
}

struct checker {
    models::machine& m;
    std::uint64_t num_lines;

    line_state core_state(unsigned c, unsigned lv, std::uint64_t line) const {
        const auto& t = m.core_at(c).level_tags(lv);
        const int w = t.find(line);
        return w < 0 ? line_state::invalid : t.state(line, w);
    }

    // Whether some cache holds the only up-to-date copy of `line`.
    bool dirty_somewhere(std::uint64_t line) const {
        for (unsigned c = 0; c < m.num_cores(); ++c)
            for (unsigned lv = 0; lv < m.core_at(c).num_levels(); ++lv)
                if (core_state(c, lv, line) == line_state::modified) return true;
        for (unsigned l = 0; l < m.num_llcs(); ++l) {
            const auto& t = m.llc_at(l).tags();
            const int w = t.find(line);
            if (w >= 0 && t.state(line, w) == line_state::modified) return true;
        }
        return false;
    }

    // Returns an empty string when every invariant holds for `line`, else a description of what broke.
    std::string check(std::uint64_t line) const {
        std::ostringstream err;
        const unsigned nc = m.num_cores(), nl = m.num_llcs(), nh = m.num_homes();
        std::vector<line_state> held(nc, line_state::invalid);
        for (unsigned c = 0; c < nc; ++c) {
            const auto& co = m.core_at(c);
            const unsigned last = co.num_levels() - 1;
            held[c] = core_state(c, last, line);
            for (unsigned lv = 0; lv < last; ++lv) {
                const line_state s = core_state(c, lv, line);
                if (s != line_state::invalid && held[c] == line_state::invalid)
                    err << "core" << c << ": in L" << lv + 1
                        << " but not in the last private level (inclusion); ";
                if (s != line_state::invalid && core_state(c, lv + 1, line) == line_state::invalid)
                    err << "core" << c << ": in L" << lv + 1 << " but not in L" << lv + 2 << " (inclusion); ";
                if (s != line_state::invalid && s != held[c])
                    err << "core" << c << ": L" << lv + 1 << " " << models::to_string(s) << " vs last level "
                        << models::to_string(held[c]) << "; ";
            }
            // Snoop filter: the LLC's core-valid bit matches the core's tags.
            const auto& l = m.llc_at(co.params().llc);
            const bool bit = (l.holder_ports(line) >> co.params().index_in_llc) & 1;
            if (bit != (held[c] != line_state::invalid))
                err << "core" << c << " holds " << models::to_string(held[c]) << " but llc" << co.params().llc
                    << " port bit=" << bit << "; ";
            if (held[c] != line_state::invalid && !l.holds(line))
                err << "core" << c << " holds the line, llc" << co.params().llc << " has no domain entry; ";
            if (held[c] != line_state::invalid &&
                l.params().inclusion == platform::inclusion_policy::inclusive && l.tags().find(line) < 0)
                err << "core" << c << " holds the line, inclusive llc" << co.params().llc << " tags do not; ";
        }
        // Single writer: a core in E or M excludes every other copy in any core.
        for (unsigned c = 0; c < nc; ++c) {
            if (held[c] != line_state::exclusive && held[c] != line_state::modified) continue;
            for (unsigned o = 0; o < nc; ++o)
                if (o != c && held[o] != line_state::invalid)
                    err << "SWMR: core" << c << " " << models::to_string(held[c]) << " and core" << o << " "
                        << models::to_string(held[o]) << "; ";
        }
        // LLC domain vs directory.
        std::uint64_t dir_sharers = 0;
        int dir_owner = -1, homes_with_entry = 0;
        for (unsigned h = 0; h < nh; ++h) {
            const std::uint64_t s = m.home_at(h).sharers(line);
            if (s) {
                ++homes_with_entry;
                dir_sharers = s;
                dir_owner = m.home_at(h).owner(line);
            }
        }
        if (homes_with_entry > 1) err << "line listed by " << homes_with_entry << " homes; ";
        if (dir_owner >= 0 && dir_sharers != (1ull << dir_owner))
            err << "directory owner " << dir_owner << " but sharers 0x" << std::hex << dir_sharers << std::dec
                << "; ";
        for (unsigned l = 0; l < nl; ++l) {
            const auto& c = m.llc_at(l);
            const bool in_tags = c.tags().find(line) >= 0;
            if (in_tags && !c.holds(line))
                err << "llc" << l << " tags hold the line without a domain entry; ";
            if (c.recorded_slot(line) != c.tags().slot(line)) // the record's slot spares set scans
                err << "llc" << l << " record says slot " << c.recorded_slot(line) << " but the tags "
                    << c.tags().slot(line) << "; ";
            const bool listed = (dir_sharers >> l) & 1;
            if (c.holds(line) != listed)
                err << "llc" << l << " domain holds=" << c.holds(line)
                    << " but directory sharer bit=" << listed << "; ";
            if (in_tags) {
                const line_state s = c.tags().state(line, c.tags().find(line));
                if ((s == line_state::modified || s == line_state::exclusive) &&
                    dir_owner != static_cast<int>(l))
                    err << "llc" << l << " tag " << models::to_string(s) << " but directory owner "
                        << dir_owner << "; ";
            }
        }
        for (unsigned c = 0; c < nc; ++c)
            if ((held[c] == line_state::exclusive || held[c] == line_state::modified) &&
                dir_owner != static_cast<int>(m.core_at(c).params().llc))
                err << "core" << c << " " << models::to_string(held[c]) << " but directory owner "
                    << dir_owner << "; ";
        return err.str();
    }
};

struct result {
    std::string first_failure;
    std::uint64_t accesses = 0;
    std::uint64_t hash = 1469598103934665603ull; // FNV-1a over every access's latency and source
};

std::uint64_t env(const char* n, std::uint64_t d) {
    const char* v = std::getenv(n);
    return v ? std::stoull(v) : d;
}

result stress(const platform::platform_params& p, std::uint64_t seed, std::uint64_t steps,
              std::uint64_t num_lines) {
    seed = env("STRESS_SEED", seed);
    steps = env("STRESS_STEPS", steps);
    num_lines = env("STRESS_LINES", num_lines);
    models::machine_options o;
    o.seed = seed;
    o.set_sampling = static_cast<unsigned>(env("STRESS_SAMPLING", 1)); // lines below are multiples of it
    models::machine m("system", p, o);
    checker chk{m, num_lines};
    result res;
    workloads::spawn_program("stress", [&] {
        std::mt19937_64 rng(seed);
        const char* ops[] = {"load", "store", "atomic"};
        std::ostringstream history;
        for (std::uint64_t i = 0; i < steps && res.first_failure.empty(); ++i) {
            const unsigned cpu = static_cast<unsigned>(rng() % m.num_cpus());
            const std::uint64_t line = rng() % num_lines / o.set_sampling * o.set_sampling;
            const unsigned op = static_cast<unsigned>(rng() % 8); // 5/8 loads, 2/8 stores, 1/8 atomics
            const unsigned kind = op < 5 ? 0 : op < 7 ? 1 : 2;
            auto& h = m.cpu(cpu);
            // Lines whose only up-to-date copy is in a cache (a core's M or an LLC's M) before the access.
            std::vector<bool> dirty_before(num_lines);
            for (std::uint64_t l = 0; l < num_lines; ++l) dirty_before[l] = chk.dirty_somewhere(l);
            std::uint64_t writes_before = 0;
            for (unsigned k = 0; k < m.num_homes(); ++k) writes_before += m.memory_at(k).stats().writes;
            models::ps_t lat = 0;
            if (kind == 0)
                lat = h.load(line * m.line_size());
            else if (kind == 1)
                lat = h.store(line * m.line_size());
            else
                lat = h.atomic(line * m.line_size());
            ++res.accesses;
            res.hash = (res.hash ^ lat) * 1099511628211ull;
            res.hash = (res.hash ^ static_cast<unsigned>(h.last_source())) * 1099511628211ull;
            std::uint64_t writes_after = 0, lost = 0;
            for (unsigned k = 0; k < m.num_homes(); ++k) writes_after += m.memory_at(k).stats().writes;
            for (std::uint64_t l = 0; l < num_lines; ++l)
                if (dirty_before[l] && !chk.dirty_somewhere(l)) ++lost;
            if (lost > writes_after - writes_before && !env("STRESS_NOCHECK", 0)) {
                res.first_failure = "after access #" + std::to_string(i) + ": " + std::to_string(lost) +
                                    " lines stopped being dirty in any cache but memory got " +
                                    std::to_string(writes_after - writes_before) +
                                    " writes (dirty data dropped)";
            }
            history << "#" << i << " cpu" << cpu << " " << ops[kind] << " line " << line << " -> "
                    << models::to_string(h.last_source()) << "\n";
            for (std::uint64_t l = 0; l < num_lines && !env("STRESS_NOCHECK", 0); ++l) {
                const std::string e = chk.check(l);
                if (!e.empty()) {
                    // Keep the tail of the history: the accesses that led here.
                    std::string hist = history.str();
                    std::size_t pos = hist.size();
                    for (int k = 0; k < 12 && pos != std::string::npos && pos > 0; ++k)
                        pos = hist.rfind("#", pos - 1);
                    res.first_failure = "after access #" + std::to_string(i) + ", line " + std::to_string(l) +
                                        ": " + e + "\nlast accesses:\n" +
                                        hist.substr(pos == std::string::npos ? 0 : pos);
                    break;
                }
            }
        }
    });
    models::run_simulation();
    WARN("accesses " << res.accesses << " hash " << res.hash);
    return res;
}

} // namespace

TEST_CASE("coherence stress: victim LLC, one socket") {
    const result r = stress(test::mini_platform("victim"), 1, 20000, 160);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: inclusive LLC, one socket") {
    const result r = stress(test::mini_platform("inclusive"), 2, 20000, 160);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: non-inclusive LLC, one socket") {
    const result r = stress(test::mini_platform("non_inclusive"), 3, 20000, 160);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: victim LLC, two sockets") {
    const result r = stress(
        platform::read_platform(config::load_yaml_text(two_socket_yaml("victim"), "m.yaml")), 4, 20000, 320);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: inclusive LLC, two sockets") {
    const result r =
        stress(platform::read_platform(config::load_yaml_text(two_socket_yaml("inclusive"), "m.yaml")), 5,
               20000, 320);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: non-inclusive LLC, two sockets") {
    const result r =
        stress(platform::read_platform(config::load_yaml_text(two_socket_yaml("non_inclusive"), "m.yaml")), 6,
               20000, 320);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: one private level, inclusive LLC, two sockets") {
    const result r =
        stress(platform::read_platform(config::load_yaml_text(two_socket_yaml("inclusive", true), "m.yaml")),
               7, 20000, 320);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: random replacement, victim LLC, two sockets") {
    const result r = stress(
        platform::read_platform(config::load_yaml_text(two_socket_yaml("victim", false, true), "m.yaml")), 8,
        20000, 320);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: random replacement, non-inclusive LLC, two sockets") {
    const result r = stress(platform::read_platform(config::load_yaml_text(
                                two_socket_yaml("non_inclusive", false, true), "m.yaml")),
                            9, 20000, 320);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}

TEST_CASE("coherence stress: three private levels, victim LLC, two sockets") {
    const result r = stress(platform::read_platform(config::load_yaml_text(
                                two_socket_yaml("victim", false, false, true), "m.yaml")),
                            10, 20000, 320);
    INFO(r.first_failure);
    CHECK(r.first_failure.empty());
}
