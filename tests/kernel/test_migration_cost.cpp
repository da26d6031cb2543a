// The cost-of-migration report: misses on lines a task had in its previous CPU's caches, and misses
// on lines a co-scheduled task evicted, counted from line ownership in the hardware model.
//
// Most cases run on the 8-CPU mini platform (1 GHz, base CPI 1; 64-byte lines): CPUs 0-3 are the first
// threads of cores 0-3 and CPUs 4-7 their SMT siblings; cores 0-1 share llc0, cores 2-3 llc1.
//   L1d  256 B = 4 lines  (2 sets x 2 ways)
//   L2   1 KiB = 16 lines (4 sets x 4 ways), private to the core, inclusive of L1
//   L3   4 KiB = 64 lines (16 sets x 4 ways) per LLC, a victim cache of the L2s
// A task's working set of 8 lines (512 B, walked as a stream) fits its core's L2 with room for the
// kernel lines a switch touches, and not in L1, so a walk always reaches the L2.
#include "base/stats/stats_writers.h"
#include "sim/migration_report.h"
#include "support/cli_runner.h"
#include "support/file_text.h"
#include "support/kernel_rig.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

using namespace warmsched;
using scheduler::migration_cause;
using scheduler::task_state;
using workloads::migration_distance;
using workloads::miss_origin;
using workloads::op;

using warmsched::test::file_text;

namespace {
constexpr scheduler::nsec ms = 1'000'000, us = 1'000;
constexpr std::uint64_t line = 64;

std::uint64_t from(const workloads::miss_tally& t, miss_origin o) {
    return t.misses[static_cast<int>(o)];
}

workloads::memory_profile stream_of(std::uint64_t lines) {
    workloads::memory_profile p;
    p.working_set = lines * line;
    p.pattern = workloads::access_pattern::stream;
    p.accesses_per_kilo_instruction = 200;
    return p;
}

// A task pinned to CPU 0 walks 8 lines 500 times (20,000 instructions at 200 accesses per thousand),
// sleeps 1 ms, and while it sleeps its affinity is changed to `to` alone; the timer's wakeup moves it
// there (select_task_rq: the previous CPU is no longer allowed) -- a wakeup migration through the real
// scheduler path. It then walks the lines 10 more times and exits.
struct moved_task {
    test::kernel_rig r{test::rig_config(scheduler::kernel_version::eevdf_v6_12)};
    workloads::memory_profile ws = stream_of(8);
    workloads::kernel_task* t = nullptr;

    explicit moved_task(unsigned to) {
        t = &r.start("walker", {op::compute(20'000, &ws), op::sleep(1 * ms), op::compute(400, &ws)}, 1, 0);
        r.k.run(500 * us);
        REQUIRE(t->t.state == task_state::sleeping);
        REQUIRE(t->t.cpu == 0);
        t->t.allowed = test::kernel_rig::only(to);
        r.k.run(10 * ms);
        REQUIRE(t->t.state == task_state::dead);
        REQUIRE(t->t.stats.nr_migrations == 1);
    }
    const workloads::migration_cost& cost() const { return (*r.k.migration_costs()); }
    const workloads::migration_cost::migration_class& moved(migration_distance d) const {
        return cost().at(migration_cause::wakeup, d);
    }
};

// The lines of the task's own that were in CPU 0's caches when it moved: its 8 working-set lines
// and the two lines of its kernel stack that every switch touches. Its task_struct line is not one
// of them: the timer's wakeup wrote it last, from CPU 0's idle loop (no task), so it is nobody's.
constexpr std::uint64_t had_lines = 8 + 2;
} // namespace

TEST_CASE("a move to the SMT sibling keeps the core's caches: no refill") {
    moved_task m(4);
    const auto& c = m.moved(migration_distance::smt_sibling);
    CHECK(c.migrations == 1);
    CHECK(c.refill.total() == 0);
    CHECK(m.cost().stacking().total() == 0);
}

TEST_CASE("a move within the LLC refetches the task's lines from the LLC or the old core") {
    moved_task m(1);
    const auto& c = m.moved(migration_distance::same_llc);
    CHECK(c.migrations == 1);
    // Every line it had is fetched once on core 1 (the new stint owns the line after that), from the
    // old core's L2 through the LLC (peer) or from the victim L3 -- "own L3" either way.
    CHECK(c.refill.total() == had_lines);
    CHECK(from(c.refill, miss_origin::own_llc) == had_lines);
    // 20 cycles of L3 (+5 when core 0 supplies it) at 1 GHz: 20-25 ns each, plus the L1/L2 lookups.
    const double per_miss_ns = static_cast<double>(c.refill.stall()) / 1e3 / static_cast<double>(had_lines);
    CHECK(per_miss_ns >= 20);
    CHECK(per_miss_ns < 40);
    for (auto d :
         {migration_distance::smt_sibling, migration_distance::other_llc, migration_distance::other_node})
        CHECK(m.moved(d).migrations == 0);
}

TEST_CASE("a move to the other LLC refetches the task's lines from the other L3") {
    moved_task m(2);
    const auto& c = m.moved(migration_distance::other_llc);
    CHECK(c.migrations == 1);
    // llc1 misses, the directory forwards each line from llc0's domain: a cache-to-cache transfer.
    CHECK(c.refill.total() == had_lines);
    CHECK(from(c.refill, miss_origin::other_llc) == had_lines);
    // Hub-to-LLC links of 10 ns each way, the 2 ns directory and the L3 lookups: well above 25 ns.
    const double per_miss_ns = static_cast<double>(c.refill.stall()) / 1e3 / static_cast<double>(had_lines);
    CHECK(per_miss_ns > 40);
    CHECK(m.cost().stacking().total() == 0);
}

TEST_CASE("a forked child placed on another LLC fetches the task_struct and stack the fork wrote") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    workloads::memory_profile ws = stream_of(8);
    auto child = std::make_shared<workloads::spawn_spec>();
    child->comm = "child";
    child->allowed = test::kernel_rig::only(2); // fork placement may only pick CPU 2
    child->body = std::make_shared<workloads::scripted_program>(std::vector<op>{op::compute(2'000, &ws)});
    auto& parent = r.start("parent", {op::fork(child), op::wait_children()}, 1, 0, false);
    r.k.run(10 * ms);
    REQUIRE(parent.t.state == task_state::dead);
    const auto& c = (*r.k.migration_costs()).at(migration_cause::fork, migration_distance::other_llc);
    CHECK(c.migrations == 1);
    // copy_process wrote one task_struct line and one stack line on CPU 0 for the child; the child's
    // first switch on CPU 2 reads both (its fresh working set was never anywhere: no refill).
    CHECK(c.refill.total() == 2);
    CHECK(from(c.refill, miss_origin::other_llc) == 2);
}

// Stacking: tasks pinned to CPU 0 walking 12 lines each (3 per L2 set). Alone, a task's 12 lines and
// the few kernel lines fit the 16-line L2: it misses once per line, on its own. Two tasks take turns
// (EEVDF slices end at ticks, every 4 ms): 6 working-set lines per 4-way set, so while one runs the
// other's lines leave the L2 for the victim L3 (64 lines: all 24 stay there). When a task runs again
// at most one of its 3 lines per set is still in the L2; it refetches at least 2 per set (8 lines)
// from the L3, and at most its 12 lines plus the 2 stack lines, per switch back in.
TEST_CASE("a task alone on its CPU has no stacking misses") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    workloads::memory_profile ws = stream_of(12);
    auto& a = r.start("a", {op::compute(20'000'000, &ws)}, 1, 0); // 20 ms of execution
    r.k.run(200 * ms);
    REQUIRE(a.t.state == task_state::dead);
    CHECK((*r.k.migration_costs()).stacking().total() == 0);
}

TEST_CASE("two tasks stacked on one CPU refetch the lines the other evicted, from the victim L3") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    workloads::memory_profile ws = stream_of(12);
    auto& a = r.start("a", {op::compute(20'000'000, &ws)}, 1, 0);
    auto& b = r.start("b", {op::compute(20'000'000, &ws)}, 1, 0);
    r.k.run(200 * ms);
    REQUIRE(a.t.state == task_state::dead);
    REQUIRE(b.t.state == task_state::dead);
    const auto& c = (*r.k.migration_costs());
    const auto& s = c.stacking();
    // Switches back in: each preemption of a or b is followed by a switch back to it.
    const std::uint64_t back_in = a.t.stats.nr_involuntary_switches + b.t.stats.nr_involuntary_switches;
    INFO("switches back in " << back_in << ", stacking misses " << s.total());
    REQUIRE(back_in >= 4);
    CHECK(s.total() >= 8 * (back_in - 1));
    CHECK(s.total() <= (12 + 2) * back_in);
    CHECK(from(s, miss_origin::own_llc) == s.total()); // the victim L3 kept them
    CHECK(c.stacking_by(workloads::evictor_place::same_cpu).total() == s.total());
    for (unsigned d = 0; d < workloads::migration_cost::num_distances; ++d)
        CHECK(c.at(migration_cause::wakeup, static_cast<migration_distance>(d)).migrations == 0);
}

// The tracker on its own, fed the events the model and the scheduler send: a two-node layout of the
// mini machine's shape (llc0 on node 0, llc1 on node 1).
namespace {
scheduler::cpu_layout two_node_layout() {
    scheduler::cpu_layout l;
    l.core_of = {0, 1, 2, 3, 0, 1, 2, 3};
    l.llc_of = {0, 0, 1, 1, 0, 0, 1, 1};
    l.node_of = {0, 0, 1, 1, 0, 0, 1, 1};
    l.siblings = {{0, 4}, {1, 5}, {2, 6}, {3, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    return l;
}
} // namespace

TEST_CASE("every cause and distance is a class of its own, and a line counts once per migration") {
    workloads::migration_cost c(two_node_layout(), 1);
    using models::mem_source;
    const std::array<migration_cause, 7> causes{migration_cause::wakeup,
                                                migration_cause::fork,
                                                migration_cause::exec,
                                                migration_cause::periodic_balance,
                                                migration_cause::newidle_balance,
                                                migration_cause::nohz_balance,
                                                migration_cause::active_balance};
    CHECK(c.distance(0, 4) == migration_distance::smt_sibling);
    CHECK(c.distance(0, 1) == migration_distance::same_llc);
    CHECK(c.distance(0, 2) == migration_distance::other_node);
    std::uint32_t task = 1;
    for (auto why : causes) {
        const std::uint64_t base = 1000 * task;
        for (std::uint64_t l = 0; l < 5; ++l) c.missed(0, task, base + l, mem_source::local_memory, 100'000);
        c.task_migrated(task, 0, 2, why); // to the other node
        for (std::uint64_t l = 0; l < 5; ++l) c.missed(2, task, base + l, mem_source::remote_socket, 200'000);
        for (std::uint64_t l = 0; l < 5; ++l) c.missed(2, task, base + l, mem_source::llc, 10'000); // again
        const auto& k = c.at(why, migration_distance::other_node);
        CHECK(k.migrations == 1);
        CHECK(k.refill.total() == 5);
        CHECK(from(k.refill, miss_origin::other_llc) == 5);
        CHECK(k.refill.stall() == 5 * 200'000);
        ++task;
    }
    // A second move before touching anything: the lines are still those of the core it ran on.
    c.missed(0, 50, 7, mem_source::local_memory, 1);
    c.task_migrated(50, 0, 1, migration_cause::wakeup);
    c.task_migrated(50, 1, 2, migration_cause::periodic_balance);
    c.missed(2, 50, 7, mem_source::remote_socket, 1);
    CHECK(c.at(migration_cause::periodic_balance, migration_distance::other_node).refill.total() == 6);
    // After running on core 1, a line from core 0 is no longer "the previous CPU's": not attributed.
    c.missed(0, 51, 8, mem_source::local_memory, 1);
    c.task_migrated(51, 0, 1, migration_cause::wakeup);
    c.missed(1, 51, 9, mem_source::local_memory, 1);
    c.task_migrated(51, 1, 2, migration_cause::active_balance);
    c.missed(2, 51, 8, mem_source::local_memory, 1);
    CHECK(c.unattributed().total() == 1);
    CHECK(c.at(migration_cause::active_balance, migration_distance::other_node).refill.total() == 5);
}

TEST_CASE("stacking is charged to the other task's fill, never to the task's own or the kernel's") {
    workloads::migration_cost c(two_node_layout(), 1);
    using models::mem_source;
    c.missed(0, 1, 100, mem_source::local_memory, 1);
    c.missed(0, 1, 101, mem_source::local_memory, 1);
    c.missed(0, 1, 102, mem_source::local_memory, 1);
    c.left_core(0, 100, 1, 0);      // its own capacity miss
    c.left_core(0, 101, 2, 4);      // task 2 on the SMT sibling
    c.left_core(0, 102, 0, 0);      // kernel work with no task
    c.left_llc(0, 102, 3, 1, true); // then task 3 on core 1 pushes it out of the LLC
    c.left_core(2, 100, 9, 2);      // another core: not where task 1 had it
    c.missed(0, 1, 100, mem_source::llc, 20'000);
    c.missed(0, 1, 101, mem_source::llc, 20'000);
    c.missed(0, 1, 102, mem_source::local_memory, 90'000);
    CHECK(c.stacking().total() == 2);
    CHECK(from(c.stacking(), miss_origin::own_llc) == 1);
    CHECK(from(c.stacking(), miss_origin::memory) == 1);
    CHECK(c.stacking_by(workloads::evictor_place::smt_sibling).total() == 1);
    CHECK(c.stacking_by(workloads::evictor_place::other_core).total() == 1);
    CHECK(c.stacking().stall() == 110'000);
    c.missed(0, 1, 101, mem_source::llc, 20'000); // fetched back: counted once
    CHECK(c.stacking().total() == 2);
}

TEST_CASE("a task moved again before it ran is classed by how far it moved from where it ran") {
    workloads::migration_cost c(two_node_layout(), 1);
    using models::mem_source;
    for (std::uint64_t l = 0; l < 3; ++l) c.missed(0, 1, l, mem_source::local_memory, 1);
    c.task_migrated(1, 0, 1, migration_cause::wakeup);          // woken onto CPU 1 ...
    c.task_migrated(1, 1, 5, migration_cause::newidle_balance); // ... pulled by its SMT sibling first
    for (std::uint64_t l = 0; l < 3; ++l) c.missed(5, 1, l, mem_source::peer_cache, 25'000);
    CHECK(c.at(migration_cause::wakeup, migration_distance::same_llc).migrations == 1);
    // Its lines are on core 0: the pull moved them from core 0 to core 1, not between siblings.
    CHECK(c.at(migration_cause::newidle_balance, migration_distance::smt_sibling).migrations == 0);
    const auto& k = c.at(migration_cause::newidle_balance, migration_distance::same_llc);
    CHECK(k.migrations == 1);
    CHECK(from(k.refill, miss_origin::own_llc) == 3);
}

TEST_CASE("only lines still cached when the task moved are refills") {
    workloads::migration_cost c(two_node_layout(), 1);
    using models::mem_source;
    for (std::uint64_t l = 0; l < 4; ++l) c.missed(0, 1, l, mem_source::local_memory, 1);
    c.left_llc(0, 0, 1, 0, true);  // its own fills push line 0 out of llc0's domain: gone before the move
    c.left_llc(0, 1, 1, 0, false); // line 1 leaves the L3 but core 0 still holds it
    c.task_migrated(1, 0, 2, migration_cause::wakeup);
    c.left_llc(0, 2, 7, 1, true); // after the move, task 7 on core 1 pushes line 2 out of the domain
    for (std::uint64_t l = 0; l < 4; ++l)
        c.missed(2, 1, l, l == 1 || l == 3 ? mem_source::remote_llc : mem_source::local_memory, 1);
    const auto& k = c.at(migration_cause::wakeup, migration_distance::other_node);
    CHECK(k.refill.total() == 3); // lines 1, 2 and 3 were in its old caches when it moved
    CHECK(from(k.refill, miss_origin::memory) == 1);
    CHECK(from(k.refill, miss_origin::other_llc) == 2);
    CHECK(c.unattributed().total() == 0);
}

TEST_CASE("the report prints a row per class that happened, the stacking cost, and the sampling caveat") {
    workloads::migration_cost c(two_node_layout(), 8);
    c.missed(0, 1, 8, models::mem_source::local_memory, 1);
    c.task_migrated(1, 0, 1, migration_cause::newidle_balance);
    c.missed(1, 1, 8, models::mem_source::peer_cache, 25'000);
    std::ostringstream out, stats;
    stats::group registry;
    sim::add_migration_stats(registry.child("kernel"), c);
    sim::print_migration_report(out, registry.at("kernel")); // the report is a view of the stats
    stats::write_text(stats, registry);
    INFO(out.str());
    CHECK(out.str().find("--- cost of migrations") != std::string::npos);
    CHECK(out.str().find("set sampling 1 in 8") != std::string::npos);
    std::istringstream lines(out.str());
    std::string row, l;
    while (std::getline(lines, l))
        if (l.rfind("newidle balance ", 0) == 0) row = l;
    CHECK(row.find(" same LLC ") != std::string::npos);
    CHECK(row.find(" 1  0 / 1 / 0 / 0 ") != std::string::npos); // 1 refill miss, from own L3
    CHECK(out.str().find("wakeup ") == std::string::npos);      // no row for what did not happen
    CHECK(out.str().find("--- cost of stacking") != std::string::npos);
    CHECK(stats.str().find("kernel.migrationCost.newidleBalance.sameLLC.refill.misses::ownL3") !=
          std::string::npos);
    CHECK(stats.str().find("kernel.stacking.misses ") != std::string::npos);
}

namespace {
std::string run_cli(const std::string& args) { // stdout of a run that succeeds
    const test::cli_result r = test::run_cli(args);
    REQUIRE(r.status == 0);
    return r.out;
}
} // namespace

TEST_CASE("every workload run prints the report after the run summary and writes it to the results") {
    const auto dir = std::filesystem::temp_directory_path() / "warmsched-migration-cost-out";
    const std::string out = run_cli("run --out " + dir.string() + " -- hackbench -p -g 1 -l 10");
    const auto summary = out.find("--- warmsched:");
    const auto report = out.find("--- cost of migrations");
    REQUIRE(summary != std::string::npos);
    REQUIRE(report != std::string::npos);
    CHECK(summary < report);
    CHECK(out.find("--- cost of stacking") > report);
    CHECK(out.find("\nfork ") != std::string::npos); // hackbench's children are placed by fork
    CHECK(file_text(dir / "report.txt").find("--- cost of migrations") != std::string::npos);
    const std::string stats = file_text(dir / "stats.txt");
    CHECK(stats.find("kernel.migrationCost.fork.") != std::string::npos);
    CHECK(stats.find("kernel.stacking.stallSeconds") != std::string::npos);
}
