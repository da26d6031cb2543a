// One CPU running tasks; see cpu_executor.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

#include <algorithm>
#include <cmath>

namespace warmsched::workloads {

using models::ps_t;
using scheduler::task_state;

namespace {
constexpr std::size_t max_chunk_accesses = 256;  // bounds how far a chunk can overshoot an event
constexpr ps_t max_chunk_ps = 1'000'000'000;     // 1 ms
constexpr ps_t min_fast_forward_ps = 20'000'000; // 20 us
} // namespace

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

void cpu_executor::kick(ps_t sent_ps) {
    const bool polling = polls();
    const ps_t at = sent_ps + (polling ? 0 : static_cast<ps_t>(k_.costs().ipi_ps));
    if (!ipi_pending_ || at < ipi_at_) {
        ipi_at_ = at;
        ipi_polled_ = polling;
    }
    ipi_pending_ = true;
    const ps_t now = sc_core::sc_time_stamp().value();
    wake_.notify(models::ps_time(at > now ? at - now : 0));
}

bool cpu_executor::resched_due() const {
    return k_.sched().need_resched(cpu_) && (!ipi_pending_ || h_.now() >= ipi_at_);
}

void cpu_executor::main() {
    for (;;) {
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

void cpu_executor::handle_interrupts() {
    if (ipi_pending_ && h_.now() >= ipi_at_) {
        ipi_pending_ = false;
        ++stats_.ipis;
        // A polling CPU (idle=poll, or the POLL state when the kick came) takes no interrupt.
        if (busy_ || !(k_.costs().idle_polling || ipi_polled_)) charge(static_cast<ps_t>(k_.costs().ipi_handler_ps));
        ipi_polled_ = false;
        if (k_.sched().nohz_kick_pending(cpu_)) { // a NOHZ kick: balance on behalf of the idle CPUs
            h_.sync();
            k_.set_running_cpu(cpu_);
            k_.sched().nohz_idle_balance(cpu_, ns(h_.now()));
            charge_balance();
        }
        if (k_.sched().cfsb_csd_pending(cpu_)) { // a CFS bandwidth unthrottle queued for this CPU
            h_.sync();
            k_.set_running_cpu(cpu_);
            k_.sched().cfsb_csd(cpu_, ns(h_.now()));
        }
    }
    while (!timers_.empty() && std::get<0>(timers_.top()) <= h_.now()) {
        kernel_task* t = std::get<2>(timers_.top());
        const int key = std::get<1>(timers_.top());
        timers_.pop();
        if (key < 0) { // a device interrupt
            take_irq(key);
            continue;
        }
        ++stats_.timer_interrupts;
        h_.sync();
        charge(static_cast<ps_t>(k_.costs().ipi_handler_ps));
        wake(*t, 0);
    }
    if (busy_ && h_.now() >= next_tick_) {
        h_.sync();
        ++stats_.ticks;
        k_.set_running_cpu(cpu_);
        k_.sched().scheduler_tick(cpu_, ns(h_.now()));
        charge_balance(); // the periodic balance the tick ran
        while (next_tick_ <= h_.now()) next_tick_ += tick_ps_;
    }
}

void cpu_executor::raise_irq(ps_t at_ps, std::function<irq_action()> handler, bool holds_run) {
    const int key = -(++irqs_raised_);
    if (!holds_run) {
        ++soft_irqs_;
        soft_irq_keys_.push_back(key);
    }
    irq_handlers_.emplace(key, std::move(handler));
    timers_.emplace(at_ps, key, nullptr);
    const ps_t now = sc_core::sc_time_stamp().value();
    wake_.notify(models::ps_time(at_ps > now ? at_ps - now : 0)); // out of idle, or cut a long chunk
}

void cpu_executor::take_irq(int key) {
    const auto it = irq_handlers_.find(key);
    const std::function<irq_action()> handler = std::move(it->second);
    irq_handlers_.erase(it);
    const auto soft = std::find(soft_irq_keys_.begin(), soft_irq_keys_.end(), key);
    if (soft != soft_irq_keys_.end()) {
        soft_irq_keys_.erase(soft);
        --soft_irqs_;
    }
    ++stats_.device_irqs;
    h_.sync();
    charge(static_cast<ps_t>(k_.costs().ipi_handler_ps)); // interrupt entry and exit
    const irq_action a = handler();
    charge(static_cast<ps_t>(a.cost_ps));
    if (a.line) touch(a.line, true);
    if (a.wake) wake(*a.wake, 0);
}

void cpu_executor::reschedule(bool preempt) {
    h_.sync();
    if (period_.open) leave_idle_state(h_.now(), false, false); // woken without an interrupt
    kernel_task* prev = current();
    k_.set_running_cpu(cpu_);
    scheduler::task& next = k_.sched().schedule(cpu_, preempt, ns(h_.now()));
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

void cpu_executor::arm_rt_period_timer() {
    const scheduler::nsec at = k_.sched().rt_period_expiry(cpu_);
    if (at == 0 || at == rt_timer_armed_) return;
    rt_timer_armed_ = at;
    raise_irq(static_cast<ps_t>(at) * 1000, [this, at] {
        k_.set_running_cpu(cpu_);
        k_.sched().rt_period_timer(cpu_, at); // unthrottles; a resched if RT work waits here
        return irq_action{};
    });
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
    k_.machine().core_at(h_.params().core).flush_private(sc_core::SC_ZERO_TIME);
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
        h_.sync();
        k_.set_running_cpu(cpu_);
        k_.sched().return_to_user(cpu_, ns(h_.now()));
        if (t.t.throttled) return reschedule(true); // it went onto its queue's limbo list
    }
    if (!t.current) {
        t.ctx.now = ns(h_.now());
        t.ctx.pid = t.t.pid;
        t.current = t.prog->next(t.ctx);
        t.remaining = t.current->kind == op_kind::compute ? t.current->count : 0;
        t.done = 0;
        t.entered = t.resumed = false;
    }
    if (t.current->kind == op_kind::compute) {
        if (t.remaining > 0) run_compute(t);
        if (t.remaining == 0) finish(t, 0);
        return;
    }
    syscall(t);
}

void cpu_executor::finish(kernel_task& t, std::uint64_t result) {
    t.ctx.result = result;
    t.current.reset();
    t.in_kernel = false;
}

void cpu_executor::run_compute(kernel_task& t) {
    const auto& core = k_.machine().platform().core;
    const double cycle = static_cast<double>(h_.params().cycle_ps);
    const double cycles_per_instr = core.base_cpi * smt_stretch();
    const memory_profile* p = t.current->profile;
    const double apki = p ? p->accesses_per_kilo_instruction : 0.0;
    const ps_t now = h_.now();
    ps_t bound = std::min(next_tick_, now + max_chunk_ps);
    if (!timers_.empty()) bound = std::min(bound, std::get<0>(timers_.top()));
    if (ipi_pending_) bound = std::min(bound, ipi_at_);
    const bool may_fast_forward = k_.fast_forward() > 1 && apki > 0 && !k_.generator(t, *p).sequential();
    if (may_fast_forward) {
        t.settling.at(cpu_, epoch_, p, static_cast<double>(p->working_set / k_.machine().line_size()));
        // Only a chunk long enough to hide its sample is fast-forwarded (a steady flow is a rate).
        if (t.settling.settled() && bound > now + min_fast_forward_ps) return run_fast_forward(t, *p, bound);
    }
    const double budget = static_cast<double>(bound > now ? bound - now : 1000);
    const double est = t.ps_per_instruction > 0 ? t.ps_per_instruction : cycles_per_instr * cycle;
    std::uint64_t k = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(budget / est));
    if (apki > 0)
        k = std::min<std::uint64_t>(k, static_cast<std::uint64_t>(max_chunk_accesses * 1000.0 / apki) + 1);
    k = std::min(k, t.remaining);
    // The chunk's memory accesses, through the hierarchy (independent, up to the MSHR limit in flight).
    const double want = k * apki / 1000.0 + t.access_carry;
    const std::size_t n = static_cast<std::size_t>(want);
    t.access_carry = want - static_cast<double>(n);
    const ps_t start = h_.now();
    const models::hart_stats stats_before = h_.stats();
    if (n > 0) {
        access_generator& g = k_.generator(t, *p);
        buf_.clear();
        g.generate(n, t.rng, buf_);
        h_.stream(buf_.data(), n, g.sequential());
    }
    const ps_t mem = h_.now() - start;
    // The rest of the chunk is execution: one issue slot per access is already in the stream.
    const double exec = std::max(0.0, k * cycles_per_instr * cycle - static_cast<double>(n) * cycle);
    std::uint64_t done = k;
    if (exec >= 2e6) { // long enough to be worth interrupting: wait in SystemC time
        const double ran = static_cast<double>(wait_interruptible(static_cast<ps_t>(exec)));
        if (ran < exec) // interrupted: pro-rate the chunk
            done = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(k * (mem + ran) / (mem + exec)));
    } else if (exec > 0) {
        h_.busy(static_cast<ps_t>(exec));
    }
    const ps_t took = h_.now() - start;
    t.remaining -= std::min(done, t.remaining);
    t.utime += ns(took);
    const double per = static_cast<double>(took) / static_cast<double>(done);
    t.ps_per_instruction = t.ps_per_instruction > 0 ? 0.75 * t.ps_per_instruction + 0.25 * per : per;
    if (may_fast_forward)
        t.settling.detailed(done, static_cast<double>(took), access_mix::between(stats_before, h_.stats()));
}

void cpu_executor::run_fast_forward(kernel_task& t, const memory_profile& p, ps_t bound) {
    const double ratio = k_.fast_forward();
    const double apki = p.accesses_per_kilo_instruction;
    const double cycle = static_cast<double>(h_.params().cycle_ps);
    const compute_settling& s = t.settling;
    // The settled time per instruction is execution plus memory time; the memory part follows the
    // sample's latency (queues that grew or shrank since), the execution part does not.
    const double exec_per =
        std::max(0.0, k_.machine().platform().core.base_cpi * smt_stretch() * cycle - apki / 1000.0 * cycle);
    const double mem_per = std::max(0.0, s.ps_per_instruction() - exec_per);
    const double planned = t.ps_per_instruction > 0 ? t.ps_per_instruction : s.ps_per_instruction();
    const ps_t start = h_.now();
    const double budget = static_cast<double>(bound > start ? bound - start : 1000);
    std::uint64_t k = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(budget / planned));
    k = std::min<std::uint64_t>(k,
                                static_cast<std::uint64_t>(max_chunk_accesses * ratio * 1000.0 / apki) + 1);
    k = std::min(k, t.remaining);
    const double want = k * apki / 1000.0 + t.access_carry;
    const std::size_t n = static_cast<std::size_t>(want);
    t.access_carry = want - static_cast<double>(n);
    const double want_sampled = static_cast<double>(n) / ratio + t.sample_carry;
    const std::size_t m = static_cast<std::size_t>(want_sampled);
    t.sample_carry = want_sampled - static_cast<double>(m);
    // The sample goes through the hierarchy; its transfers, times n/m, become this hart's steady flow
    // for the rest of the chunk.
    access_mix sample;
    double slowdown = 1;
    models::flow_meter& flows = k_.machine().flows();
    if (m > 0) {
        const models::hart_stats before = h_.stats();
        access_generator& g = k_.generator(t, p);
        buf_.clear();
        g.generate(m, t.rng, buf_);
        flows.start(cpu_);
        h_.stream(buf_.data(), m, false);
        sample = access_mix::between(before, h_.stats());
        h_.extrapolate_since(before, static_cast<double>(n) / static_cast<double>(m));
        slowdown = s.slowdown(sample);
    }
    const double chunk = static_cast<double>(k) * (exec_per + mem_per * slowdown);
    const ps_t sampled = h_.now() - start;
    const ps_t rest = chunk > static_cast<double>(sampled) ? static_cast<ps_t>(chunk) - sampled : 0;
    if (m > 0) flows.finish(cpu_, static_cast<double>(n) / static_cast<double>(m), rest);
    const ps_t ran = rest > 0 ? wait_interruptible(rest) : 0;
    flows.stop(cpu_);
    std::uint64_t done = k;
    if (ran < rest) // interrupted: pro-rate the chunk
        done = std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>(static_cast<double>(k) * static_cast<double>(sampled + ran) /
                                          static_cast<double>(sampled + rest)));
    const ps_t took = h_.now() - start;
    t.remaining -= std::min(done, t.remaining);
    t.utime += ns(took);
    const double per = static_cast<double>(took) / static_cast<double>(done);
    t.ps_per_instruction = 0.75 * t.ps_per_instruction + 0.25 * per;
    ++stats_.ff_chunks;
    stats_.ff_accesses += n;
    stats_.ff_sampled += m;
    if (!t.settling.sampled(sample)) ++stats_.ff_drifts;
}

models::ps_t cpu_executor::wait_interruptible(ps_t ps) {
    h_.sync();
    const ps_t t0 = sc_core::sc_time_stamp().value();
    sc_core::wait(models::ps_time(ps), wake_);
    return sc_core::sc_time_stamp().value() - t0;
}

void cpu_executor::copy(std::uint64_t from, std::uint64_t to, std::uint64_t bytes) {
    const unsigned line = k_.machine().line_size();
    buf_.clear();
    for (std::uint64_t a = from / line * line; a < from + bytes; a += line) buf_.push_back({a, false});
    for (std::uint64_t a = to / line * line; a < to + bytes; a += line) buf_.push_back({a, true});
    h_.stream(buf_.data(), buf_.size(), true);
}

void cpu_executor::block(kernel_task& t) {
    t.t.state = task_state::sleeping;
    t.resumed = false;
    reschedule(false);
}

void cpu_executor::wake(kernel_task& w, unsigned wake_flags) {
    const auto& c = k_.costs();
    charge(static_cast<ps_t>(c.wakeup_ps));
    touch(w.task_struct, true);
    k_.set_running_cpu(cpu_);
    w.resumed = true;
    const scheduler::wakeup_result r = k_.sched().try_to_wake_up(w.t, cpu_, wake_flags, ns(h_.now()));
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
        k_.executor(r.cpu).kick(h_.now());
    } else { // the waker locks the remote run queue and enqueues
        charge(static_cast<ps_t>(c.remote_enqueue_ps));
        touch(k_.rq_line(r.cpu), true);
    }
}

void cpu_executor::arm_timer(kernel_task& t, ps_t expiry) {
    timers_.emplace(expiry, t.t.pid, &t);
}

void cpu_executor::syscall(kernel_task& t) {
    op& o = *t.current;
    t.in_kernel = true;
    if (!t.entered) {
        t.entered = true;
        charge(static_cast<ps_t>(k_.costs().syscall_ps));
    }
    switch (o.kind) {
    case op_kind::write:
        sys_write(t, *o.ch);
        return;
    case op_kind::read:
        sys_read(t, *o.ch);
        return;
    case op_kind::futex_wait: {
        futex_word& f = *o.futex;
        if (t.resumed) return finish(t, 0);
        touch(f.addr, false);
        h_.sync();
        if (f.value != o.value) return finish(t, 0); // EAGAIN: the word changed
        f.waiters.push_back(&t);
        return block(t);
    }
    case op_kind::futex_wake: {
        futex_word& f = *o.futex;
        touch(f.addr, true); // the user-space store of the new value
        h_.sync();
        f.value = o.value;
        std::uint64_t woken = 0;
        while (woken < o.count && !f.waiters.empty()) {
            kernel_task* w = f.waiters.front();
            f.waiters.pop_front();
            wake(*w, 0);
            ++woken;
        }
        return finish(t, woken);
    }
    case op_kind::sleep:
    case op_kind::sleep_until: {
        if (t.resumed) return finish(t, 0);
        h_.sync();
        const ps_t expiry = o.kind == op_kind::sleep ? h_.now() + o.time * 1000 : o.time * 1000;
        if (expiry <= h_.now()) return finish(t, 0);
        arm_timer(t, expiry);
        return block(t);
    }
    case op_kind::fork:
        return sys_fork(t);
    case op_kind::exec:
        return sys_exec(t);
    case op_kind::io_submit:
        return sys_io_submit(t);
    case op_kind::io_getevents:
        return sys_io_getevents(t);
    case op_kind::wait_child:
        h_.sync();
        if (!t.exited_children.empty()) { // reap one
            const int pid = t.exited_children.front();
            t.exited_children.pop_front();
            return finish(t, static_cast<std::uint64_t>(pid));
        }
        if (t.live_children == 0) return finish(t, 0); // ECHILD
        return block(t);
    case op_kind::wait_children:
        h_.sync();
        if (t.live_children == 0) return finish(t, 0);
        return block(t);
    case op_kind::yield:
        h_.sync();
        finish(t, 0);
        k_.set_running_cpu(cpu_);
        k_.sched().yield(cpu_, ns(h_.now()));
        return reschedule(false);
    case op_kind::exit:
        return sys_exit(t);
    case op_kind::compute:
        return;
    }
}

void cpu_executor::lock(channel& ch) {
    h_.sync();
    const ps_t now = h_.now();
    if (ch.locked_until_ps > now) { // held by a task on another CPU: spin until it unlocks
        ++ch.lock_contended;
        ch.lock_wait_ps += ch.locked_until_ps - now;
        charge(ch.locked_until_ps - now);
    }
    touch(ch.struct_line(0), true); // the lock word
}

void cpu_executor::unlock(channel& ch) {
    ch.locked_until_ps = std::max<std::uint64_t>(ch.locked_until_ps, h_.now());
}

void cpu_executor::sys_write(kernel_task& t, channel& ch) {
    op& o = *t.current;
    lock(ch);
    const std::uint64_t piece = std::min(o.count - t.done, ch.max_segment());
    if (!ch.fits(piece)) {
        unlock(ch);
        ch.writers.push_back(&t);
        return block(t);
    }
    const bool was_empty = ch.empty();
    const std::uint64_t addr = ch.append(piece);
    charge(static_cast<ps_t>(k_.costs().pipe_write_ps));
    if (ch.is_socket()) touch(addr, true); // the sk_buff header
    copy(t.user_buffer, addr + (ch.is_socket() ? k_.machine().line_size() : 0), piece);
    touch(ch.struct_line(1), true); // head and the readers' wait queue
    unlock(ch);
    t.done += piece;
    if (!ch.readers.empty() && (was_empty || ch.is_socket())) {
        kernel_task* r = ch.readers.front();
        ch.readers.pop_front();
        wake(*r, scheduler::WF_SYNC);
    }
    if (t.done >= o.count) finish(t, o.count);
}

void cpu_executor::sys_read(kernel_task& t, channel& ch) {
    op& o = *t.current;
    lock(ch);
    touch(ch.struct_line(1), false);
    if (ch.empty()) {
        unlock(ch);
        ch.readers.push_back(&t);
        return block(t);
    }
    std::vector<channel::piece> pieces;
    const std::uint64_t got = ch.consume(o.count, pieces);
    charge(static_cast<ps_t>(k_.costs().pipe_read_ps));
    std::uint64_t at = 0;
    for (const auto& pc : pieces) {
        copy(pc.addr, t.user_buffer + at, pc.bytes);
        at += pc.bytes;
    }
    unlock(ch);
    // Writers blocked on a full buffer: a pipe wakes one as soon as a slot frees; a socket once half
    // of its send buffer is free again (unix_write_space).
    if (!ch.writers.empty() && (ch.kind() == channel_kind::pipe || ch.used() * 2 <= ch.capacity())) {
        kernel_task* w = ch.writers.front();
        ch.writers.pop_front();
        wake(*w, scheduler::WF_SYNC);
    }
    finish(t, got);
}

void cpu_executor::sys_fork(kernel_task& t) {
    const spawn_spec& s = *t.current->spawn;
    charge(static_cast<ps_t>(s.thread ? k_.costs().clone_ps : k_.costs().fork_ps));
    h_.sync();
    kernel_task& child = k_.fork_task(t, s);
    // copy_process writes the child's task_struct and kernel stack here: they are the child's lines,
    // in this CPU's caches (a child placed elsewhere fetches them again -- the fork refill).
    h_.set_task(static_cast<std::uint32_t>(child.t.pid));
    touch(child.task_struct, true);
    touch(child.kernel_stack, true);
    h_.set_task(static_cast<std::uint32_t>(t.t.pid));
    k_.set_running_cpu(cpu_);
    k_.sched().sched_fork(child.t, cpu_, ns(h_.now()));
    const unsigned target = k_.sched().wake_up_new_task(child.t, cpu_, ns(h_.now()));
    if (target != cpu_) charge(static_cast<ps_t>(k_.costs().remote_enqueue_ps));
    touch(k_.rq_line(target), true);
    finish(t, static_cast<std::uint64_t>(child.t.pid));
}

void cpu_executor::sys_exec(kernel_task& t) {
    if (t.done == 0) { // bprm_execve -> sched_exec, before the old image is dropped
        t.done = 1;
        h_.sync();
        k_.set_running_cpu(cpu_);
        if (k_.sched().sched_exec(cpu_, ns(h_.now())) != cpu_)
            return reschedule(true); // the stopper moves it; the exec goes on where it lands
    }
    charge(static_cast<ps_t>(k_.costs().exec_ps));
    h_.sync();
    k_.exec_task(t, *t.current->spawn); // a new mm: the old working sets are gone
    loaded_mm_ = t.mm.get();            // exec_mmap activates the new mm on this CPU
    touch(t.task_struct, true);
    touch(t.kernel_stack, true);
    finish(t, 0);
}

namespace {
// Moves up to `max` ready completions of `io` into io.reaped.
std::uint64_t reap(io_context& io, std::uint64_t max) {
    io.reaped.clear();
    while (io.reaped.size() < max && !io.ready.empty()) {
        io.reaped.push_back(io.ready.front());
        io.ready.pop_front();
    }
    return io.reaped.size();
}
} // namespace

void cpu_executor::sys_io_submit(kernel_task& t) {
    const op& o = *t.current;
    io_context& io = *o.io;
    if (t.done == 0) { // blk_mq_submit_bio and nvme_queue_rq per request, one doorbell write
        t.done = 1;
        charge(static_cast<ps_t>(k_.costs().io_submit_ps * static_cast<double>(o.count)));
        touch(io.sq_line, true);
        h_.sync();
        k_.submit_io(io, cpu_, o.count);
        if (!o.value) return finish(t, o.count);
    }
    // pread/pwrite: sleep until the request's completion interrupt.
    h_.sync();
    if (!io.ready.empty()) {
        touch(io.ring_line, false);
        reap(io, 1);
        return finish(t, io.bytes);
    }
    io.waiter = &t;
    io.min_nr = 1;
    return block(t);
}

void cpu_executor::sys_io_getevents(kernel_task& t) {
    const op& o = *t.current;
    io_context& io = *o.io;
    h_.sync();
    touch(io.ring_line, false);
    const std::uint64_t min_nr = std::max<long>(o.value, 1);
    if (io.ready.size() >= min_nr || (io.inflight == 0 && !io.ready.empty())) {
        const std::uint64_t n = reap(io, o.count);
        touch(t.user_buffer, true); // the io_event array
        return finish(t, n);
    }
    if (io.inflight == 0) return finish(t, 0); // nothing in flight: nothing to wait for
    io.waiter = &t;
    io.min_nr = min_nr;
    return block(t);
}

void cpu_executor::sys_exit(kernel_task& t) {
    charge(static_cast<ps_t>(k_.costs().exit_ps));
    h_.sync();
    finish(t, 0);
    t.t.state = task_state::dead;
    t.exited = ns(h_.now());
    if (kernel_task* parent = t.parent) {
        --parent->live_children;
        parent->exited_children.push_back(t.t.pid);
        const bool waiting = parent->t.state == task_state::sleeping && parent->current;
        if (waiting && ((parent->live_children == 0 && parent->current->kind == op_kind::wait_children) ||
                        parent->current->kind == op_kind::wait_child))
            wake(*parent, 0);
    }
    k_.task_exited(t);
    reschedule(false);
}

} // namespace warmsched::workloads
