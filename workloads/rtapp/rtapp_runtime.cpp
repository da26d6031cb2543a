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

namespace {
// A waiter is off its queue: its wakeup is on the way.
void off_queue(world& w, const waiter& v) {
    if (v.thread < 0) return;
    thread_record& r = w.threads[static_cast<std::size_t>(v.thread)];
    if (r.asleep) --w.blocked;
    r.waits_mutex = nullptr;
    r.waits_cond = nullptr;
    r.asleep = false;
}

// "mutex m held by t1-0", "barrier b", "cond c": what a waiting thread waits on.
std::string waited_on(const world& w, const thread_record& r) {
    const auto name = [&](std::size_t i) { return "\"" + w.cfg.resources[i].name + "\""; };
    if (r.waits_mutex) {
        const bool barrier = r.waits_mutex >= w.barrier_mutexes.data() &&
                             r.waits_mutex < w.barrier_mutexes.data() + w.barrier_mutexes.size();
        const std::size_t i = static_cast<std::size_t>(
            r.waits_mutex - (barrier ? w.barrier_mutexes.data() : w.mutexes.data()));
        const int owner = r.waits_mutex->owner;
        std::string held;
        if (owner >= 0) {
            const thread_record& o = w.threads[static_cast<std::size_t>(owner)];
            held = " held by " + o.name + (o.exited ? ", which has exited" : "");
        }
        return (barrier ? "the mutex of barrier " : "mutex ") + name(i) + held;
    }
    const bool barrier = r.waits_cond >= w.barrier_conds.data() &&
                         r.waits_cond < w.barrier_conds.data() + w.barrier_conds.size();
    const std::size_t i =
        static_cast<std::size_t>(r.waits_cond - (barrier ? w.barrier_conds.data() : w.conds.data()));
    return (barrier ? "barrier " : "cond ") + name(i);
}
} // namespace

std::vector<waiter> take_all_waiters(world& w) {
    std::vector<waiter> all;
    for (auto* conds : {&w.conds, &w.barrier_conds})
        for (cond_state& c : *conds) {
            all.insert(all.end(), c.waiters.begin(), c.waiters.end());
            c.waiters.clear();
        }
    for (const waiter& v : all) off_queue(w, v);
    return all;
}

void add_waiter(world& w, std::deque<waiter>& q, const waiter& v, const mutex_state* m, const cond_state* c,
                std::string in) {
    q.push_back(v);
    thread_record& r = w.threads[static_cast<std::size_t>(v.thread)];
    r.waits_mutex = m;
    r.waits_cond = c;
    r.waits_in = std::move(in);
    r.asleep = false;
}

waiter take_waiter(world& w, std::deque<waiter>& q) {
    const waiter v = q.front();
    q.pop_front();
    off_queue(w, v);
    return v;
}

void waiter_asleep(world& w, int ind, scheduler::nsec now) {
    thread_record& r = w.threads[static_cast<std::size_t>(ind)];
    if ((!r.waits_mutex && !r.waits_cond) || r.asleep) return;
    r.asleep = true;
    ++w.blocked;
    check_deadlock(w, now);
}

void check_deadlock(world& w, scheduler::nsec now) {
    if (!w.deadlock.empty() || w.live_threads <= 0 || w.blocked < w.live_threads) return;
    if (w.cfg.global.duration_s > 0 && !w.stop_woke)
        for (const thread_record& r : w.threads)
            if (r.asleep && r.waits_cond) return; // the stop will wake it
    constexpr std::size_t listed = 8;
    std::string who;
    std::size_t n = 0;
    for (const thread_record& r : w.threads) {
        if (!r.asleep) continue;
        if (n++ < listed)
            who += (who.empty() ? "" : ", ") + r.name + " waits on " + waited_on(w, r) + " (in " + r.waits_in + ")";
    }
    if (n > listed) who += ", and " + std::to_string(n - listed) + " more";
    w.deadlock = who;
    w.deadlock_at = now;
}

} // namespace warmsched::workloads::rtapp
