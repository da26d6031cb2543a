// One CPU of the simulated kernel: an SC_THREAD that runs whatever the scheduler made current on this
// CPU, on its hardware thread. User computation runs in chunks that end at the next scheduler event
// (tick, timer, IPI); each chunk's time is its instructions x base CPI (stretched while the SMT sibling
// is busy) plus the stall of the memory accesses it makes through the hardware model, and a chunk cut
// short by an interrupt is pro-rated. System calls charge their direct costs (reference 07-costs.md)
// as CPU time and touch the kernel lines they use -- pipe buffers, wait queues, task structs, the run
// queue of the CPU a task is enqueued on -- so the cost of where tasks run emerges from the caches.
//
//   loop: interrupts due (IPI, timers, tick) -> NEED_RESCHED? schedule() -> idle? wait for a kick
//         -> else run one step of curr's current operation (a compute chunk or one system call)
//
// One class, its code split along the kernel's seams: cpu_executor.cpp (the CPU loop, idle, waking and
// blocking), cpu_interrupts.cpp (IPIs, timers, device interrupts, the tick), cpu_compute.cpp (compute and
// fast-forward), and the system-call layer in syscalls/ (syscall.cpp's dispatch; pipe_socket, futex,
// process, aio).
//
// Fast-forward (optional, sim_kernel::set_fast_forward(N)): a task whose compute has settled on this CPU
// (compute_settling.h) runs chunks up to the next event that take the settled time per instruction and
// send only 1 in N of their accesses through the hierarchy -- keeping the caches' contents and the
// co-runners' contention alive -- while the traffic of the other N-1 flows over the same links and
// memory channels as a steady background rate (models/fabric/flow_meter.h). The hart's access counts
// are scaled up; cache statistics count the simulated accesses. A switch, a migration or the SMT sibling
// changing state returns the task to detailed chunks.
//
// Time: the hart runs ahead of SystemC time under its quantum keeper; the executor syncs before every
// scheduler call so that run queues change in global time order. Ticks stop while idle (NO_HZ_IDLE); an
// idle CPU's IPI may carry the NOHZ balancer's kick, on which it balances for the idle CPUs. The
// balancer's own work (its passes, the tasks it moves, an active balance's extra switch) is charged as
// CPU time of the CPU that did it.
#pragma once

#include "models/cpu/hart.h"
#include "scheduler/task/task.h"
#include "workloads/kernel/cpuidle_menu.h"
#include "workloads/kernel/kernel_task.h"

#include <systemc>

#include <deque>
#include <functional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace warmsched::scheduler {
class scheduler;
}

namespace warmsched::workloads {

class sim_kernel;
class channel;

struct cpu_executor_stats {
    scheduler::nsec idle_ns = 0;
    std::uint64_t ticks = 0, ipis = 0, timer_interrupts = 0, idle_exits = 0, context_switches = 0;
    std::uint64_t device_irqs = 0; // block-device completion interrupts taken
    // cpuidle, per idle state of the platform (sysfs cpuidle/stateK/usage and time): entries, time in
    // it; core_flushes: entries that flushed the core's private caches (every thread in a flushing state).
    std::vector<std::uint64_t> idle_state_usage, idle_state_ns;
    std::uint64_t core_flushes = 0;
    // Fast-forward: chunks run so, the accesses they stood for and simulated, drifts back to detailed.
    std::uint64_t ff_chunks = 0, ff_accesses = 0, ff_sampled = 0, ff_drifts = 0;
};

class cpu_executor : public sc_core::sc_module {
public:
    cpu_executor(const sc_core::sc_module_name& name, sim_kernel& k, models::hart& h, unsigned cpu);

    // Another CPU asks this one to look at its run queue: a reschedule IPI (or, to a polling idle CPU,
    // a write to its polled flag) leaving the sender at `sent_ps`. True when it raised a new IPI (the CPU
    // does not poll and none was on its way): the sender then pays ipi_send_delay(target), the ICR
    // write (kernel_costs.ipi_send), and the IPI leaves when it completes: sent_ps = now + that delay.
    bool kick(models::ps_t sent_ps);
    models::ps_t ipi_send_delay(const cpu_executor& target) const;
    // An IPI sent from inside the scheduler: its ipi_send is charged at the executor's next safe point.
    void defer_ipi_send(models::ps_t send) { deferred_ipi_send_ps_ += send; }
    bool polls() const; // idle and polling its need_resched flag (idle=poll or the POLL state)
    // The SMT sibling went idle or busy: re-plan the current chunk at the new speed.
    void sibling_changed() {
        ++epoch_;
        wake_.notify(sc_core::SC_ZERO_TIME);
    }
    // A device interrupt (a block-device completion) taken by this CPU at SystemC time `at_ps`, through
    // the timer queue: after the interrupt entry (ipi_handler) the handler runs here and says what it did.
    struct irq_action {
        double cost_ps = 0;          // the handler's own work
        std::uint64_t line = 0;      // a kernel line it writes (0: none)
        kernel_task* wake = nullptr; // a task it wakes (try_to_wake_up from this CPU)
    };
    // `holds_run` false: a timer that does not keep the run going (the scheduler's hrtimers): once every
    // task has exited, the CPU stops without waiting for it.
    void raise_irq(models::ps_t at_ps, std::function<irq_action()> handler, bool holds_run = true);
    // The last task exited: an idle CPU re-checks whether anything still holds the run.
    void run_ended() { wake_.notify(sc_core::SC_ZERO_TIME); }
    bool busy() const { return busy_; }
    models::ps_t now() const { return h_.now(); }
    const cpu_executor_stats& stats() const { return stats_; }
    // Idle time up to SystemC time `now_ps`, including an idle period still in progress.
    scheduler::nsec idle_ns(models::ps_t now_ps) const {
        return stats_.idle_ns + (idling_ && now_ps > idle_start_ ? ns(now_ps - idle_start_) : 0);
    }

private:
    void main();
    void handle_interrupts();
    bool resched_due() const;
    void reschedule(bool preempt);
    // Charges the load balancing this CPU did in the last scheduler call (its cost, migrations, and the
    // stopper's switch) as its CPU time.
    void charge_balance();
    // Reads, through the caches, the other CPUs' run-queue lines the RT class read in the last scheduler
    // call (scheduler::rt_rq_reads): a linear scan or a pull's walk costs what its misses cost.
    void touch_rt_rq_reads();
    // Going idle with the RT class throttled here and RT tasks queued: the RT period hrtimer (an interrupt
    // at the period boundary that unthrottles), which fires even when no CPU ticks.
    void arm_rt_period_timer();
    // The idle loop: a cpuidle state for the period (chosen once by the governor, kept across spurious
    // returns such as the SMT sibling changing state), left on an interrupt, at POLL's time limit, or
    // when the CPU has something to run.
    void idle();
    void enter_idle_state(models::ps_t start, models::ps_t next_event);
    void leave_idle_state(models::ps_t end, bool interrupted, bool polled_out);
    // Entering a flushing state: when every thread of the core is in one, the core's caches are flushed.
    bool in_flushing_state() const;
    void step(kernel_task& t);
    void run_compute(kernel_task& t);
    // spin_until: the instructions that reach the operation's deadline from now (0 once it has passed).
    std::uint64_t spin_instructions_left(const kernel_task& t) const;
    // A fast-forwarded chunk of settled compute, up to `bound`.
    void run_fast_forward(kernel_task& t, const memory_profile& p, models::ps_t bound);
    // Waits `ps` of SystemC time unless interrupted; returns the time that passed.
    models::ps_t wait_interruptible(models::ps_t ps);
    void take_irq(int key);
    // The system-call layer (syscalls/): the dispatch, then pipes and sockets, futexes, processes, aio.
    void syscall(kernel_task& t);
    void sys_write(kernel_task& t, channel& ch);
    void sys_read(kernel_task& t, channel& ch);
    void lock(channel& ch); // syncs, then spins while another CPU holds the lock
    void unlock(channel& ch);
    void sys_futex_wait(kernel_task& t);
    void sys_futex_wake(kernel_task& t);
    void sys_fork(kernel_task& t);
    // execve(): exec balancing (sched_exec) first -- the task may move -- then the new image.
    void sys_exec(kernel_task& t);
    void sys_exit(kernel_task& t);
    void sys_wait(kernel_task& t); // wait() for one child, or for all of them
    void sys_io_submit(kernel_task& t);
    void sys_io_getevents(kernel_task& t);
    void finish(kernel_task& t, std::uint64_t result);
    void block(kernel_task& t);
    void wake(kernel_task& w, unsigned wake_flags);
    // Wakes up to `most` tasks of a wait queue, taken off it before the first is woken, as the kernel
    // walks a wait queue (or a futex bucket) under its lock: a woken task that waits again while the
    // others are still being woken joins the queue after the walk. (Each wakeup charges time, so the
    // woken ones run meanwhile.)
    void wake_queued(std::deque<kernel_task*>& q, std::size_t most, unsigned wake_flags);
    void arm_timer(kernel_task& t, models::ps_t expiry);
    void charge(models::ps_t t) { h_.busy(t); }
    void touch(std::uint64_t addr, bool write) { write ? h_.store(addr) : h_.load(addr); }
    void copy(std::uint64_t from, std::uint64_t to, std::uint64_t bytes);
    double smt_stretch() const;
    kernel_task* current() const;
    static scheduler::nsec ns(models::ps_t ps) { return ps / 1000; }
    // Kernel code calling into the scheduler from this CPU: the hart's local time becomes SystemC time
    // first (h_.sync), so that run queues change in global time order, and this CPU is the scheduler's
    // calling CPU. Then `enter_scheduler().scheduler_tick(cpu_, now_ns())`.
    scheduler::scheduler& enter_scheduler();
    scheduler::nsec now_ns() const { return ns(h_.now()); }

    void charge_deferred_ipi_sends();
    models::ps_t deferred_ipi_send_ps_ = 0;

    sim_kernel& k_;
    models::hart& h_;
    unsigned cpu_;
    sc_core::sc_event wake_;
    models::ps_t tick_ps_, tick_phase_ps_, next_tick_ = 0;
    std::uint64_t epoch_ = 0; // changes when who runs here or beside it changes (fast-forward)
    bool busy_ = false;
    bool idling_ = false; // waiting in idle() since idle_start_
    models::ps_t idle_start_ = 0;
    bool ipi_pending_ = false;
    bool ipi_polled_ = false; // the pending kick found this CPU polling: no IPI, no interrupt entry
    models::ps_t ipi_at_ = 0;
    menu_governor governor_;
    struct idle_period {
        bool open = false, polling = false;
        int state = -1;                         // index in the platform's idle_states; -1: idle=poll
        models::ps_t start = 0, poll_until = 0; // poll_until 0: no limit
    } period_;
    bool tick_stopped_ = false;       // the last idle period stopped the tick and nothing ran since
    const void* loaded_mm_ = nullptr; // address space in the MMU (kept across idle: lazy TLB)
    // expiry, pid (unique: a total order) or a negative device-interrupt key, task to wake
    using timer = std::tuple<models::ps_t, int, kernel_task*>;
    std::priority_queue<timer, std::vector<timer>, std::greater<timer>> timers_;
    std::vector<models::mem_access> buf_;
    std::vector<unsigned> probed_;       // the run queues a wakeup's placement read
    scheduler::nsec rt_timer_armed_ = 0; // the RT period expiry armed (0: none)
    std::vector<unsigned> siblings_;
    // Device interrupts waiting in timers_ (keyed by negative numbers; timers carry a pid).
    std::unordered_map<int, std::function<irq_action()>> irq_handlers_;
    int irqs_raised_ = 0;
    unsigned soft_irqs_ = 0;         // pending interrupts that do not hold the run (raise_irq)
    std::vector<int> soft_irq_keys_; // their keys
    cpu_executor_stats stats_;
};

} // namespace warmsched::workloads
