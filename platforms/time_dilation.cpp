// The dilated machine; see time_dilation.h.
#include "platforms/time_dilation.h"

namespace warmsched::platform {

void apply_time_dilation(platform_params& p, double k) {
    if (k == 1.0) return;
    p.core.frequency_hz /= k;
    p.core.atomic_latency_ps *= k;
    for (auto& c : p.caches) {
        c.latency_ps *= k;
        c.peer_snoop_latency_ps *= k;
    }
    p.memory.latency_ps *= k;
    p.memory.bandwidth /= k;
    p.fabric.directory_latency_ps *= k;
    p.fabric.bandwidth_window_ps *= k;
    for (auto& l : p.fabric.links) {
        l.latency_ps *= k;
        l.bandwidth /= k;
        l.reverse_bandwidth /= k;
    }
    auto& c = p.kernel_costs;
    for (double* t : {&c.context_switch_ps, &c.mm_switch_ps, &c.syscall_ps, &c.pipe_write_ps, &c.pipe_read_ps,
                      &c.unix_skb_alloc_ps, &c.unix_skb_free_ps,
                      &c.wakeup_ps, &c.remote_enqueue_ps, &c.ipi_ps, &c.ipi_send_ps, &c.ipi_handler_ps, &c.idle_exit_ps, &c.fork_ps,
                      &c.clone_ps, &c.exit_ps, &c.exec_ps, &c.io_submit_ps, &c.io_complete_ps, &c.migrate_ps,
                      &c.acpi_dummy_wait_ps})
        *t *= k;
    for (auto& s : p.idle_states)
        for (double* t : {&s.exit_latency_ps, &s.target_residency_ps, &s.exit_time_ps}) *t *= k;
    auto& d = p.block_device;
    for (double* t : {&d.random_read_latency_ps, &d.sequential_read_latency_ps, &d.random_write_latency_ps,
                      &d.sequential_write_latency_ps})
        *t *= k;
    for (double* r : {&d.read_iops, &d.write_iops, &d.read_bandwidth, &d.write_bandwidth}) *r /= k;
}

} // namespace warmsched::platform
