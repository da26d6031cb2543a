// rt-app's shared state; see rtapp_runtime.h.
#include "workloads/rtapp/rtapp_runtime.h"

#include "workloads/kernel/sim_kernel.h"

#include <algorithm>

namespace warmsched::workloads::rtapp {

namespace {
// The line of a lock word or condition: one store per atomic.
memory_profile lock_line(sim_kernel& k) {
    memory_profile p;
    p.working_set = k.machine().line_size();
    p.working_region = k.alloc_shared(p.working_set);
    p.pattern = access_pattern::stream;
    p.accesses_per_kilo_instruction = 1000;
    p.write_fraction = 1;
    return p;
}
} // namespace

void init_world(world& w, sim_kernel& k) {
    w.k = &k;
    const config& c = w.cfg;
    const std::size_t n = c.resources.size();
    w.mutexes.resize(n);
    w.conds.resize(n);
    w.timers.resize(n);
    w.barrier_waiting.assign(n, 0);
    w.barrier_mutexes.resize(n);
    w.barrier_conds.resize(n);
    w.buffers.assign(n, 0);
    w.forks.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const resource& r = c.resources[i];
        switch (r.kind) {
        case resource_kind::mutex:
            w.mutexes[i].line = lock_line(k);
            break;
        case resource_kind::cond:
            w.conds[i].line = lock_line(k);
            break;
        case resource_kind::barrier:
            w.barrier_waiting[i] = r.waiting;
            w.barrier_mutexes[i].line = lock_line(k);
            w.barrier_conds[i].line = lock_line(k);
            break;
        case resource_kind::buffer:
            w.buffers[i] = k.alloc_shared(c.global.mem_buffer_size);
            break;
        case resource_kind::timer:
        case resource_kind::fork:
            break;
        }
    }
    const unsigned line = k.machine().line_size();
    w.event_profiles.clear();
    for (const task& t : c.tasks) {
        auto& per_task = w.event_profiles.emplace_back();
        for (const phase& ph : t.phases) {
            auto& per_phase = per_task.emplace_back();
            for (const event& e : ph.events) {
                std::unique_ptr<memory_profile> p;
                if (e.kind == event_kind::mem || e.kind == event_kind::memrun) {
                    p = std::make_unique<memory_profile>();
                    const std::uint64_t bytes = std::min<std::uint64_t>(e.bytes, c.global.mem_buffer_size);
                    p->working_set = std::max<std::uint64_t>(line, (bytes + line - 1) / line * line);
                    p->working_region = w.buffers[static_cast<std::size_t>(e.res)];
                    if (e.kind == event_kind::mem) { // memset from the start of the buffer
                        p->pattern = access_pattern::stream;
                        p->write_fraction = 1;
                        p->accesses_per_kilo_instruction = 1000.0 / w.params.mem_instructions_per_line;
                    } else {
                        p->pattern = e.random ? access_pattern::uniform : access_pattern::stream;
                        p->write_fraction = e.write ? 1 : 0;
                        p->accesses_per_kilo_instruction = 1000.0 / w.params.memrun_instructions_per_access;
                    }
                }
                per_phase.push_back(std::move(p));
            }
        }
    }
    w.start_word = &k.make_futex();
    w.main_word = &k.make_futex();
}

std::vector<waiter> take_all_waiters(world& w) {
    std::vector<waiter> all;
    for (auto* conds : {&w.conds, &w.barrier_conds})
        for (cond_state& c : *conds) {
            all.insert(all.end(), c.waiters.begin(), c.waiters.end());
            c.waiters.clear();
        }
    return all;
}

} // namespace warmsched::workloads::rtapp
