// The simulated kernel's mechanisms, on the 8-CPU mini platform (1 GHz, base CPI 1: 1e6 instructions
// = 1 ms): pipe and socket buffer limits, timers, futexes, fork/exit/wait, SMT sharing, and the cache
// traffic of communication (the buffer lines really move between the two ends' caches).
#include "support/kernel_rig.h"

#include <catch2/catch.hpp>

#include <set>

using namespace warmsched;
using scheduler::task_state;
using workloads::op;

namespace {
constexpr scheduler::nsec ms = 1'000'000, us = 1'000;
} // namespace

TEST_CASE("a pipe holds 64 KiB: a writer with no reader blocks after 65536 bytes") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& ch = r.k.make_channel(workloads::channel_kind::pipe);
    auto& w = r.start("writer", {op::write(ch, 1024)}, 100, 0);
    auto& rd = r.start("reader", {op::sleep(10 * ms), op::read(ch, 1024)}, 1, 1);
    r.k.run(5 * ms);
    CHECK(w.t.state == task_state::sleeping);
    CHECK(ch.used() == 65536);
    CHECK(ch.writers.size() == 1);
    CHECK(ch.pipe_slots_used() == 16); // four 1024-byte writes merged into each page
    r.k.run(20 * ms);
    CHECK(rd.t.state == task_state::dead);
    // The read took 1024 bytes of the first page and freed no slot (fs/pipe.c frees a buffer's page only
    // when it is empty): the writer, woken because the read began on a full pipe, finds it still full and
    // waits again.
    CHECK(w.t.state == task_state::sleeping);
    CHECK(ch.used() == 65536 - 1024);
    CHECK(ch.pipe_slots_used() == 16);
    CHECK(w.t.stats.nr_voluntary_switches == 2);
}

TEST_CASE("a pipe is full when its 16 slots are taken: 3000-byte writes do not merge, 48000 bytes fill it") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& ch = r.k.make_channel(workloads::channel_kind::pipe);
    auto& w = r.start("writer", {op::write(ch, 3000)}, 100, 0);
    r.k.run(5 * ms);
    CHECK(w.t.state == task_state::sleeping);
    CHECK(ch.pipe_slots_used() == 16);
    CHECK(ch.used() == 16 * 3000);
}

TEST_CASE("small writes to a pipe that is not empty merge into its last page: 40 of 100 bytes fill one") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& ch = r.k.make_channel(workloads::channel_kind::pipe);
    r.start("writer", {op::write(ch, 100)}, 41, 0);
    r.k.run(5 * ms);
    CHECK(ch.used() == 4100);
    CHECK(ch.pipe_slots_used() == 2); // 40 x 100 bytes in the first page, the 41st in a second
    CHECK(ch.pipe_pages_touched() == 2);
}

TEST_CASE("a pipe whose reader keeps up writes every message into the same page (tmp_page)") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& ch = r.k.make_channel(workloads::channel_kind::pipe);
    auto& back = r.k.make_channel(workloads::channel_kind::pipe);
    // Ping-pong: each message is read before the next is written, so the pipe is empty at every write:
    // the page the read released (kept as tmp_page) takes the next message, at offset 0.
    auto& a = r.start("ping", {op::write(ch, 100), op::read(back, 100)}, 500, 0);
    auto& b = r.start("pong", {op::read(ch, 100), op::write(back, 100)}, 500, 4);
    r.k.run(200 * ms);
    REQUIRE(a.t.state == task_state::dead);
    REQUIRE(b.t.state == task_state::dead);
    CHECK(ch.pipe_pages_touched() == 1);
    CHECK(back.pipe_pages_touched() == 1);
    CHECK(ch.empty());
}

TEST_CASE("a socket's send buffer is charged with each message's truesize") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& ch = r.k.make_channel(workloads::channel_kind::socket);
    auto& w = r.start("writer", {op::write(ch, 100)}, 1000, 0);
    r.k.run(5 * ms);
    CHECK(w.t.state == task_state::sleeping);
    // 100 bytes round up to 128 plus 576 of sk_buff overhead; sock_alloc_send_pskb allocates while
    // sk_wmem_alloc < sk_sndbuf: 302 messages take 212608 of the 212992 bytes, so a 303rd goes in.
    CHECK(ch.used() == 303 * (128 + 576));
}

TEST_CASE("an AF_UNIX socket wakes every blocked writer at once when a quarter of its buffer is taken") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& ch = r.k.make_channel(workloads::channel_kind::socket);
    std::vector<workloads::kernel_task*> writers;
    for (unsigned cpu = 0; cpu < 3; ++cpu) writers.push_back(&r.start("writer", {op::write(ch, 100)}, 1000, cpu));
    // unix_writable: sk_wmem_alloc << 2 <= sk_sndbuf (53248 bytes: 75 messages). The reader waits until
    // the writers fill the buffer, reads it down to 76 messages, waits, and reads one more.
    std::vector<op> reads{op::sleep(5 * ms)};
    for (int i = 0; i < 303 - 76; ++i) reads.push_back(op::read(ch, 100));
    reads.push_back(op::sleep(5 * ms));
    reads.push_back(op::read(ch, 100));
    r.start("reader", reads, 1, 3);
    r.k.run(5 * ms);
    constexpr std::uint64_t truesize = 128 + 576;
    REQUIRE(ch.used() == 303 * truesize);
    for (auto* w : writers) REQUIRE(w->t.state == task_state::sleeping);
    std::vector<std::uint64_t> woken;
    for (auto* w : writers) woken.push_back(w->t.stats.nr_wakeups);
    r.k.run(4 * ms);
    REQUIRE(ch.used() == 76 * truesize);
    for (std::size_t i = 0; i < writers.size(); ++i) CHECK(writers[i]->t.stats.nr_wakeups == woken[i]);
    // Freeing the 76th sk_buff: sock_wfree's unix_write_space wakes all three (they wait non-exclusively
    // in sock_wait_for_wmem), and they fill the buffer again.
    r.k.run(5 * ms);
    for (std::size_t i = 0; i < writers.size(); ++i) CHECK(writers[i]->t.stats.nr_wakeups == woken[i] + 1);
    CHECK(ch.used() == 303 * truesize);
}

TEST_CASE("a wakeup of an AF_UNIX socket's writers wakes those waiting at that moment, even when more wait than fit") {
    // hackbench's ready socket, at 2,000 tasks: each writes one byte, and one reader takes them. Each time
    // the reader frees the buffer down to a quarter, every waiting writer wakes, about a quarter of the
    // buffer's worth of them fit, and the rest wait again. __wake_up_common walks the queue under its
    // lock, so a writer that waits again joins the queue after the walk: the same read does not wake it
    // twice. (Woken again within one walk, the writers refilled the buffer faster than the walk ended,
    // and the reader never left its read.)
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& ch = r.k.make_channel(workloads::channel_kind::socket);
    constexpr std::uint64_t n = 2000;
    const std::uint64_t fit = (workloads::channel::socket_sndbuf + ch.charge(1) - 1) / ch.charge(1); // 333
    const std::uint64_t quarter = workloads::channel::socket_sndbuf / 4 / ch.charge(1);                 // 83
    std::vector<workloads::kernel_task*> writers;
    for (std::uint64_t i = 0; i < n; ++i)
        writers.push_back(&r.start("writer", {op::write(ch, 1)}, 1, 1 + static_cast<unsigned>(i % 7)));
    std::vector<op> reads{op::sleep(5 * ms)};
    for (std::uint64_t i = 0; i < n; ++i) reads.push_back(op::read(ch, 1));
    auto& reader = r.start("reader", reads, 1, 0);
    r.k.run(30 * ms);
    REQUIRE(reader.t.state == task_state::dead);
    std::uint64_t most = 0, total = 0;
    for (auto* w : writers) {
        CHECK(w->t.state == task_state::dead);
        most = std::max(most, w->t.stats.nr_wakeups);
        total += w->t.stats.nr_wakeups;
    }
    // Every writer past the first `fit` waits and is woken at least once. Each wakeup of the queue lets
    // at least fit - quarter more in, so no writer waits through more than that many of them.
    CHECK(total >= n - fit);
    CHECK(most <= (n - fit + (fit - quarter) - 1) / (fit - quarter));
}

TEST_CASE("a sleeping task wakes when its timer expires") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& t = r.start("sleeper", {op::sleep(2 * ms), op::sleep_until(7 * ms)}, 1, 3);
    r.k.run(20 * ms);
    REQUIRE(t.t.state == task_state::dead);
    // Exit at 7 ms plus the idle exit, interrupt, switch and exit costs (about 13 us).
    CHECK(t.exited >= 7 * ms);
    CHECK(t.exited < 7 * ms + 20 * us);
    CHECK(t.t.stats.nr_voluntary_switches == 3); // two sleeps and the exit
    CHECK(t.t.stats.sleep_max >= 4900 * us);
}

TEST_CASE("futex_wait blocks until futex_wake, and returns at once if the word changed") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::cfs_v5_15));
    auto& f = r.k.make_futex();
    auto& waiter = r.start("waiter", {op::futex_wait(f, 0), op::compute(1000, nullptr)}, 1, 0);
    auto& late = r.start("late", {op::sleep(3 * ms), op::futex_wait(f, 0)}, 1, 2);
    auto& waker = r.start("waker", {op::sleep(1 * ms), op::futex_wake(f, 1, 1)}, 1, 1);
    r.k.run(500 * us);
    CHECK(waiter.t.state == task_state::sleeping);
    CHECK(f.waiters.size() == 1);
    r.k.run(10 * ms);
    CHECK(waiter.t.state == task_state::dead);
    CHECK(waker.t.state == task_state::dead);
    CHECK(f.value == 1);
    CHECK(f.waiters.empty());
    CHECK(late.t.state == task_state::dead);
    CHECK(late.t.stats.nr_voluntary_switches == 2); // its sleep and its exit: the word was 1 already
    CHECK(waiter.exited > 1 * ms);
}

TEST_CASE("fork places children, wait_children resumes the parent after the last exits") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto child = std::make_shared<workloads::spawn_spec>();
    child->comm = "child";
    child->body =
        std::make_shared<workloads::scripted_program>(std::vector<op>{op::compute(2'000'000, nullptr)});
    auto& parent = r.start("parent", {op::fork(child), op::fork(child), op::fork(child), op::wait_children()},
                           1, 0, false);
    r.k.run(50 * ms);
    REQUIRE(parent.t.state == task_state::dead);
    CHECK(r.k.forks() == 3);
    std::vector<unsigned> cpus;
    for (const auto& t : r.k.tasks())
        if (t->t.comm == "child") {
            CHECK(t->t.state == task_state::dead);
            CHECK(t->t.tgid == t->t.pid); // processes
            cpus.push_back(t->t.cpu);
        }
    REQUIRE(cpus.size() == 3);
    // Fork spreads them to idle CPUs, so the three 2 ms computations overlap.
    CHECK(cpus[0] != cpus[1]);
    CHECK(cpus[1] != cpus[2]);
    CHECK(parent.exited < 2 * ms + 200 * us);
}

// LAUNCH_FORK_EXEC (a model flag): the tasks that exist when the run starts are started as a shell starts
// commands. Off, each is queued at 0 s on the CPU it was spawned on.
namespace {
struct launched_four {
    test::kernel_rig r;
    std::vector<workloads::kernel_task*> mains;
    const workloads::kernel_task* sh = nullptr;
    explicit launched_four(bool launch)
        : r(test::rig_config(scheduler::kernel_version::eevdf_v6_12, {{"LAUNCH_FORK_EXEC", launch}})) {
        for (int i = 0; i < 4; ++i)
            mains.push_back(
                &r.start("main" + std::to_string(i), {op::compute(2'000'000, nullptr)}, 1, 0, false));
        r.k.run(50 * ms);
        for (const auto& t : r.k.tasks())
            if (t->t.comm == "sh") sh = t.get();
        for (std::size_t i = 0; i < mains.size(); ++i) {
            CAPTURE(i);
            CHECK(mains[i]->t.state == task_state::dead);
            CHECK(mains[i]->t.comm == "main" + std::to_string(i)); // under the flag, exec gave it the name
            CHECK(mains[i]->t.pid == static_cast<int>(i) + 1);     // pids in the order spawned
        }
    }
};
} // namespace

TEST_CASE("LAUNCH_FORK_EXEC: a shell on CPU 0 forks the spawned tasks in turn, and each execs its program") {
    launched_four l(true);
    REQUIRE(l.sh != nullptr);
    CHECK(l.sh->t.pid == 5);
    CHECK(l.sh->t.state == task_state::dead); // it forks them and exits
    CHECK(l.r.k.forks() == 4);
    CHECK(l.r.k.execs() == 4);
    const auto fork_ns = static_cast<scheduler::nsec>(l.r.m.platform().kernel_costs.fork_ps / 1000);
    std::set<unsigned> cpus;
    for (std::size_t i = 0; i < l.mains.size(); ++i) {
        CAPTURE(i);
        CHECK(l.mains[i]->parent == l.sh);
        if (i > 0) CHECK(l.mains[i]->created - l.mains[i - 1]->created >= fork_ns); // one after the other
        cpus.insert(l.mains[i]->t.cpu);
    }
    // Fork balancing put each on an idle CPU, so the four 2 ms computations overlap from the start.
    CHECK(cpus.size() == 4);
    CHECK(l.mains[0]->exited < 2 * ms + 500 * us);
}

TEST_CASE("without LAUNCH_FORK_EXEC the spawned tasks start at 0 s on their CPU, with no launcher") {
    launched_four l(false);
    CHECK(l.sh == nullptr);
    CHECK(l.r.k.forks() == 0);
    CHECK(l.r.k.execs() == 0);
    for (const auto* m : l.mains) {
        CHECK(m->parent == nullptr);
        CHECK(m->created == 0);
    }
}

TEST_CASE(
    "SMT siblings share the core: a hog's throughput drops to smt_throughput while its sibling is busy") {
    auto p = test::mini_platform();
    p.core.smt_throughput = 0.6;
    test::kernel_rig r(p, test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& alone = r.start("alone", {op::compute(1'000'000'000, nullptr)}, -1, 1);
    auto& a = r.start("a", {op::compute(1'000'000'000, nullptr)}, -1, 0);
    r.start("sibling", {op::sleep(50 * ms), op::compute(1'000'000'000, nullptr)}, -1,
            4); // CPU 4 = core 0's twin
    r.k.run(100 * ms);
    const double done_a = 1e9 - static_cast<double>(a.remaining);
    const double done_alone = 1e9 - static_cast<double>(alone.remaining);
    // 50 ms alone at 1 instruction/ns, then 50 ms at 0.6 (a compute chunk still running when the run
    // stops -- at most 1 ms -- is not counted yet).
    CHECK(done_alone == Approx(100e6).margin(1.01e6));
    CHECK(done_a == Approx(50e6 + 30e6).margin(1.01e6));
    CHECK(done_a < 81e6);
}

TEST_CASE(
    "pipe messages move cache lines between writer and reader: across LLCs they come from the other L3") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& near_ch = r.k.make_channel(workloads::channel_kind::pipe);
    auto& far_ch = r.k.make_channel(workloads::channel_kind::pipe);
    // CPUs 0, 1 and 4 (core 0's second thread) share llc0; CPU 2 is on llc1.
    r.start("w_near", {op::write(near_ch, 256)}, 200, 0);
    r.start("r_near", {op::read(near_ch, 256)}, 200, 1);
    r.start("w_far", {op::write(far_ch, 256)}, 200, 4);
    r.start("r_far", {op::read(far_ch, 256)}, 200, 2);
    r.k.run(100 * ms);
    using models::mem_source;
    const auto& near = r.m.cpu(1).stats().accesses;
    const auto& far = r.m.cpu(2).stats().accesses;
    CHECK(near[static_cast<int>(mem_source::remote_llc)] == 0);
    CHECK(near[static_cast<int>(mem_source::peer_cache)] + near[static_cast<int>(mem_source::llc)] > 400);
    CHECK(far[static_cast<int>(mem_source::remote_llc)] > 400);
}

TEST_CASE("compute time is user time and system calls are system time") {
    test::kernel_rig r(test::rig_config(scheduler::kernel_version::eevdf_v6_12));
    auto& ch = r.k.make_channel(workloads::channel_kind::pipe);
    auto& t = r.start("t", {op::compute(1'000'000, nullptr), op::write(ch, 64)}, 10, 0);
    r.k.run(50 * ms);
    REQUIRE(t.t.state == task_state::dead);
    CHECK(static_cast<double>(t.utime) == Approx(10e6).epsilon(0.001));
    CHECK(t.t.se.sum_exec_runtime > t.utime);
    CHECK(t.t.se.sum_exec_runtime - t.utime < 100 * us); // 10 writes and an exit
}
