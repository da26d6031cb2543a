// The cache hierarchy, coherence directory, fabric and memory as one machine (the mini test platform):
// where each access is served and what it costs, with the latencies coming from the configured levels
// and fabric paths. At 1 GHz: L1 1 ns, L2 4 ns, L3 20 ns, peer snoop +5 ns, atomic +10 ns; a DRAM load
// is L3 20 + llc->hub 10 + hub->memory 5 + directory 2 + DRAM 50 + back 15 = 102 ns.
#include "models/system/machine.h"
#include "support/mini_platform.h"
#include "workloads/probes/probe_program.h"

#include <tlm_utils/simple_initiator_socket.h>

#include <catch2/catch.hpp>

using namespace warmsched;
using models::mem_source;

namespace {
constexpr std::uint64_t line = 64;
constexpr double ns = 1000; // ps per ns

using rig = test::mini_rig;
} // namespace

TEST_CASE("a load misses to memory, then hits in L1, an L1 victim is an L2 hit") {
    rig r;
    std::vector<models::ps_t> lat;
    std::vector<mem_source> src;
    r.run([&] {
        auto& h = r.m.cpu(0);
        auto go = [&](std::uint64_t l) {
            lat.push_back(h.load(l * line));
            src.push_back(h.last_source());
        };
        go(0);        // cold: memory
        go(0);        // L1
        go(2), go(4); // L1 has 2 sets x 2 ways: lines 0, 2, 4 share set 0 -> 0 leaves L1
        go(0);        // L2
    });
    CHECK(lat[0] == 102 * ns);
    CHECK(src[0] == mem_source::local_memory);
    CHECK(lat[1] == 1 * ns);
    CHECK(src[1] == mem_source::l1);
    CHECK(lat[4] == 4 * ns);
    CHECK(src[4] == mem_source::l2);
    CHECK(r.m.core_at(0).level_stats(0).evictions == 2); // 0 by 4, then 2 by 0
}

TEST_CASE("victim L3: filled by L2 evictions, and a hit moves the line back up") {
    rig r("victim");
    models::ps_t again = 0;
    mem_source src{};
    bool in_l3_after_fill = false, in_l3_after_hit = true;
    r.run([&] {
        auto& h = r.m.cpu(0);
        for (std::uint64_t l : {0, 4, 8, 12, 16})
            h.load(l * line); // L2: 4 sets x 4 ways; the 5th evicts line 0
        in_l3_after_fill = r.m.llc_at(0).tags().find(0) >= 0;
        again = h.load(0);
        src = h.last_source();
        in_l3_after_hit = r.m.llc_at(0).tags().find(0) >= 0;
    });
    CHECK(in_l3_after_fill);
    CHECK(r.m.llc_at(0).stats().victim_fills >= 1);
    CHECK(again == 20 * ns);
    CHECK(src == mem_source::llc);
    CHECK_FALSE(in_l3_after_hit);
}

TEST_CASE("inclusive L3: an eviction back-invalidates the cores that hold the line") {
    rig r("inclusive");
    models::ps_t again = 0;
    r.run([&] {
        r.m.cpu(0).load(0); // core 0 holds line 0 (L1, L2, L3)
        for (std::uint64_t l : {16, 32, 48, 64}) r.m.cpu(1).load(l * line); // L3 set 0 overflows
        again = r.m.cpu(0).load(0);
    });
    CHECK(r.m.llc_at(0).stats().invalidations >= 1);
    CHECK(again == 102 * ns); // gone from core 0's private caches too
}

TEST_CASE("SMT siblings share the core's L1") {
    rig r;
    models::ps_t lat = 0;
    r.run([&] {
        r.m.cpu(0).load(0);
        lat = r.m.cpu(4).load(0); // CPU 4 is CPU 0's sibling
    });
    CHECK(lat == 1 * ns);
}

TEST_CASE(
    "a read of a line another LLC holds is a cache-to-cache transfer, a write invalidates other copies") {
    rig r;
    models::ps_t remote_read = 0, peer_read = 0, reread = 0;
    mem_source remote_src{}, peer_src{}, reread_src{};
    std::uint64_t sharers_before = 0, sharers_after = 0;
    r.run([&] {
        r.m.cpu(0).load(0);               // core 0 / llc0: exclusive
        remote_read = r.m.cpu(2).load(0); // core 2 / llc1: from llc0's core 0
        remote_src = r.m.cpu(2).last_source();
        peer_read = r.m.cpu(1).load(0); // core 1 / llc0: from core 0 under the same LLC
        peer_src = r.m.cpu(1).last_source();
        sharers_before = r.m.home_at(0).sharers(0);
        r.m.cpu(0).store(0); // invalidates core 1 and llc1
        sharers_after = r.m.home_at(0).sharers(0);
        reread = r.m.cpu(2).load(0);
        reread_src = r.m.cpu(2).last_source();
    });
    // 3 hops: llc1 L3 20 + to home 15 + dir 2 + home->llc0 15 + llc0 20 + peer snoop 5 + llc0->llc1 20 = 97
    // ns.
    CHECK(remote_read == 97 * ns);
    CHECK(remote_src == mem_source::remote_llc);
    CHECK(peer_read == 25 * ns);
    CHECK(peer_src == mem_source::peer_cache);
    CHECK(sharers_before == 0b11);
    CHECK(sharers_after == 0b01);
    CHECK(reread_src == mem_source::remote_llc);
    CHECK(r.m.core_at(1).level_stats(0).invalidations == 1);
    CHECK(r.m.home_at(0).stats().invalidations >= 1);
}

TEST_CASE("atomics: one-way transfer between cores is atomic + L3 + peer snoop, or 3 hops across LLCs") {
    rig r;
    models::ps_t same_llc = 0, smt = 0, cross = 0;
    r.run([&] {
        r.m.cpu(0).atomic(0);
        same_llc = r.m.cpu(1).atomic(0);
        smt = r.m.cpu(5).atomic(0); // core 1's sibling: its L1 has the line in M
        cross = r.m.cpu(2).atomic(0);
    });
    CHECK(same_llc == (10 + 20 + 5) * ns);
    CHECK(smt == (10 + 1) * ns);
    CHECK(cross == (10 + 97) * ns);
}

TEST_CASE("dirty lines are written back to memory when they leave the last cache") {
    rig r;
    r.run([&] {
        for (std::uint64_t l = 0; l < 1024; ++l) r.m.cpu(0).store(l * line); // 64 KiB through 5 KiB of cache
    });
    CHECK(r.m.core_at(0).level_stats(1).writebacks > 900);
    CHECK(r.m.memory_at(0).stats().writes > 900);
    CHECK(r.m.llc_at(0).stats().writebacks > 900);
}

TEST_CASE("memory bandwidth limits streams from several cores") {
    rig r;
    double gbps = 0;
    std::vector<models::ps_t> end(4);
    r.run([&] {
        std::vector<sc_core::sc_process_handle> threads;
        for (unsigned c = 0; c < 4; ++c)
            threads.push_back(workloads::spawn_program("s", [&, c] {
                std::vector<models::mem_access> a(16384);
                for (std::uint64_t i = 0; i < a.size(); ++i) a[i] = {((c + 1ull) << 30) + i * line, false};
                r.m.cpu(c).stream(a.data(), a.size(), true);
                r.m.cpu(c).sync();
                end[c] = r.m.cpu(c).now();
            }));
        for (auto& t : threads) workloads::join(t);
        const auto last = *std::max_element(end.begin(), end.end());
        gbps = 4.0 * 16384 * 64 / static_cast<double>(last) * 1e3;
    });
    for (auto e : end) UNSCOPED_INFO("thread ended at " << e / 1e6 << " us");
    // Offered: 4 cores x 4 misses x 64 B / 102 ns = 10 GB/s; the channel gives 6.4 GB/s.
    CHECK(gbps == Approx(6.4).epsilon(0.05));
    CHECK(r.m.memory_at(0).channels().queued_ps() > 0);
}

namespace {
// An initiator outside the machine (a user's TLM-2.0 model, say) with a socket into a core.
struct outside_initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<outside_initiator> socket;
    explicit outside_initiator(const sc_core::sc_module_name& n) : sc_module(n), socket("socket") {}
    // A load of `addr` at the current time; returns its latency and where it was served.
    std::pair<models::ps_t, mem_source> load(std::uint64_t addr, std::uint32_t cpu) {
        tlm::tlm_generic_payload gp;
        models::mem_txn txn;
        gp.set_extension(&txn);
        gp.set_address(addr);
        gp.set_command(tlm::TLM_READ_COMMAND);
        txn.op = models::mem_op::load;
        txn.line = addr / line;
        txn.cpu = cpu;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        socket->b_transport(gp, delay);
        gp.clear_extension(&txn);
        CHECK(gp.get_response_status() == tlm::TLM_OK_RESPONSE);
        return {delay.value(), txn.source};
    }
};
} // namespace

TEST_CASE(
    "a TLM-2.0 initiator outside the machine is served through a core's socket as the core's harts are") {
    rig r;
    outside_initiator o("outside");
    o.socket.bind(r.m.core_at(1).cpu_side); // the socket the harts of core 1 are bound to
    const unsigned cpu1 = r.m.topo().cpu_of(1, 0);
    std::pair<models::ps_t, mem_source> through_socket, again;
    models::ps_t by_hart = 0;
    mem_source hart_source{};
    r.run([&] {
        auto& h0 = r.m.cpu(0);
        h0.load(0);
        h0.load(8 * line);
        through_socket = o.load(0, cpu1); // core 0 holds line 0: a peer supplies it
        by_hart = r.m.cpu(cpu1).load(8 * line);
        hart_source = r.m.cpu(cpu1).last_source();
        again = o.load(0, cpu1); // now in core 1's L1
    });
    CHECK(through_socket.second == mem_source::peer_cache);
    CHECK(through_socket.first == 25 * ns); // L3 20 + peer snoop 5
    CHECK(hart_source == through_socket.second);
    CHECK(by_hart == through_socket.first);
    CHECK(again.second == mem_source::l1);
    CHECK(again.first == 1 * ns);
}
