// Coherence regressions: deterministic scenarios that once broke the protocol (found in review), on the mini
// platform (1 socket, llc0 = cores 0,1; llc1 = cores 2,3; CPUs 0-3 are the first threads of cores 0-3).
// Each test states the correct outcome.
#include "models/common/run_simulation.h"
#include "models/system/machine.h"
#include "support/mini_platform.h"
#include "workloads/probes/probe_program.h"

#include <catch2/catch.hpp>

using namespace warmsched;
using models::line_state;
using models::mem_source;

namespace {
constexpr std::uint64_t line = 64;
constexpr double ns = 1000;

using rig = test::mini_rig;
} // namespace

// an LLC hit in the tag array grants S without snooping the one core that holds the line E/M.
TEST_CASE("inclusive LLC: a read of a line another core of the LLC modified is supplied by that core") {
    rig r("inclusive");
    models::ps_t read1 = 0, write2 = 0, read2 = 0;
    mem_source src1{}, src_w2{}, src2{};
    line_state writer_state{};
    r.run([&] {
        r.m.cpu(0).store(0);        // core 0: M (LLC tags M, inclusive)
        read1 = r.m.cpu(1).load(0); // core 1 reads the line core 0 modified
        src1 = r.m.cpu(1).last_source();
        writer_state = r.state(0, 0, 0); // core 0 should have been downgraded to S
        write2 = r.m.cpu(0).store(0);    // core 0 writes again: must invalidate core 1 (an upgrade)
        src_w2 = r.m.cpu(0).last_source();
        read2 = r.m.cpu(1).load(0); // core 1 reads the new value: must come from core 0
        src2 = r.m.cpu(1).last_source();
    });
    UNSCOPED_INFO("read1 " << read1 / ns << "ns " << models::to_string(src1) << ", writer state after read1 "
                           << static_cast<int>(writer_state) << ", write2 " << write2 / ns << "ns "
                           << models::to_string(src_w2) << ", read2 " << read2 / ns << "ns "
                           << models::to_string(src2));
    CHECK(writer_state == line_state::shared);
    CHECK(src1 == mem_source::peer_cache);
    CHECK(read1 == 25 * ns); // L3 20 + peer snoop 5
    CHECK(write2 > 1 * ns);  // not a silent L1 hit
    CHECK(src2 != mem_source::l1);
}

TEST_CASE(
    "non-inclusive LLC: a core that took E from the LLC and wrote silently is snooped by the next reader") {
    rig r("non_inclusive");
    line_state c0{}, c1{};
    models::ps_t read_after = 0;
    mem_source src_after{};
    r.run([&] {
        r.m.cpu(0).load(0);                                               // core 0: E
        for (std::uint64_t l : {4, 8, 12, 16}) r.m.cpu(0).load(l * line); // L2 set 0 overflows: line 0 -> L3
        r.m.cpu(0).load(0);                                               // L3 hit, non-inclusive keeps it; E
        r.m.cpu(0).store(0);                                              // silent E -> M
        r.m.cpu(1).load(0);                                               // L3 hit: S, core 0 not snooped
        c0 = r.state(0, 1, 0);
        c1 = r.state(1, 1, 0);
        r.m.cpu(0).store(0); // core 0 is still M: an L1 hit, core 1 keeps its stale copy
        read_after = r.m.cpu(1).load(0);
        src_after = r.m.cpu(1).last_source();
    });
    UNSCOPED_INFO("core0 " << static_cast<int>(c0) << " core1 " << static_cast<int>(c1) << "; core 1 re-read "
                           << read_after / ns << "ns from " << models::to_string(src_after));
    CHECK_FALSE((c0 == line_state::modified && c1 == line_state::shared));
    CHECK(src_after != mem_source::l1);
}

// an upgrade that goes to the home reports the source left in the LLC's reused home payload by
// the previous, unrelated request.
TEST_CASE("an upgrade reports the same source whatever the LLC did before") {
    rig r;
    mem_source a{}, b{};
    r.run([&] {
        r.m.cpu(0).load(0);  // llc0 E
        r.m.cpu(2).load(0);  // llc1 S, llc0 S
        r.m.cpu(0).store(0); // upgrade at the home: invalidates llc1
        a = r.m.cpu(0).last_source();
        r.m.cpu(2).load(64 * line);   // line 64 in llc1
        r.m.cpu(0).load(64 * line);   // llc0's last home request: a remote_llc transfer
        r.m.cpu(0).load(128 * line);  // llc0 E
        r.m.cpu(2).load(128 * line);  // both S
        r.m.cpu(0).load(192 * line);  // llc0's last home request: local_memory
        r.m.cpu(2).load(192 * line);  // llc1 gets it from llc0 ...
        r.m.cpu(2).load(64 * line);   // (llc1 hit)
        r.m.cpu(3).load(320 * line);  // llc1
        r.m.cpu(0).load(320 * line);  // llc0's last home request: remote_llc
        r.m.cpu(0).store(128 * line); // same kind of upgrade as the first
        b = r.m.cpu(0).last_source();
    });
    UNSCOPED_INFO("first upgrade: " << models::to_string(a) << ", second upgrade: " << models::to_string(b));
    CHECK(a == b); // the same operation should report the same source
    CHECK(a != mem_source::local_memory);
}

TEST_CASE("upgrade latency: LLC 20 + to home 15 + directory 2 + invalidation to llc1 15 + lookup 20 + ack 20 "
          "= 92 ns") {
    rig r;
    models::ps_t up = 0, rfo = 0, up2 = 0, dirty_read = 0;
    mem_source s_up{}, s_rfo{}, s_up2{}, s_dr{};
    r.run([&] {
        r.m.cpu(0).load(0);
        r.m.cpu(2).load(0);
        up = r.m.cpu(0).store(0); // upgrade, invalidates llc1
        s_up = r.m.cpu(0).last_source();
        r.m.cpu(2).store(line);
        rfo = r.m.cpu(0).store(line); // RFO of a line M in core 2
        s_rfo = r.m.cpu(0).last_source();
        r.m.cpu(0).load(2 * line);
        r.m.cpu(1).load(2 * line);
        r.m.cpu(2).load(2 * line);
        up2 = r.m.cpu(0).store(2 * line); // peer core 1 S, llc1 S
        s_up2 = r.m.cpu(0).last_source();
        r.m.cpu(2).store(3 * line);
        dirty_read = r.m.cpu(0).load(3 * line);
        s_dr = r.m.cpu(0).last_source();
    });
    INFO("upgrade " << up / ns << " " << models::to_string(s_up) << "; rfo " << rfo / ns << " "
                    << models::to_string(s_rfo) << "; upgrade with peer " << up2 / ns << " "
                    << models::to_string(s_up2) << "; dirty read " << dirty_read / ns << " "
                    << models::to_string(s_dr));
    // L3 20 + llc0->home 15 + dir 2 + home->llc1 15 + llc1 20 + core snoop 5 + ack llc1->llc0 20 = 97 ns.
    CHECK(up == 97 * ns);
}

// the write-back of a dirty line downgraded by a 3-hop read reaches memory without crossing the fabric.
TEST_CASE("a dirty line read by another LLC is forwarded and also written back across the fabric") {
    rig r;
    double before = 0, after = 0;
    std::uint64_t mem_writes = 0;
    auto fabric_bytes = [&] {
        double b = 0;
        for (unsigned i = 0; i < r.m.graph().links().size(); ++i)
            b += r.m.interconnect().link(i).total_bytes();
        return b;
    };
    r.run([&] {
        r.m.cpu(2).store(0); // core 2 / llc1: M
        before = fabric_bytes();
        const auto w0 = r.m.memory_at(0).stats().writes;
        r.m.cpu(0).load(
            0); // 3-hop: llc1 forwards to llc0 (llc1 -> hub -> llc0: 2 links x 64 B), memory written
        mem_writes = r.m.memory_at(0).stats().writes - w0;
        after = fabric_bytes();
    });
    INFO("fabric bytes for the dirty 3-hop read: " << after - before << ", memory writes: " << mem_writes);
    CHECK(mem_writes == 1);
    CHECK(after - before == 2 * 64 + 2 * 64); // forward (llc1->hub->llc0) + write-back (llc1->hub->memory)
}

// with three private levels, a victim of a middle level is not back-invalidated from the levels above it.
TEST_CASE("three private levels: a middle-level victim leaves the levels above too") {
    std::string y = test::mini_platform_yaml("victim");
    const std::string l2 =
        "  - {name: l2, shared_by: core, size: 1KiB, associativity: 4, latency: 4cycles}\n";
    y.replace(y.find(l2), l2.size(),
              l2 + "  - {name: l2b, shared_by: core, size: 2KiB, associativity: 4, latency: 8cycles}\n");
    const std::string l3 = "size: 4KiB, associativity: 4, latency: 20cycles";
    y.replace(y.find(l3), l3.size(), "size: 8KiB, associativity: 4, latency: 20cycles");
    models::machine m("system", platform::read_platform(config::load_yaml_text(y, "m.yaml")), {});
    bool in_l1 = false, in_l2 = true;
    line_state l2b_state{};
    std::uint64_t mem_writes = 0;
    workloads::spawn_program("t", [&] {
        auto& h = m.cpu(0);
        h.store(0); // line 0: M in L1, L2, L2b
        for (std::uint64_t l : {4, 8, 12, 16}) {
            h.load(l * line); // L2 set 0 fills up (L1 set 0 too)
            h.store(0);       // line 0 stays hot in L1 (L1 hits do not refresh L2's LRU)
        }
        const auto& t1 = m.core_at(0).level_tags(0);
        const auto& t2 = m.core_at(0).level_tags(1);
        const auto& t3 = m.core_at(0).level_tags(2);
        in_l1 = t1.find(0) >= 0;
        in_l2 = t2.find(0) >= 0;
        l2b_state = t3.find(0) >= 0 ? t3.state(0, t3.find(0)) : line_state::invalid;
        // Push line 0 out of everything: its dirtiness must reach memory.
        for (std::uint64_t l = 1; l < 400; ++l) h.load(l * 8 * line);
        mem_writes = m.memory_at(0).stats().writes;
    });
    models::run_simulation();
    INFO("after the L2 eviction: in L1 " << in_l1 << ", in L2 " << in_l2 << ", L2b state "
                                         << static_cast<int>(l2b_state) << "; memory writes " << mem_writes);
    CHECK_FALSE((in_l1 && !in_l2)); // inclusion L1 within L2
}
