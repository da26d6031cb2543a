// The simulated operating system; see sim_kernel.h.
#include "workloads/kernel/sim_kernel.h"

#include "models/common/run_simulation.h"
#include "workloads/kernel/cpu_executor.h"
#include "workloads/kernel/scripted_program.h"

#include "platforms/fabric_graph.h"

#include <algorithm>
#include <stdexcept>

namespace warmsched::workloads {

namespace {
constexpr std::uint64_t task_struct_bytes = 256;   // the hot part of task_struct (4 lines)
constexpr std::uint64_t kernel_stack_bytes = 1024; // the part of the kernel stack a switch touches
constexpr std::uint64_t user_buffer_bytes = 8192;  // per-task user buffer (stack) for read/write
} // namespace

sim_kernel::sim_kernel(const sc_core::sc_module_name& name, models::machine& m,
                       const scheduler::sched_config& cfg, std::uint64_t seed, bool track_migration_cost)
    : sc_module(name), m_(m), seed_(seed) {
    const unsigned n = m.num_cpus();
    const scheduler::cpu_layout layout = scheduler::cpu_layout::of(m.topo());
    if (track_migration_cost) {
        cost_ = std::make_unique<migration_cost>(layout, m.cpu(0).params().set_sampling);
        m.set_access_observer(cost_.get());
    }
    sched_ = std::make_unique<scheduler::scheduler>(
        m.topo(), platform::numa_distances(m.platform(), m.topo(), m.graph()), cfg, *this);
    for (unsigned c = 0; c < n; ++c) {
        idle_tasks_.push_back(std::make_unique<scheduler::task>());
        scheduler::task& idle = *idle_tasks_.back();
        idle.comm = "swapper/" + std::to_string(c);
        sched_->init_idle(idle, c);
        rq_lines_.push_back(alloc_kernel(m.line_size()));
    }
    for (unsigned c = 0; c < n; ++c)
        executors_.push_back(
            std::make_unique<cpu_executor>(("cpu" + std::to_string(c)).c_str(), *this, m.cpu(c), c));
}

sim_kernel::~sim_kernel() {
    m_.set_access_observer(nullptr);
}

std::uint64_t sim_kernel::alloc_kernel(std::uint64_t bytes) {
    const std::uint64_t line = m_.line_size();
    const std::uint64_t a = next_kernel_;
    next_kernel_ += (bytes + line - 1) / line * line;
    return a;
}

std::uint64_t sim_kernel::alloc_user(std::uint64_t bytes) {
    const std::uint64_t page = m_.platform().memory.page_size;
    const std::uint64_t a = next_user_;
    next_user_ += (bytes + page - 1) / page * page;
    return a;
}

channel& sim_kernel::make_channel(channel_kind kind) {
    const std::uint64_t ring =
        kind == channel_kind::pipe ? channel::pipe_pages_bytes : channel::socket_sndbuf;
    channels_.push_back(
        std::make_unique<channel>(kind, alloc_user(ring), alloc_kernel(channel::struct_lines(kind) * m_.line_size()),
                                  m_.line_size()));
    return *channels_.back();
}

futex_word& sim_kernel::make_futex() {
    futexes_.push_back(std::make_unique<futex_word>());
    futexes_.back()->addr = alloc_user(m_.line_size());
    return *futexes_.back();
}

io_context& sim_kernel::make_io_context(std::uint64_t bytes, bool write, bool sequential) {
    if (!disk_) disk_ = std::make_unique<models::block_device>("disk", m_.platform().block_device, *this);
    io_contexts_.push_back(std::make_unique<io_context>());
    io_context& io = *io_contexts_.back();
    io.bytes = bytes;
    io.write = write;
    io.sequential = sequential;
    io.ring_line = alloc_kernel(m_.line_size());
    io.sq_line = alloc_kernel(m_.line_size());
    return io;
}

void sim_kernel::submit_io(io_context& io, unsigned cpu, std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
        models::block_request r;
        r.bytes = io.bytes;
        r.write = io.write;
        r.sequential = io.sequential;
        r.cpu = cpu;
        r.tag = reinterpret_cast<std::uintptr_t>(&io);
        ++io.inflight;
        ++io.submitted;
        disk_->submit(r);
    }
}

void sim_kernel::block_completed(const models::block_request& r, models::ps_t submitted_ps) {
    io_context* io = reinterpret_cast<io_context*>(static_cast<std::uintptr_t>(r.tag));
    const int fixed = m_.platform().block_device.irq_cpu;
    const unsigned cpu = fixed >= 0 ? static_cast<unsigned>(fixed) : r.cpu;
    const models::ps_t now = sc_core::sc_time_stamp().value();
    const double cost = costs().io_complete_ps;
    executors_[cpu]->raise_irq(now, [io, submitted_ps, now, cost] {
        // nvme_irq -> blk_mq_complete_request -> aio_complete: the event goes into the ring.
        --io->inflight;
        ++io->completed;
        io->ready.push_back({submitted_ps / 1000, now / 1000});
        cpu_executor::irq_action a;
        a.cost_ps = cost;
        a.line = io->ring_line;
        if (io->waiter && io->ready.size() >= io->min_nr) {
            a.wake = io->waiter;
            io->waiter = nullptr;
        }
        return a;
    });
}

kernel_task& sim_kernel::new_task(const spawn_spec& s, kernel_task* parent) {
    tasks_.push_back(std::make_unique<kernel_task>());
    kernel_task& k = *tasks_.back();
    scheduler::task& t = k.t;
    t.pid = next_pid_++;
    t.comm = s.comm.substr(0, 15);
    t.policy = s.policy;
    if (scheduler::rt_policy(s.policy) && (s.rt_priority < 1 || s.rt_priority > 99))
        throw std::invalid_argument("spawn " + s.comm + ": SCHED_FIFO/SCHED_RR priority " +
                                    std::to_string(s.rt_priority) + " is not in 1..99");
    t.rt_priority = scheduler::rt_policy(s.policy) ? s.rt_priority : 0;
    t.nice = s.nice;
    t.allowed = !s.allowed.empty() || !parent ? s.allowed : parent->t.allowed;
    // sched_setattr(sched_runtime): 0 = none, else clamped to 0.1-100 ms as the kernel does.
    t.se.custom_slice =
        s.custom_slice ? std::clamp<scheduler::nsec>(s.custom_slice, 100'000, 100'000'000) : 0;
    t.program = &k;
    k.prog = s.body->clone();
    if (s.thread && parent) {
        k.mm = parent->mm;
        t.tgid = parent->t.tgid;
    } else {
        k.mm = std::make_shared<address_space>();
        k.mm->tgid = t.tgid = t.pid;
    }
    k.task_struct = alloc_kernel(task_struct_bytes);
    k.kernel_stack = alloc_kernel(kernel_stack_bytes);
    k.user_buffer = alloc_user(user_buffer_bytes);
    k.rng.seed(seed_ ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(t.pid)));
    k.parent = parent;
    if (parent) ++parent->live_children;
    ++live_;
    return k;
}

kernel_task& sim_kernel::spawn(const spawn_spec& s, unsigned cpu) {
    if (sched_->config().features[scheduler::feature::LAUNCH_FORK_EXEC] && !launched_) {
        spawn_spec child = s; // the shell's child, before its execve
        child.comm = launcher_comm;
        child.body =
            std::make_shared<scripted_program>(std::vector<op>{op::exec(std::make_shared<spawn_spec>(s))}, 1);
        kernel_task& k = new_task(child, nullptr);
        k.t.set_nice(k.t.nice);
        launches_.push_back(&k);
        return k;
    }
    kernel_task& k = new_task(s, nullptr);
    k.t.set_nice(k.t.nice);
    sched_->add_initial_task(k.t, cpu, now());
    return k;
}

void sim_kernel::attach_initial(kernel_task& t, scheduler::group_id g) {
    if (!launched_ && std::find(launches_.begin(), launches_.end(), &t) != launches_.end())
        t.into_cgroup = static_cast<int>(g);
    else
        sched_->attach_task(t.t, g, now());
}

void sim_kernel::launch() {
    launched_ = true;
    if (launches_.empty()) return;
    auto fork = std::make_shared<spawn_spec>(); // fork_task gives each fork the next spawned task
    fork->comm = launcher_comm;
    std::vector<op> ops(launches_.size(), op::fork(fork));
    spawn_spec sh;
    sh.comm = launcher_comm;
    sh.body = std::make_shared<scripted_program>(std::move(ops), 1); // then it exits
    launcher_ = &new_task(sh, nullptr);
    sched_->add_initial_task(launcher_->t, 0, now());
}

kernel_task& sim_kernel::fork_task(kernel_task& parent, const spawn_spec& s) {
    ++forks_;
    if (&parent == launcher_) { // the next child spawn() made: the launcher forks them in order
        kernel_task& k = *launches_.at(launches_forked_++);
        k.parent = &parent;
        ++parent.live_children;
        k.created = now();
        return k;
    }
    kernel_task& k = new_task(s, &parent);
    k.created = now();
    return k;
}

void sim_kernel::exec_task(kernel_task& t, const spawn_spec& image) {
    ++execs_;
    t.t.comm = image.comm.substr(0, 15);
    t.prog = image.body->clone();
    t.mm = std::make_shared<address_space>(); // exec_mmap: the old mm goes with its last user
    t.mm->tgid = t.t.tgid;
    t.generators.clear();
    t.access_carry = 0;
    t.ps_per_instruction = 0;
    t.settling = compute_settling{}; // its compute settles afresh
    t.sample_carry = 0;
    t.user_buffer = alloc_user(user_buffer_bytes);
}

void sim_kernel::task_exited(kernel_task&) {
    --live_;
    if (live_ == 0)
        for (auto& e : executors_) e->run_ended(); // idle CPUs stop instead of waiting for a scheduler timer
}

access_generator& sim_kernel::generator(kernel_task& t, const memory_profile& p) {
    for (auto& g : t.generators)
        if (g.first == &p) return g.second;
    if (!p.shared_region && p.shared_set > t.mm->heap_bytes) {
        t.mm->heap_base = alloc_user(p.shared_set);
        t.mm->heap_bytes = p.shared_set;
    }
    const std::uint64_t base = p.working_region
                                   ? p.working_region
                                   : alloc_user(std::max<std::uint64_t>(p.working_set, m_.line_size()));
    const std::uint64_t shared = p.shared_region ? p.shared_region : t.mm->heap_base;
    t.generators.emplace_back(&p, access_generator(p, base, shared, m_.line_size()));
    return t.generators.back().second;
}

void sim_kernel::kick_cpu(unsigned cpu) {
    // Called from inside the scheduler (a remote resched_curr): the IPI leaves when the sender's ICR write
    // completes (kernel_costs.ipi_send), and that time is charged to the sender when the scheduler has
    // returned (charging here could end the hart's quantum mid-call).
    cpu_executor& sender = *executors_[running_cpu_];
    const models::ps_t send = sender.ipi_send_delay(*executors_[cpu]);
    if (executors_[cpu]->kick(sender.now() + send)) sender.defer_ipi_send(send);
}

void sim_kernel::arm_sched_timer(unsigned cpu, scheduler::nsec expiry) {
    if (finished()) return;
    auto fire = [this, cpu] {
        if (!finished()) {
            set_running_cpu(cpu);
            sched_->sched_timer(cpu, executors_[cpu]->now() / 1000);
        }
        return cpu_executor::irq_action{};
    };
    executors_[cpu]->raise_irq(static_cast<models::ps_t>(expiry) * 1000, fire, /*holds_run=*/false);
}

void sim_kernel::queue_policy_disable(unsigned cpu) {
    if (finished()) return;
    auto work = [this, cpu] {
        if (!finished()) {
            set_running_cpu(cpu);
            sched_->disable_policy(cpu, executors_[cpu]->now() / 1000);
        }
        return cpu_executor::irq_action{};
    };
    executors_[cpu]->raise_irq(sc_core::sc_time_stamp().value(), work, /*holds_run=*/false);
}

void sim_kernel::task_migrated(const scheduler::task& p, unsigned from, unsigned to,
                               scheduler::migration_cause why) {
    if (cost_) cost_->task_migrated(static_cast<std::uint32_t>(p.pid), from, to, why);
}

scheduler::nsec sim_kernel::now() const {
    return sc_core::sc_time_stamp().value() / 1000;
}

bool sim_kernel::run_to(scheduler::nsec t, bool until_idle) {
    if (!launched_) launch();
    auto to_t = [&] {
        return sc_core::sc_time(static_cast<double>(t), sc_core::SC_NS) - sc_core::sc_time_stamp();
    };
    if (sc_core::sc_time_stamp() >= sc_core::sc_time(static_cast<double>(t), sc_core::SC_NS))
        return !until_idle || sc_core::sc_pending_activity();
    // Stopping at the last event when none is left leaves the clock there also when the next event is
    // after t: it is moved on to t then, as a run that goes on past t would move it.
    models::run_simulation(to_t(), until_idle);
    if (until_idle && !sc_core::sc_pending_activity()) return false;
    if (const sc_core::sc_time rest = to_t(); rest > sc_core::SC_ZERO_TIME) models::run_simulation(rest);
    return true;
}

void sim_kernel::run(scheduler::nsec limit) {
    if (!launched_) launch();
    if (limit)
        models::run_simulation(sc_core::sc_time(static_cast<double>(limit), sc_core::SC_NS));
    else
        models::run_simulation();
}

} // namespace warmsched::workloads
