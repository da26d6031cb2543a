// One CPU's interrupts and timers: the IPI (a kick, the NOHZ balancer's kick, a CFS bandwidth
// unthrottle), task timers, device interrupts raised by models (raise_irq), the RT period hrtimer, and the
// scheduler tick of a busy CPU. See cpu_executor.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

#include <algorithm>

namespace warmsched::workloads {

using models::ps_t;

void cpu_executor::handle_interrupts() {
    if (ipi_pending_ && h_.now() >= ipi_at_) {
        ipi_pending_ = false;
        ++stats_.ipis;
        // A polling CPU (idle=poll, or the POLL state when the kick came) takes no interrupt.
        if (busy_ || !(k_.costs().idle_polling || ipi_polled_))
            charge(static_cast<ps_t>(k_.costs().ipi_handler_ps));
        ipi_polled_ = false;
        if (k_.sched().nohz_kick_pending(cpu_)) { // a NOHZ kick: balance on behalf of the idle CPUs
            enter_scheduler().nohz_idle_balance(cpu_, now_ns());
            charge_balance();
        }
        if (k_.sched().cfsb_csd_pending(cpu_)) { // a CFS bandwidth unthrottle queued for this CPU
            enter_scheduler().cfsb_csd(cpu_, now_ns());
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
        scheduler::scheduler& s = enter_scheduler();
        ++stats_.ticks;
        s.scheduler_tick(cpu_, now_ns());
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

void cpu_executor::arm_timer(kernel_task& t, ps_t expiry) {
    timers_.emplace(expiry, t.t.pid, &t);
}

} // namespace warmsched::workloads
