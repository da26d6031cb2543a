// An rt-app thread; see rtapp_thread.h. The order of operations follows rt-app.c (thread_body, run,
// run_event, loadwait) of scheduler-tools/rt-app.
#include "workloads/rtapp/rtapp_thread.h"

#include "workloads/kernel/sim_kernel.h"

#include <cmath>
#include <cstdio>

namespace warmsched::workloads::rtapp {

namespace {

// rt-app's timespec_to_usec: nanoseconds rounded to the nearest microsecond.
unsigned long usec(scheduler::nsec ns) {
    return static_cast<unsigned long>((ns + 500) / 1000);
}
long usec_signed(std::int64_t ns) {
    return std::lround(static_cast<double>(ns) / 1000.0);
}

// rt-app's loadwait: the loops of `exec_us` of work (in bursts of one second, as rt-app counts them).
std::uint64_t loops_for(long long exec_us, long p_load) {
    const std::uint64_t secs = static_cast<std::uint64_t>(exec_us) / 1'000'000;
    const std::uint64_t rest = static_cast<std::uint64_t>(exec_us) - secs * 1'000'000;
    return secs * (1'000'000'000ull / static_cast<std::uint64_t>(p_load)) +
           rest * 1000 / static_cast<std::uint64_t>(p_load);
}

scheduler::sched_policy kernel_policy(policy p) {
    switch (p) {
    case policy::batch:
        return scheduler::sched_policy::batch;
    case policy::idle:
        return scheduler::sched_policy::idle;
    case policy::fifo:
        return scheduler::sched_policy::fifo;
    case policy::rr:
        return scheduler::sched_policy::rr;
    default:
        return scheduler::sched_policy::normal;
    }
}

} // namespace

rtapp_thread::rtapp_thread(std::shared_ptr<world> w, int ind, bool forked)
    : w_(std::move(w)), ind_(ind), task_(w_->threads[static_cast<std::size_t>(ind)].task), forked_(forked) {}

std::shared_ptr<spawn_spec> rtapp_thread::spec(const std::shared_ptr<world>& w, int ind, bool forked) {
    const thread_record& r = w->threads[static_cast<std::size_t>(ind)];
    const task& t = w->cfg.tasks[static_cast<std::size_t>(r.task)];
    auto s = std::make_shared<spawn_spec>();
    // pthread_setname_np fails for names longer than 15 characters: the thread keeps rt-app's comm.
    s->comm = r.name.size() <= 15 ? r.name : "rt-app";
    s->thread = true;
    s->policy = kernel_policy(t.pol);
    s->nice = t.pol == policy::other || t.pol == policy::batch ? t.priority : 0;
    s->rt_priority = t.pol == policy::fifo || t.pol == policy::rr ? t.priority : 0; // sched_priority
    s->allowed = t.cpus;
    s->custom_slice = t.custom_slice_ns; // sched_setattr(sched_runtime); CFS (v5.15) has no such slice
    s->body = std::make_shared<rtapp_thread>(w, ind, forked);
    return s;
}

std::string rtapp_thread::event_key() const {
    const phase& ph = w_->cfg.tasks[static_cast<std::size_t>(task_)].phases[phase_];
    return event_ > 0 && event_ <= ph.events.size() ? ph.events[event_ - 1].key : "?";
}

futex_word& rtapp_thread::word() {
    if (!word_) word_ = &w_->k->make_futex();
    return *word_;
}

timer_state& rtapp_thread::timer(int res) {
    const auto i = static_cast<std::size_t>(res);
    if (!w_->cfg.resources[i].unique) return w_->timers[i];
    if (unique_timers_.size() <= i) unique_timers_.resize(w_->cfg.resources.size());
    return unique_timers_[i];
}

void rtapp_thread::expand(const event& e) {
    world& w = *w_;
    const auto r = static_cast<std::size_t>(e.res);
    auto push = [&](micro m) { micros_.push_back(m); };
    if (w.stop && e.kind != event_kind::lock && e.kind != event_kind::unlock) return; // rt-app's dry run
    switch (e.kind) {
    case event_kind::run:
        push({micro::run, nullptr, nullptr, -1, e.duration_us});
        break;
    case event_kind::runtime:
        push({micro::runtime, nullptr, nullptr, -1, e.duration_us});
        break;
    case event_kind::sleep:
        outbox_.push_back(op::sleep(static_cast<scheduler::nsec>(e.duration_us) * 1000));
        break;
    case event_kind::timer:
        push({micro::timer, nullptr, nullptr, e.res, e.duration_us});
        break;
    case event_kind::lock:
        ++locks_;
        push({micro::lock, &w.mutexes[r]});
        break;
    case event_kind::unlock:
        --locks_;
        push({micro::unlock, &w.mutexes[r]});
        break;
    case event_kind::wait:
        push({micro::cond_wait, &w.mutexes[static_cast<std::size_t>(e.dep)], &w.conds[r]});
        break;
    case event_kind::signal:
        push({micro::signal, nullptr, &w.conds[r]});
        break;
    case event_kind::broad:
        push({micro::broadcast, nullptr, &w.conds[r]});
        break;
    case event_kind::sync:
        push({micro::signal, nullptr, &w.conds[r]});
        push({micro::cond_wait, &w.mutexes[static_cast<std::size_t>(e.dep)], &w.conds[r]});
        break;
    case event_kind::barrier:
        push({micro::lock, &w.barrier_mutexes[r]});
        push({micro::barrier_check, nullptr, nullptr, e.res});
        push({micro::unlock, &w.barrier_mutexes[r]});
        break;
    case event_kind::suspend: {
        mutex_state* m = &w.mutexes[static_cast<std::size_t>(e.dep)];
        push({micro::lock, m});
        push({micro::cond_wait, m, &w.conds[r]});
        push({micro::unlock, m});
        break;
    }
    case event_kind::resume: {
        mutex_state* m = &w.mutexes[static_cast<std::size_t>(e.dep)];
        push({micro::lock, m});
        push({micro::broadcast, nullptr, &w.conds[r]});
        push({micro::unlock, m});
        break;
    }
    case event_kind::mem:
    case event_kind::memrun: {
        const memory_profile* p = w.event_profiles[static_cast<std::size_t>(task_)][phase_][event_ - 1].get();
        const std::uint64_t n = e.kind == event_kind::mem
                                    ? (e.bytes + 63) / 64 * w.params.mem_instructions_per_line
                                    : e.accesses * w.params.memrun_instructions_per_access;
        outbox_.push_back(op::compute(n, p));
        break;
    }
    case event_kind::yield:
        outbox_.push_back(op::yield());
        break;
    case event_kind::fork:
        push({micro::fork, nullptr, nullptr, e.res});
        break;
    }
}

bool rtapp_thread::step_micro(micro& m, const program_context& ctx) {
    world& w = *w_;
    const auto touch = [&](const memory_profile& line) { outbox_.push_back(op::compute(1, &line)); };
    std::vector<micro> then; // steps that replace this one when it finishes
    bool finished = false;
    switch (m.what) {
    case micro::lock:
        if (m.step == 0) { // the atomic on the lock word
            touch(m.m->line);
            m.step = 1;
        } else if (m.step == 1) {
            if (!m.m->locked) {
                m.m->locked = true;
                m.m->owner = ind_;
                finished = true;
            } else { // contended: sleep in the kernel until an unlock wakes us, then retry
                const waiter me{&word(), word().value, ind_};
                add_waiter(w, m.m->waiters, me, m.m, nullptr, event_key());
                outbox_.push_back(op::futex_wait(*me.word, me.token));
                waiter_asleep(w, ind_, ctx.now);
                m.step = 2;
            }
        } else {
            m.step = 0;
        }
        break;
    case micro::unlock:
        if (m.step == 0) {
            touch(m.m->line);
            m.step = 1;
        } else {
            m.m->locked = false;
            m.m->owner = -1;
            if (!m.m->waiters.empty()) {
                const waiter v = take_waiter(w, m.m->waiters);
                outbox_.push_back(op::futex_wake(*v.word, v.token + 1, 1));
            }
            finished = true;
        }
        break;
    case micro::cond_wait:
        if (m.step == 0) {
            touch(m.c->line);
            m.step = 1;
        } else if (w.stop) {
            // The stop's wakeup of every waiter has happened already: a thread reaching a wait after it
            // (midway through a barrier) would sleep for ever, and rt-app would hang in pthread_join.
            // It returns at once instead.
            finished = true;
        } else { // register as a waiter, release the mutex, sleep, take the mutex again
            const waiter me{&word(), word().value, ind_};
            add_waiter(w, m.c->waiters, me, nullptr, m.c, event_key());
            then = {micro{micro::unlock, m.m}, micro{micro::wait_word, nullptr, nullptr, -1, me.token},
                    micro{micro::lock, m.m}};
            finished = true;
        }
        break;
    case micro::wait_word:
        if (m.step == 0) {
            outbox_.push_back(op::futex_wait(word(), static_cast<long>(m.value)));
            waiter_asleep(w, ind_, ctx.now);
            m.step = 1;
        } else {
            finished = true;
        }
        break;
    case micro::signal:
    case micro::broadcast:
        if (m.step == 0) {
            touch(m.c->line);
            m.step = 1;
        } else {
            while (!m.c->waiters.empty()) {
                const waiter v = take_waiter(w, m.c->waiters);
                outbox_.push_back(op::futex_wake(*v.word, v.token + 1, 1));
                if (m.what == micro::signal) break;
            }
            finished = true;
        }
        break;
    case micro::barrier_check: {
        const auto b = static_cast<std::size_t>(m.res);
        if (w.barrier_waiting[b] == 0) { // the last one in: release everyone
            then = {micro{micro::broadcast, nullptr, &w.barrier_conds[b]}};
        } else {
            --w.barrier_waiting[b];
            then = {micro{micro::cond_wait, &w.barrier_mutexes[b], &w.barrier_conds[b]},
                    micro{micro::barrier_leave, nullptr, nullptr, m.res}};
        }
        finished = true;
        break;
    }
    case micro::barrier_leave:
        ++w.barrier_waiting[static_cast<std::size_t>(m.res)];
        finished = true;
        break;
    case micro::start_barrier:
        if (m.step == 0) {
            if (++w.start_arrived == w.cfg.threads) {
                if (w.cfg.threads > 1)
                    outbox_.push_back(
                        op::futex_wake(*w.start_word, 1, static_cast<std::uint64_t>(w.cfg.threads - 1)));
                finished = true;
            } else {
                outbox_.push_back(op::futex_wait(*w.start_word, 0));
                m.step = 1;
            }
        } else {
            finished = true;
        }
        break;
    case micro::run:
        if (m.step == 0) {
            m.t0 = ctx.now;
            row_.c_duration += static_cast<unsigned long>(m.value);
            row_.perf += static_cast<unsigned long>(m.value / w.p_load);
            const std::uint64_t n = loops_for(m.value, w.p_load) * w.params.instructions_per_loop;
            if (n > 0) outbox_.push_back(op::compute(n, nullptr));
            m.step = 1;
        } else {
            row_.run += usec(ctx.now - m.t0);
            finished = true;
        }
        break;
    case micro::runtime:
        if (m.step == 0) {
            m.t0 = ctx.now;
            row_.c_duration += static_cast<unsigned long>(m.value);
            m.step = 1;
        } else if (m.step == 1) { // do { loadwait(32) } while (elapsed us < duration)
            row_.perf += static_cast<unsigned long>(32 / w.p_load);
            const std::uint64_t loops = std::max<std::uint64_t>(1, loops_for(32, w.p_load));
            outbox_.push_back(op::compute(loops * w.params.instructions_per_loop, nullptr));
            m.step = 2;
        } else if (static_cast<long long>((ctx.now - m.t0) / 1000) < m.value) {
            m.step = 1;
        } else {
            row_.run += usec(ctx.now - m.t0);
            finished = true;
        }
        break;
    case micro::timer:
        if (m.step == 0) {
            const resource& r = w.cfg.resources[static_cast<std::size_t>(m.res)];
            timer_state& ts = timer(m.res);
            row_.c_period += static_cast<unsigned long>(m.value);
            if (!ts.init) {
                ts.init = true;
                ts.next = t_first_;
            }
            ts.next += static_cast<scheduler::nsec>(m.value) * 1000;
            const long slack =
                usec_signed(static_cast<std::int64_t>(ts.next) - static_cast<std::int64_t>(ctx.now));
            row_.slack = w.cfg.global.cumulative_slack ? row_.slack + slack : slack;
            if (ctx.now < ts.next) {
                m.value = static_cast<long long>(ts.next);
                outbox_.push_back(op::sleep_until(ts.next));
                m.step = 1;
            } else {
                if (!r.absolute) ts.next = ctx.now;
                row_.wu_lat = 0;
                finished = true;
            }
        } else {
            row_.wu_lat += usec(ctx.now - static_cast<scheduler::nsec>(m.value));
            finished = true;
        }
        break;
    case micro::fork:
        if (m.step == 0) {
            const auto f = static_cast<std::size_t>(m.res);
            const resource& target = w.cfg.resources[f];
            if (w.forks[f] >= 1024) { // rt-app's FORKS_LIMIT: it exits
                w.errors.push_back(w.threads[static_cast<std::size_t>(ind_)].name +
                                   " reached its fork limit (1024)");
                w.stop = true;
                finished = true;
                break;
            }
            thread_record rec;
            rec.task = target.task;
            rec.ind = static_cast<int>(w.threads.size());
            rec.forked = true;
            char name[32];
            std::snprintf(name, sizeof name, "-%d-%04d", rec.ind, w.forks[f]++);
            rec.name = w.cfg.tasks[static_cast<std::size_t>(target.task)].name + name;
            w.threads.push_back(rec);
            ++w.live_threads;
            outbox_.push_back(op::fork(spec(w_, rec.ind, true)));
            m.step = 1;
        } else {
            finished = true;
        }
        break;
    }
    if (finished) micros_.insert(micros_.begin(), then.begin(), then.end());
    return finished;
}

void rtapp_thread::end_phase(scheduler::nsec now) {
    world& w = *w_;
    row_.ind = ind_;
    row_.period = usec(now - t_phase_);
    row_.start = usec(t_phase_);
    row_.end = usec(now);
    row_.rel_start = usec(t_phase_ - w.t_start);
    if (!w.stop && !w.cfg.global.log_disabled) w.threads[static_cast<std::size_t>(ind_)].rows.push_back(row_);
    const task& t = w.cfg.tasks[static_cast<std::size_t>(task_)];
    if (++phase_loop_ == t.phases[phase_].loop) {
        phase_loop_ = 0;
        if (++phase_ == t.phases.size()) {
            phase_ = 0;
            ++thread_loop_;
        }
    }
}

op rtapp_thread::next(program_context& ctx) {
    world& w = *w_;
    const task& t = w.cfg.tasks[static_cast<std::size_t>(task_)];
    for (;;) {
        if (!outbox_.empty()) {
            op o = outbox_.front();
            outbox_.pop_front();
            return o;
        }
        if (!micros_.empty()) {
            micro m = micros_.front();
            micros_.pop_front();
            if (!step_micro(m, ctx)) micros_.push_front(m);
            continue;
        }
        switch (stage_) {
        case stage::init: {
            thread_record& rec = w.threads[static_cast<std::size_t>(ind_)];
            rec.pid = ctx.pid;
            rec.started = true;
            // rt-app's set_thread_taskgroup: the thread writes its tid to the group's cgroup.procs.
            if (const auto g =
                    static_cast<std::size_t>(task_) < w.task_groups.size() ? w.task_groups[task_] : 0)
                for (auto it = w.k->tasks().rbegin(); it != w.k->tasks().rend(); ++it)
                    if ((*it)->t.pid == ctx.pid) {
                        w.k->sched().attach_task((*it)->t, g, ctx.now);
                        break;
                    }
            if (ind_ == 0) w.t_zero = ctx.now; // the first thread's start is the clock reference
            if (!forked_) micros_.push_back({micro::start_barrier});
            stage_ = stage::delay;
            break;
        }
        case stage::delay:
            t_first_ = w.t_zero;
            if (t.delay_us > 0) {
                t_first_ += static_cast<scheduler::nsec>(t.delay_us) * 1000;
                outbox_.push_back(op::sleep_until(t_first_));
            }
            stage_ = stage::phase_begin;
            break;
        case stage::phase_begin:
            if (w.stop || thread_loop_ == t.loop) {
                stage_ = stage::exiting;
                break;
            }
            row_ = log_row{};
            t_phase_ = ctx.now;
            event_ = 0;
            locks_ = 0;
            stage_ = stage::events;
            break;
        case stage::events: {
            const phase& ph = t.phases[phase_];
            if (event_ == ph.events.size() || (w.stop && locks_ == 0)) {
                end_phase(ctx.now);
                stage_ = stage::phase_begin;
                break;
            }
            expand(ph.events[event_++]);
            break;
        }
        case stage::exiting:
            w.threads[static_cast<std::size_t>(ind_)].exited = true;
            if (--w.live_threads == 0)
                outbox_.push_back(op::futex_wake(*w.main_word, w.main_word->value + 1, 1));
            check_deadlock(w, ctx.now); // the threads left may all be waiting on what it held
            outbox_.push_back(op::exit());
            stage_ = stage::done;
            break;
        case stage::done:
            return op::exit();
        }
    }
}

} // namespace warmsched::workloads::rtapp
