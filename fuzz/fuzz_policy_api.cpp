// The policy plug-in API (include/warmsched/policy.h, scheduler/ext/) driven by a generated policy: the
// input is read as a script. Its first bytes choose the kernel (CFS v5.15 or EEVDF v6.12) and whether
// every fair task is the policy's; then each step is a kernel event on an 8-CPU machine (2 LLCs, SMT2) --
// a fork (SCHED_NORMAL, SCHED_EXT or SCHED_FIFO, with or without an affinity), a block, a wakeup, a tick,
// a schedule, an exit, a yield, a sched_setscheduler, the watchdog's timer -- and each callback of the
// policy reads from the same bytes what it does: the default, or any of the kfuncs with arguments that may
// be invalid (a CPU the machine lacks, a DSQ never created, a task dispatched twice, a task_info of an
// exited task or one the kernel never handed out), scx_bpf_error, a C++ exception, an int thrown, a CPU
// from select_cpu out of range. When the script ends the run is driven to its end: every task is woken
// and each task exits once it has run.
// What must hold, on every input: no crash and no sanitizer report; the run ends (every task runs and
// exits within a bound -- a policy that keeps tasks is ejected by the watchdog, and the fair class runs
// them); after every step no exited task is running and only the ext class's tasks are on its DSQs;
// once the policy is ejected no task is left in the ext class; and the run queues are empty at the end.
// A failure aborts (with a dump of every task and CPU), which libFuzzer reports as a crash;
// FUZZ_POLICY_TRACE=1 prints every step and the state after it.
#include "platforms/config/config_node.h"
#include "platforms/fabric_graph.h"
#include "platforms/platform_loader.h"
#include "platforms/topology.h"
#include "scheduler/core/scheduler.h"
#include "scheduler/ext/ext_class.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace warmsched;
using scheduler::nsec;
using scheduler::task;
using scheduler::task_state;

constexpr nsec ms = 1'000'000;
constexpr unsigned max_tasks = 24;
constexpr unsigned max_steps = 400;
constexpr nsec watchdog = 20 * ms;

// 1 socket, 2 LLCs of 2 cores, SMT2: CPUs 0-3 the first threads, 4-7 their siblings.
const char* const machine_yaml = R"(name: fuzz
topology:
  levels:
    - {name: socket, count: 1}
    - {name: ccx, count: 2}
    - {name: core, count: 2}
  threads_per_core: 2
core:
  frequency: 1GHz
caches:
  - {name: l1d, shared_by: core, size: 32KiB, associativity: 8, latency: 4cycles}
  - {name: l2, shared_by: core, size: 512KiB, associativity: 8, latency: 12cycles}
  - {name: l3, shared_by: ccx, size: 4MiB, associativity: 16, latency: 40cycles}
memory:
  controllers_per: socket
  latency: 80ns
  bandwidth: 25GB/s
numa:
  node_per: socket
fabric:
  directory_latency: 2ns
  stops:
    - {name: hub, per: socket}
  links:
    - {from: hub, to: llc, latency: 10ns, bandwidth: 64GB/s}
    - {from: hub, to: memory, latency: 5ns, bandwidth: 64GB/s}
)";

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_policy_api: %s\n", what);
    std::abort();
}

struct hooks final : scheduler::scheduler_hooks {
    std::vector<unsigned> disable_work; // CPUs the disable work was queued on
    void kick_cpu(unsigned) override {}
    void queue_policy_disable(unsigned cpu) override { disable_work.push_back(cpu); }
};

// A policy whose every decision comes from the input.
class fuzzed_policy final : public ext::policy {
public:
    explicit fuzzed_policy(FuzzedDataProvider& in) : in_(in) {}
    const char* name() const override { return "fuzzed"; }

    void init() override {
        for (unsigned n = pick(4); n--;) k().create_dsq(dsq_id());
        act(nullptr);
    }
    unsigned select_cpu(ext::task_info& p, unsigned prev_cpu, ext::u64 wake_flags) override {
        seen(p);
        act(&p);
        switch (pick(5)) {
        case 0:
            return policy::select_cpu(p, prev_cpu, wake_flags);
        case 1: {
            bool idle = false;
            return k().select_cpu_dfl(p, in_.ConsumeBool() ? prev_cpu : any_cpu(), wake_flags, &idle);
        }
        case 2:
            return any_cpu();
        default:
            return prev_cpu;
        }
    }
    void enqueue(ext::task_info& p, ext::u64 enq_flags) override {
        seen(p);
        act(&p);
        if (pick(3) == 0) {
            kept_.push_back(&p); // dispatched later from dispatch(), or never
            return;
        }
        policy::enqueue(p, enq_flags);
    }
    void dequeue(ext::task_info& p, ext::u64) override {
        for (auto& q : kept_)
            if (q == &p) q = nullptr;
        act(&p);
    }
    void dispatch(unsigned cpu, ext::task_info* prev) override {
        if (prev) act(prev);
        for (unsigned n = pick(4); n--;) {
            if (kept_.empty()) break;
            const std::size_t i = in_.ConsumeIntegralInRange<std::size_t>(0, kept_.size() - 1);
            ext::task_info* p = kept_[i];
            kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
            if (p) k().dispatch(*p, in_.ConsumeBool() ? ext::dsq_local : dsq_any(), slice());
        }
        if (pick(2)) k().move_to_local(in_.ConsumeBool() ? ext::dsq_global : dsq_id());
        (void)cpu;
    }
    void runnable(ext::task_info& p, ext::u64) override { act(&p); }
    void running(ext::task_info& p) override { act(&p); }
    void stopping(ext::task_info& p, bool) override { act(&p); }
    void quiescent(ext::task_info& p, ext::u64) override { act(&p); }
    void tick(ext::task_info& p) override {
        act(&p);
        if (pick(4) == 0) p.slice = 0;
    }
    void init_task(ext::task_info& p) override {
        seen(p);
        act(&p);
    }
    void exit_task(ext::task_info& p) override { act(&p); } // its task_info stays in seen_: stale from now

private:
    unsigned pick(unsigned n) { return in_.ConsumeIntegralInRange<unsigned>(0, n - 1); }
    unsigned any_cpu() { return in_.ConsumeIntegralInRange<unsigned>(0, 9); } // 8 and 9 do not exist
    ext::u64 dsq_id() { return in_.ConsumeIntegralInRange<ext::u64>(0, 5); }
    ext::u64 dsq_any() {
        switch (pick(5)) {
        case 0: return ext::dsq_global;
        case 1: return ext::dsq_local;
        case 2: return ext::dsq_local_on | any_cpu();
        case 3: return ext::dsq_builtin | 7; // no such built-in DSQ
        default: return dsq_id();
        }
    }
    ext::u64 slice() { return in_.ConsumeBool() ? ext::slice_dfl : in_.ConsumeIntegral<ext::u64>(); }
    void seen(ext::task_info& p) {
        if (seen_.size() < 64) seen_.push_back(&p);
    }
    ext::task_info& some_task(ext::task_info* p) {
        if (p && in_.ConsumeBool()) return *p;
        if (!seen_.empty() && in_.ConsumeBool())
            return *seen_[in_.ConsumeIntegralInRange<std::size_t>(0, seen_.size() - 1)];
        return forged_; // never handed out by the kernel
    }
    // 0 to 3 actions of the policy's own: any kfunc, with arguments that may be invalid, or an exception.
    void act(ext::task_info* p) {
        for (unsigned n = pick(4); n--;) {
            switch (pick(16)) {
            case 0: k().dispatch(some_task(p), dsq_any(), slice(), in_.ConsumeIntegral<ext::u64>()); break;
            case 1: (void)k().move_to_local(dsq_any()); break;
            case 2: (void)k().dsq_nr_queued(dsq_any()); break;
            case 3: k().kick_cpu(any_cpu(), pick(4)); break;
            case 4: (void)k().test_and_clear_cpu_idle(any_cpu()); break;
            case 5: {
                std::vector<unsigned> cpus;
                for (unsigned c = pick(4); c--;) cpus.push_back(any_cpu());
                (void)k().pick_idle_cpu(some_task(p), cpus);
                break;
            }
            case 6: {
                bool idle = false;
                (void)k().select_cpu_dfl(some_task(p), any_cpu(), 0, &idle);
                break;
            }
            case 7: (void)k().task_allowed_on(some_task(p), any_cpu()); break;
            case 8: k().create_dsq(in_.ConsumeBool() ? dsq_id() : in_.ConsumeIntegral<ext::u64>()); break;
            case 9: k().error("fuzzed error"); break;
            case 10: throw std::runtime_error("fuzzed exception");
            case 11: throw 11;
            case 12: (void)k().now(), (void)k().topology().nr_llcs; break;
            case 13:
                if (p) p->slice = in_.ConsumeIntegral<ext::u64>();
                break;
            case 14:
                if (p) p->data[pick(4)] = in_.ConsumeIntegral<ext::u64>();
                break;
            default: break;
            }
        }
    }

    FuzzedDataProvider& in_;
    std::vector<ext::task_info*> kept_, seen_;
    ext::task_info forged_;
};

struct rig {
    hooks h;
    platform::platform_params machine;
    platform::topology topo;
    std::deque<task> idle, tasks; // before the scheduler: they outlive it
    std::unique_ptr<scheduler::scheduler> s;
    nsec now = 0;

    rig(FuzzedDataProvider& in)
        : machine(platform::read_platform(config::load_yaml_text(machine_yaml, "fuzz.yaml"))), topo(machine) {
        const auto k = in.ConsumeBool() ? scheduler::kernel_version::cfs_v5_15 : scheduler::kernel_version::eevdf_v6_12;
        auto cfg = scheduler::sched_config::defaults(k, topo.num_cpus());
        cfg.ext.policy = std::make_shared<fuzzed_policy>(in);
        cfg.ext.switch_all = in.ConsumeBool();
        cfg.ext.watchdog_timeout = watchdog;
        const platform::fabric_graph graph(machine, topo, {});
        s = std::make_unique<scheduler::scheduler>(topo, platform::numa_distances(machine, topo, graph), cfg, h);
        for (unsigned c = 0; c < topo.num_cpus(); ++c) {
            idle.emplace_back();
            idle.back().comm = "swapper/" + std::to_string(c);
            s->init_idle(idle.back(), c);
        }
    }
    unsigned cpus() const { return topo.num_cpus(); }

    // What the simulated kernel does between events: the queued disable work, and a CPU told to
    // reschedule does.
    void settle() {
        for (int round = 0; round < 4; ++round) {
            std::vector<unsigned> work;
            work.swap(h.disable_work);
            for (unsigned c : work) s->disable_policy(c, now);
            bool any = false;
            for (unsigned c = 0; c < cpus(); ++c)
                if (s->need_resched(c)) {
                    s->schedule(c, true, now);
                    any = true;
                }
            if (!any && h.disable_work.empty()) return;
        }
    }

    // The state of every task and CPU, for a finding's report.
    void dump() const {
        const auto& ei = s->policy_exit();
        std::fprintf(stderr, "policy: %s, ejected %d, %s\n", scheduler::exit_reason(ei.kind), ei.ejected,
                     ei.msg.c_str());
        for (unsigned c = 0; c < topo.num_cpus(); ++c)
            std::fprintf(stderr, "cpu %u: cfs nr_running %u, min_vruntime %lld\n", c, s->rq(c).cfs.nr_running,
                         static_cast<long long>(s->rq(c).cfs.min_vruntime));
        for (unsigned c = 0; c < topo.num_cpus(); ++c)
            std::fprintf(stderr, "cpu %u: curr %s, nr_running %u, need_resched %d, rt_nr_running %u, rt_throttled %d, "
                                 "rt_queued %d\n",
                         c, s->rq(c).curr->comm.c_str(), s->rq(c).nr_running, s->need_resched(c),
                         s->rq(c).rt.rt_nr_running, s->rq(c).rt.rt_throttled, s->rq(c).rt.rt_queued);
        for (const task& t : tasks)
            std::fprintf(stderr,
                         "%s: state %d, class %s, on_rq %d, on_cpu %d, cpu %u, policy %d, dsq %p, owned %d; se: on_rq "
                         "%d, vruntime %lld, deadline %lld, vlag %lld, slice %llu, delayed %d, rel_deadline %d\n",
                         t.comm.c_str(), static_cast<int>(t.state), s->class_of(t).name(), t.on_rq, t.on_cpu, t.cpu,
                         static_cast<int>(t.policy), t.scx.dsq, t.scx.owned, t.se.on_rq,
                         static_cast<long long>(t.se.vruntime), static_cast<long long>(t.se.deadline),
                         static_cast<long long>(t.se.vlag), static_cast<unsigned long long>(t.se.slice),
                         t.se.sched_delayed, t.se.rel_deadline);
    }

    task* curr(unsigned c) {
        task* t = s->rq(c).curr;
        return t->is_idle ? nullptr : t;
    }

    void fork(FuzzedDataProvider& in, unsigned c) {
        if (tasks.size() >= max_tasks) return;
        tasks.emplace_back();
        task& t = tasks.back();
        t.pid = static_cast<int>(tasks.size());
        t.tgid = t.pid;
        t.comm = "t" + std::to_string(t.pid);
        switch (in.ConsumeIntegralInRange<int>(0, 5)) {
        case 0: t.policy = scheduler::sched_policy::ext; break;
        case 1:
            t.policy = scheduler::sched_policy::fifo;
            t.rt_priority = in.ConsumeIntegralInRange<int>(1, 99);
            break;
        default: t.policy = scheduler::sched_policy::normal; break;
        }
        t.nice = in.ConsumeIntegralInRange<int>(-20, 19);
        if (in.ConsumeBool()) {
            t.allowed.assign(cpus(), false);
            const unsigned mask = in.ConsumeIntegralInRange<unsigned>(1, (1u << cpus()) - 1);
            for (unsigned b = 0; b < cpus(); ++b) t.allowed[b] = (mask >> b) & 1;
        }
        s->sched_fork(t, c, now);
        s->wake_up_new_task(t, c, now);
    }

    void leave(unsigned c, task_state how) {
        task* t = curr(c);
        if (!t) return;
        t->state = how;
        s->schedule(c, false, now);
    }

    void step(FuzzedDataProvider& in) {
        now += in.ConsumeIntegralInRange<nsec>(0, 3 * ms);
        const unsigned c = in.ConsumeIntegralInRange<unsigned>(0, cpus() - 1);
        const int op = in.ConsumeIntegralInRange<int>(0, 9);
        if (trace_) {
            std::fprintf(stderr, "step: op %d on CPU %u at %llu\n", op, c, static_cast<unsigned long long>(now));
        }
        switch (op) {
        case 0: fork(in, c); break;
        case 1: leave(c, task_state::sleeping); break;
        case 2: {
            std::vector<task*> asleep;
            for (task& t : tasks)
                if (t.state == task_state::sleeping) asleep.push_back(&t);
            if (!asleep.empty())
                s->try_to_wake_up(*asleep[in.ConsumeIntegralInRange<std::size_t>(0, asleep.size() - 1)], c, 0, now);
            break;
        }
        case 3: s->scheduler_tick(c, now); break;
        case 4: s->schedule(c, true, now); break;
        case 5: leave(c, task_state::dead); break;
        case 6: s->sched_timer(c, now); break;
        case 7:
            if (task* t = curr(c)) {
                s->yield(c, now);
                s->schedule(c, true, now);
                (void)t;
            }
            break;
        case 8:
            if (!tasks.empty()) {
                task& t = tasks[in.ConsumeIntegralInRange<std::size_t>(0, tasks.size() - 1)];
                if (t.state == task_state::dead) break;
                const int p = in.ConsumeIntegralInRange<int>(0, 2);
                s->setscheduler(t, p == 0 ? scheduler::sched_policy::ext
                                          : p == 1 ? scheduler::sched_policy::fifo : scheduler::sched_policy::normal,
                                p == 1 ? 50 : 0, t.nice, c, now);
            }
            break;
        default: break;
        }
        settle();
        if (trace_) dump();
        check();
    }
    // After every step: no exited task runs, and only the ext class's tasks are on its DSQs.
    void check() const {
        for (unsigned c = 0; c < topo.num_cpus(); ++c)
            if (s->rq(c).curr->state == task_state::dead) {
                dump();
                finding("an exited task is a CPU's current task");
            }
        for (const task& t : tasks)
            if (t.scx.dsq && t.sched_class != static_cast<const scheduler::sched_class*>(s->ext())) {
                dump();
                finding("a task of another class is on an ext DSQ");
            }
    }
    const bool trace_ = std::getenv("FUZZ_POLICY_TRACE") != nullptr; // every step and the state after it

    // To the end: every task is woken, and each exits once it has run. The watchdog ejects a policy that
    // keeps tasks; the fair class then runs them.
    void finish() {
        for (task& t : tasks)
            if (t.state == task_state::sleeping) s->try_to_wake_up(t, 0, 0, now);
        settle();
        const nsec tick = s->config().tick_ns();
        for (unsigned round = 0;; ++round) {
            bool left = false;
            for (const task& t : tasks) left = left || t.state != task_state::dead;
            if (!left) break;
            if (round > 4000) {
                dump();
                finding("the run does not end: a task never runs (policy ejected or not)");
            }
            now += tick;
            for (unsigned c = 0; c < cpus(); ++c) {
                s->sched_timer(c, now);
                s->scheduler_tick(c, now);
                settle();
                if (trace_) {
                    std::fprintf(stderr, "finish: schedule CPU %u at %llu\n", c, static_cast<unsigned long long>(now));
                    dump();
                }
                s->schedule(c, true, now);
                leave(c, task_state::dead);
                settle();
            }
        }
        if (s->policy_exit().ejected)
            for (const task& t : tasks)
                if (t.state != task_state::dead && t.sched_class == static_cast<const scheduler::sched_class*>(s->ext()))
                    finding("a task is left in the ext class after the ejection");
        for (unsigned c = 0; c < cpus(); ++c)
            if (s->rq(c).nr_running != 0) finding("a run queue is not empty after every task exited");
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    rig r(in);
    for (unsigned n = 0; n < max_steps && in.remaining_bytes() > 0; ++n) r.step(in);
    r.finish();
    return 0;
}
