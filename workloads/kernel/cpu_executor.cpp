// One CPU running tasks, the CPU loop: interrupts due, schedule(), idle and its cpuidle states, and one
// step of the current task (a compute chunk, cpu_compute.cpp, or a system call, syscalls/); waking and
// blocking tasks. Interrupts and timers are in cpu_interrupts.cpp. See cpu_executor.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

#include <sysc/kernel/sc_dynamic_processes.h> // sc_spawn

#include <algorithm>
#include <cmath>

namespace warmsched::workloads {

using models::ps_t;
using scheduler::task_state;

cpu_executor::cpu_executor(const sc_core::sc_module_name& name, sim_kernel& k, models::hart& h, unsigned cpu)
    : sc_module(name), k_(k), h_(h), cpu_(cpu),
      governor_(k.machine().platform().idle_states, k.machine().platform().kernel_costs.max_cstate) {
    stats_.idle_state_usage.assign(k.machine().platform().idle_states.size(), 0);
    stats_.idle_state_ns.assign(k.machine().platform().idle_states.size(), 0);
    tick_ps_ = k.sched().config().tick_ns() * 1000;
    tick_phase_ps_ = k.sched().config().tick_phase_ns * 1000;
    for (unsigned s : k.sched().layout().siblings[cpu])
        if (s != cpu) siblings_.push_back(s);
    SC_HAS_PROCESS(cpu_executor);
    sc_core::sc_spawn_options opts;
    opts.set_stack_size(256 * 1024);
    sc_core::sc_spawn([this] { main(); }, "run", &opts);
}
scheduler::scheduler& cpu_executor::enter_scheduler() {
    h_.sync();
    k_.set_running_cpu(cpu_);
    return k_.sched();
}

kernel_task* cpu_executor::current() const {
    scheduler::task* t = k_.sched().rq(cpu_).curr;
    return t->is_idle ? nullptr : static_cast<kernel_task*>(t->program);
}

double cpu_executor::smt_stretch() const {
    for (unsigned s : siblings_)
        if (k_.executor(s).busy()) return 1.0 / k_.machine().platform().core.smt_throughput;
    return 1.0;
}

bool cpu_executor::polls() const {
    return !busy_ && (k_.costs().idle_polling || (period_.open && period_.polling));
}

void cpu_executor::charge_deferred_ipi_sends() {
    if (!deferred_ipi_send_ps_) return;
    charge(deferred_ipi_send_ps_);
    deferred_ipi_send_ps_ = 0;
}

bool cpu_executor::kick(ps_t sent_ps) {
    const bool polling = polls();
    const bool raised = !polling && !ipi_pending_; // a new IPI, not one already on its way
    const ps_t at = sent_ps + (polling ? 0 : static_cast<ps_t>(k_.costs().ipi_ps));
    if (!ipi_pending_ || at < ipi_at_) {
        ipi_at_ = at;
        ipi_polled_ = polling;
    }
    ipi_pending_ = true;
    const ps_t now = sc_core::sc_time_stamp().value();
    wake_.notify(models::ps_time(at > now ? at - now : 0));
    return raised;
}

ps_t cpu_executor::ipi_send_delay(const cpu_executor& target) const {
    return target.polls() ? 0 : static_cast<ps_t>(k_.costs().ipi_send_ps);
}

bool cpu_executor::resched_due() const {
    return k_.sched().need_resched(cpu_) && (!ipi_pending_ || h_.now() >= ipi_at_);
}

void cpu_executor::main() {
    for (;;) {
        charge_deferred_ipi_sends();
        handle_interrupts();
        if (resched_due()) reschedule(true);
        kernel_task* t = current();
        if (!t) {
            if (k_.finished() && timers_.size() == soft_irqs_) {
                wake_.cancel(); // a pending scheduler timer does not extend the run
                return;
            }
            idle();
            continue;
        }
        step(*t);
    }
}

void cpu_executor::reschedule(bool preempt) {
    h_.sync();
    if (period_.open) leave_idle_state(h_.now(), false, false); // woken without an interrupt
    kernel_task* prev = current();
    k_.set_running_cpu(cpu_);
    scheduler::task& next = k_.sched().schedule(cpu_, preempt, now_ns());
    touch_rt_rq_reads(); // an RT pull's or push's reads of other CPUs' run queues
    charge_balance();    // newidle balance, or an active balance's stopper
    kernel_task* nt = next.is_idle ? nullptr : static_cast<kernel_task*>(next.program);
    if (nt == prev) return;
    ++epoch_;
    ++stats_.context_switches;
    const auto& c = k_.costs();
    if (prev) { // save its state: task_struct and kernel stack
        touch(prev->task_struct, true);
        touch(prev->kernel_stack, true);
    }
    touch(k_.rq_line(cpu_), true);
    h_.set_task(nt ? static_cast<std::uint32_t>(nt->t.pid) : 0); // its accesses are nt's from here
    if (nt) {
        charge(static_cast<ps_t>(c.context_switch_ps));
        if (nt->mm.get() != loaded_mm_) {
            charge(static_cast<ps_t>(c.mm_switch_ps));
            loaded_mm_ = nt->mm.get();
        }
        touch(nt->task_struct, false);
        touch(nt->kernel_stack, false);
        touch(nt->kernel_stack + 64, true);
    }
    if (!nt) arm_rt_period_timer();
    const bool was_busy = busy_;
    busy_ = nt != nullptr;
    if (busy_) tick_stopped_ = false;
    if (busy_ && !was_busy) { // the next tick of the grid tick_phase + n * tick after now
        const ps_t now = h_.now();
        next_tick_ = now < tick_phase_ps_
                         ? tick_phase_ps_
                         : tick_phase_ps_ + ((now - tick_phase_ps_) / tick_ps_ + 1) * tick_ps_;
    }
    if (busy_ != was_busy)
        for (unsigned s : siblings_) k_.executor(s).sibling_changed();
}

void cpu_executor::touch_rt_rq_reads() {
    const std::vector<unsigned>& reads = k_.sched().rt_rq_reads();
    if (reads.empty()) return;
    probed_.assign(reads.begin(), reads.end()); // a copy, as for the wakeup's probed list
    for (unsigned cpu : probed_) touch(k_.rq_line(cpu), false);
}

void cpu_executor::charge_balance() {
    const scheduler::scheduler::balance_work w = k_.sched().take_balance_work(cpu_);
    const auto& c = k_.costs();
    const double ps = static_cast<double>(w.cost_ns) * 1000 + w.migrations * c.migrate_ps +
                      w.switches * c.context_switch_ps;
    if (ps <= 0) return;
    charge(static_cast<ps_t>(ps));
    k_.sched().account_irq_time(cpu_, ns(static_cast<ps_t>(ps)));
}

void cpu_executor::idle() {
    h_.sync();
    const ps_t start = h_.now();
    idling_ = true;
    idle_start_ = start;
    // Wake for a kick, or at the next timer or pending IPI (a zero-delay notification, e.g. from the SMT
    // sibling, replaces a pending timed one, so the IPI time is waited for explicitly).
    ps_t until = ~ps_t{0};
    if (!timers_.empty()) until = std::get<0>(timers_.top());
    if (ipi_pending_) until = std::min(until, ipi_at_);
    if (!period_.open) enter_idle_state(start, until);
    if (period_.poll_until) until = std::min(until, period_.poll_until);
    if (until == ~ps_t{0})
        sc_core::wait(wake_);
    else
        sc_core::wait(models::ps_time(until > start ? until - start : 0), wake_);
    const ps_t end = sc_core::sc_time_stamp().value();
    idling_ = false;
    stats_.idle_ns += ns(end - start);
    const bool interrupted =
        (ipi_pending_ && end >= ipi_at_) || (!timers_.empty() && std::get<0>(timers_.top()) <= end);
    const bool polled_out = !interrupted && period_.poll_until && end >= period_.poll_until;
    if (interrupted || polled_out || k_.finished()) leave_idle_state(end, interrupted, polled_out);
}

void cpu_executor::enter_idle_state(ps_t start, ps_t next_event) {
    const auto& states = k_.machine().platform().idle_states;
    period_ = idle_period{};
    period_.open = true;
    period_.start = start;
    if (k_.costs().idle_polling) { // idle=poll: no cpuidle, poll until there is work
        period_.polling = true;
        return;
    }
    // tick_nohz_get_sleep_length: the next timer event; with none pending in the model, 1 s stands for
    // the timer wheel's next event of an otherwise idle kernel [estimate].
    const std::uint64_t next_timer_ns =
        next_event == ~ps_t{0} ? 1'000'000'000ull : ns(next_event > start ? next_event - start : 0);
    period_.state = governor_.select(next_timer_ns, tick_stopped_);
    const auto& s = states[static_cast<std::size_t>(period_.state)];
    period_.polling = s.polling;
    if (s.polling) period_.poll_until = start + governor_.poll_limit_ns() * 1000;
    ++stats_.idle_state_usage[static_cast<std::size_t>(period_.state)];
    if (!s.flushes_core) return;
    for (unsigned sib : siblings_)
        if (!k_.executor(sib).in_flushing_state()) return;
    // The last thread of the core enters it: the core's private levels are written back and dropped.
    ++stats_.core_flushes;
    k_.machine().core_at(h_.params().core).flush_private();
}

bool cpu_executor::in_flushing_state() const {
    return period_.open && !period_.polling && period_.state >= 0 &&
           k_.machine().platform().idle_states[static_cast<std::size_t>(period_.state)].flushes_core;
}

void cpu_executor::leave_idle_state(ps_t end, bool interrupted, bool polled_out) {
    if (!period_.open) return;
    period_.open = false;
    ps_t residency = end > period_.start ? end - period_.start : 0;
    if (period_.state < 0) return; // idle=poll
    const auto& s = k_.machine().platform().idle_states[static_cast<std::size_t>(period_.state)];
    if (interrupted && !period_.polling) { // leave the idle state
        ++stats_.idle_exits;
        ps_t exit = static_cast<ps_t>(s.exit_time_ps);
        if (s.io_port && k_.costs().acpi_dummy_wait_ps > 0) // io_idle's inl of the one ACPI PM timer port
            exit += k_.pm_timer_read(end + exit, static_cast<ps_t>(k_.costs().acpi_dummy_wait_ps));
        charge(exit);
        residency += exit; // last_residency_ns is measured after the driver returns
    }
    stats_.idle_state_ns[static_cast<std::size_t>(period_.state)] += ns(residency);
    governor_.reflect(ns(residency), period_.state, polled_out);
    tick_stopped_ = !period_.polling && governor_.predicted_ns() >= menu_governor::tick_ns;
}

void cpu_executor::step(kernel_task& t) {
    if (t.t.throttle_work && !t.in_kernel) { // exit_to_user_mode runs the task-based throttle's task work
        enter_scheduler().return_to_user(cpu_, now_ns());
        if (t.t.throttled) return reschedule(true); // it went onto its queue's limbo list
    }
    if (!t.current) {
        t.ctx.now = now_ns();
        t.ctx.pid = t.t.pid;
        t.current = t.prog->next(t.ctx);
        t.remaining = t.current->kind == op_kind::compute ? t.current->count : 0;
        t.done = 0;
        t.entered = t.resumed = false;
    }
    if (t.current->kind == op_kind::compute) {
        if (t.current->time > 0) t.remaining = spin_instructions_left(t); // spin_until: on the clock
        if (t.remaining > 0) run_compute(t);
        if (t.remaining == 0) finish(t, 0);
        return;
    }
    syscall(t);
}

std::uint64_t cpu_executor::spin_instructions_left(const kernel_task& t) const {
    const scheduler::nsec now = now_ns(), deadline = t.current->time;
    if (now >= deadline) return 0;
    // Enough instructions to reach the deadline at the task's recent pace (the base CPI before it has
    // one); the next step looks at the clock again, so a chunk cut short by a tick or a preemption
    // is followed by another.
    const double cycle = static_cast<double>(h_.params().cycle_ps);
    const double per = t.ps_per_instruction > 0
                           ? t.ps_per_instruction
                           : k_.machine().platform().core.base_cpi * smt_stretch() * cycle;
    return std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::ceil(static_cast<double>(deadline - now) * 1000.0 / per)));
}

void cpu_executor::finish(kernel_task& t, std::uint64_t result) {
    t.ctx.result = result;
    t.current.reset();
    t.in_kernel = false;
}

void cpu_executor::block(kernel_task& t) {
    t.t.state = task_state::sleeping;
    t.resumed = false;
    reschedule(false);
}

void cpu_executor::wake_queued(std::deque<kernel_task*>& q, std::size_t most, unsigned wake_flags) {
    const std::size_t n = std::min(most, q.size());
    if (n == 1) { // the common case: no copy
        kernel_task* w = q.front();
        q.pop_front();
        return wake(*w, wake_flags);
    }
    std::vector<kernel_task*> taken(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(n));
    q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(n));
    for (kernel_task* w : taken) wake(*w, wake_flags);
}

void cpu_executor::wake(kernel_task& w, unsigned wake_flags) {
    const auto& c = k_.costs();
    charge(static_cast<ps_t>(c.wakeup_ps));
    touch(w.task_struct, true);
    k_.set_running_cpu(cpu_);
    w.resumed = true;
    const scheduler::wakeup_result r = k_.sched().try_to_wake_up(w.t, cpu_, wake_flags, now_ns());
    charge_deferred_ipi_sends(); // a remote preemption's IPI sent inside try_to_wake_up
    if (!r.woken) return;
    // Placement read the run queues of the CPUs it considered: the scan costs what those reads cost.
    if (r.probed && !r.probed->empty()) {
        // A copy: a touch can reach the quantum's end, and another CPU's wakeup then reuses the list.
        probed_.assign(r.probed->begin(), r.probed->end());
        const ps_t t0 = h_.now();
        for (unsigned cpu : probed_) touch(k_.rq_line(cpu), false);
        k_.sched().account_wakeup_scan(cpu_, ns(h_.now() - t0));
    }
    touch_rt_rq_reads();
    if (r.cpu == cpu_) {
        touch(k_.rq_line(cpu_), true);
    } else if (r.via_wake_list) { // llist_add to the target's wake list, then an IPI does the rest
        touch(k_.rq_line(r.cpu), true);
        // The IPI leaves when the ICR write completes: after the sender's ipi_send (charged if this kick
        // raised it; a remote resched inside try_to_wake_up may have raised it already).
        cpu_executor& target = k_.executor(r.cpu);
        const ps_t send = ipi_send_delay(target);
        if (target.kick(h_.now() + send) && send) charge(send);
    } else { // the waker locks the remote run queue and enqueues
        charge(static_cast<ps_t>(c.remote_enqueue_ps));
        touch(k_.rq_line(r.cpu), true);
    }
}

} // namespace warmsched::workloads
