// Perfetto protobuf trace; see perfetto_trace_writer.h.
#include "sim/outputs/perfetto_trace_writer.h"

#include "sim/outputs/perfetto/perfetto_trace.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace warmsched::sim {
namespace {
namespace pb = perfetto::protos;
using event = sched_event_log::event;
using kind = sched_event_log::kind;
using scheduler::nsec;

constexpr std::uint32_t ftrace_sequence = 1, counter_sequence = 2;

// clone(2) flags as glibc passes them: fork() and pthread_create().
constexpr std::uint64_t fork_clone_flags = 0x01200011; // CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD
constexpr std::uint64_t thread_clone_flags = 0x003d0f00; // CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM
                                                         // | SETTLS | PARENT_SETTID | CHILD_CLEARTID

// sched_switch's prev_state as __trace_sched_switch_state reports it (kernels 4.14+).
std::int64_t prev_state_bits(sched_event_log::prev_state s) {
    switch (s) {
    case sched_event_log::prev_state::preempted:
        return 0x100; // TASK_REPORT_MAX
    case sched_event_log::prev_state::sleeping:
        return 0x1; // TASK_INTERRUPTIBLE
    case sched_event_log::prev_state::dead:
        return 0x10; // EXIT_DEAD
    default:
        return 0; // TASK_RUNNING
    }
}

// The counter series of each CPU, in display order; track uuid 2 + 4 * cpu + series (1: the group).
enum series : unsigned { l1d_misses, l2_misses, l3_misses, nr_running, series_count };
const char* const series_names[series_count] = {"L1d misses", "L2 misses", "L3 misses", "nr_running"};
constexpr std::uint64_t counters_group_uuid = 1;
std::uint64_t counter_uuid(unsigned cpu, series s) {
    return 2 + std::uint64_t{series_count} * cpu + s;
}

class packet_stream {
public:
    explicit packet_stream(std::ostream& out) : raw_(&out), coded_(&raw_) {
        coded_.SetSerializationDeterministic(true);
    }
    // Appends `p` as one `packet` (field 1) of the Trace message.
    void put(const pb::TracePacket& p) {
        coded_.WriteTag(1 << 3 | 2); // field 1, length-delimited
        coded_.WriteVarint64(p.ByteSizeLong());
        p.SerializeWithCachedSizes(&coded_);
    }

private:
    google::protobuf::io::OstreamOutputStream raw_;
    google::protobuf::io::CodedOutputStream coded_;
};

void add_ftrace_events(pb::FtraceEventBundle& bundle, const event& e) {
    auto common = [&](nsec t, int pid) {
        pb::FtraceEvent* f = bundle.add_event();
        f->set_timestamp(t);
        f->set_pid(static_cast<std::uint32_t>(pid));
        return f;
    };
    auto wake = [&](auto* w) { // sched_waking, sched_wakeup and sched_wakeup_new have the same fields
        w->set_comm(e.task.comm);
        w->set_pid(e.task.pid);
        w->set_prio(e.task.prio);
        w->set_target_cpu(static_cast<std::int32_t>(e.target_cpu));
    };
    switch (e.what) {
    case kind::sched_switch: {
        auto* s = common(e.t, e.current.pid)->mutable_sched_switch();
        s->set_prev_comm(e.task.comm);
        s->set_prev_pid(e.task.pid);
        s->set_prev_prio(e.task.prio);
        s->set_prev_state(prev_state_bits(e.state));
        s->set_next_comm(e.other.comm);
        s->set_next_pid(e.other.pid);
        s->set_next_prio(e.other.prio);
        if (e.state == sched_event_log::prev_state::dead) { // the task is freed after its last switch
            auto* f = common(e.t, e.other.pid)->mutable_sched_process_free();
            f->set_comm(e.task.comm);
            f->set_pid(e.task.pid);
            f->set_prio(e.task.prio);
        }
        break;
    }
    case kind::sched_waking:
        wake(common(e.t, e.current.pid)->mutable_sched_waking());
        break;
    case kind::sched_wakeup:
        wake(common(e.t, e.current.pid)->mutable_sched_wakeup());
        break;
    case kind::sched_wakeup_new:
        wake(common(e.t, e.current.pid)->mutable_sched_wakeup_new());
        break;
    case kind::sched_migrate_task: {
        auto* m = common(e.t, e.current.pid)->mutable_sched_migrate_task();
        m->set_comm(e.task.comm);
        m->set_pid(e.task.pid);
        m->set_prio(e.task.prio);
        m->set_orig_cpu(static_cast<std::int32_t>(e.target_cpu));
        m->set_dest_cpu(static_cast<std::int32_t>(e.dest_cpu));
        break;
    }
    case kind::sched_process_fork: {
        // copy_process fires task_newtask; kernel_clone then sched_process_fork.
        auto* n = common(e.t, e.current.pid)->mutable_task_newtask();
        n->set_pid(e.other.pid);
        n->set_comm(e.other.comm);
        n->set_clone_flags(e.other.tgid != e.other.pid ? thread_clone_flags : fork_clone_flags);
        auto* f = common(e.t, e.current.pid)->mutable_sched_process_fork();
        f->set_parent_comm(e.task.comm);
        f->set_parent_pid(e.task.pid);
        f->set_child_comm(e.other.comm);
        f->set_child_pid(e.other.pid);
        break;
    }
    case kind::sched_process_exit: {
        auto* x = common(e.t, e.current.pid)->mutable_sched_process_exit();
        x->set_comm(e.task.comm);
        x->set_pid(e.task.pid);
        x->set_tgid(e.task.tgid);
        x->set_prio(e.task.prio);
        break;
    }
    case kind::counter: // trace.txt's tracing_mark_write: here the counter tracks carry them
        break;
    }
}

// The tasks of the window that it did not fork: the processes and threads alive when it starts.
pb::TracePacket process_tree(const std::vector<const event*>& events, nsec start) {
    std::map<int, const sched_event_log::traced_task*> seen; // pid -> as first seen
    std::set<int> forked;
    for (const event* e : events) {
        for (const auto* t : {&e->current, &e->task, &e->other})
            if (t->pid != 0) seen.emplace(t->pid, t);
        if (e->what == kind::sched_process_fork) forked.insert(e->other.pid);
    }
    pb::TracePacket p;
    p.set_timestamp(start);
    p.set_trusted_packet_sequence_id(ftrace_sequence);
    auto* tree = p.mutable_process_tree();
    std::map<int, std::string> process_names; // tgid -> its main thread's comm (or its first thread's)
    for (const auto& [pid, t] : seen) {
        if (forked.count(pid)) continue;
        auto* th = tree->add_threads();
        th->set_tid(pid);
        th->set_tgid(t->tgid);
        th->set_name(t->comm);
        if (pid == t->tgid || !process_names.count(t->tgid)) process_names[t->tgid] = t->comm;
    }
    for (const auto& [tgid, name] : process_names) {
        auto* pr = tree->add_processes();
        pr->set_pid(tgid);
        pr->add_cmdline(name);
        pr->set_cmdline_is_comm(true);
    }
    return p;
}

void put_counter_tracks(packet_stream& out, unsigned num_cpus) {
    pb::TracePacket p;
    p.set_trusted_packet_sequence_id(counter_sequence);
    auto* group = p.mutable_track_descriptor();
    group->set_uuid(counters_group_uuid);
    group->set_name("CPU counters");
    group->set_child_ordering(pb::TrackDescriptor::EXPLICIT);
    out.put(p);
    for (unsigned c = 0; c < num_cpus; ++c)
        for (unsigned s = 0; s < series_count; ++s) {
            p.Clear();
            p.set_trusted_packet_sequence_id(counter_sequence);
            auto* d = p.mutable_track_descriptor();
            d->set_uuid(counter_uuid(c, static_cast<series>(s)));
            d->set_parent_uuid(counters_group_uuid);
            d->set_name("cpu" + std::to_string(c) + " " + series_names[s]);
            d->set_sibling_order_rank(static_cast<std::int32_t>(series_count * c + s));
            d->mutable_counter()->set_unit(pb::CounterDescriptor::UNIT_COUNT);
            out.put(p);
        }
}

void put_counter(packet_stream& out, nsec t, unsigned cpu, series s, std::uint64_t value) {
    pb::TracePacket p;
    p.set_timestamp(t);
    p.set_trusted_packet_sequence_id(counter_sequence);
    auto* e = p.mutable_track_event();
    e->set_type(pb::TrackEvent::TYPE_COUNTER);
    e->set_track_uuid(counter_uuid(cpu, s));
    e->set_counter_value(static_cast<std::int64_t>(value));
    out.put(p);
}
} // namespace

void write_perfetto_trace(std::ostream& out, const sched_event_log& log, const sched_timeline& counters,
                          const std::string& kernel_release) {
    packet_stream stream(out);
    const unsigned ncpus = log.num_cpus();
    {
        pb::TracePacket p;
        p.set_trusted_packet_sequence_id(ftrace_sequence);
        auto* info = p.mutable_system_info();
        info->mutable_utsname()->set_sysname("Linux");
        info->mutable_utsname()->set_release(kernel_release);
        info->mutable_utsname()->set_machine("x86_64"); // the platforms are x86 machines
        info->set_num_cpus(ncpus);
        stream.put(p);
    }
    const std::vector<const event*> events = log.in_time_order();
    stream.put(process_tree(events, log.start()));
    put_counter_tracks(stream, ncpus);

    const auto& samples = counters.samples();
    const auto& levels = counters.levels();
    std::size_t ei = 0, si = 0, li = 0;
    std::vector<std::vector<const event*>> per_cpu(ncpus);
    pb::TracePacket bundle_packet;
    while (ei < events.size() || si < samples.size() || li < levels.size()) {
        nsec first = ~nsec{0};
        if (ei < events.size()) first = std::min(first, events[ei]->t);
        if (si < samples.size()) first = std::min(first, samples[si].t);
        if (li < levels.size()) first = std::min(first, levels[li].t);
        const nsec period_end = (first / perfetto_bundle_period_ns + 1) * perfetto_bundle_period_ns;
        for (; ei < events.size() && events[ei]->t < period_end; ++ei)
            per_cpu[events[ei]->cpu].push_back(events[ei]);
        for (unsigned c = 0; c < ncpus; ++c) {
            if (per_cpu[c].empty()) continue;
            bundle_packet.Clear();
            bundle_packet.set_trusted_packet_sequence_id(ftrace_sequence);
            auto* bundle = bundle_packet.mutable_ftrace_events();
            bundle->set_cpu(c);
            for (const event* e : per_cpu[c]) add_ftrace_events(*bundle, *e);
            per_cpu[c].clear();
            if (bundle->event_size() > 0) stream.put(bundle_packet);
        }
        // The period's counter values in time order (a miss sample before a run-queue change at a tie).
        while ((si < samples.size() && samples[si].t < period_end) ||
               (li < levels.size() && levels[li].t < period_end)) {
            if (si < samples.size() && samples[si].t < period_end &&
                (li == levels.size() || samples[si].t <= levels[li].t)) {
                const auto& s = samples[si++];
                put_counter(stream, s.t, s.cpu, l1d_misses, s.l1d);
                put_counter(stream, s.t, s.cpu, l2_misses, s.l2);
                put_counter(stream, s.t, s.cpu, l3_misses, s.l3);
            } else {
                const auto& l = levels[li++];
                put_counter(stream, l.t, l.cpu, nr_running, l.nr_running);
            }
        }
    }
}

} // namespace warmsched::sim
