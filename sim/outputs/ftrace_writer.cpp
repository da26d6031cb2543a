// ftrace text writer; see ftrace_writer.h.
#include "sim/outputs/ftrace_writer.h"

#include <cstdio>
#include <string>

namespace warmsched::sim {
namespace {
using event = sched_event_log::event;
using kind = sched_event_log::kind;

const char* state_text(sched_event_log::prev_state s) {
    switch (s) {
    case sched_event_log::prev_state::sleeping:
        return "S";
    case sched_event_log::prev_state::dead:
        return "X";
    case sched_event_log::prev_state::preempted:
        return "R+";
    default:
        return "R";
    }
}

const char* name_of(kind k) {
    switch (k) {
    case kind::sched_switch:
        return "sched_switch";
    case kind::sched_waking:
        return "sched_waking";
    case kind::sched_wakeup:
        return "sched_wakeup";
    case kind::sched_wakeup_new:
        return "sched_wakeup_new";
    case kind::sched_migrate_task:
        return "sched_migrate_task";
    case kind::sched_process_fork:
        return "sched_process_fork";
    case kind::sched_process_exit:
        return "sched_process_exit";
    default:
        return "tracing_mark_write";
    }
}

// The flags column: d..2. in __schedule, d..3. under the rq lock, ..... elsewhere.
const char* flags_of(kind k) {
    switch (k) {
    case kind::sched_switch:
        return "d..2.";
    case kind::sched_waking:
    case kind::sched_wakeup:
    case kind::sched_wakeup_new:
    case kind::sched_migrate_task:
        return "d..3.";
    default:
        return ".....";
    }
}

std::string payload_of(const event& e) {
    char b[320];
    switch (e.what) {
    case kind::sched_switch:
        std::snprintf(b, sizeof b,
                      "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d "
                      "next_prio=%d",
                      e.task.comm.c_str(), e.task.pid, e.task.prio, state_text(e.state), e.other.comm.c_str(),
                      e.other.pid, e.other.prio);
        break;
    case kind::sched_waking:
    case kind::sched_wakeup:
    case kind::sched_wakeup_new:
        std::snprintf(b, sizeof b, "comm=%s pid=%d prio=%d target_cpu=%03u", e.task.comm.c_str(), e.task.pid,
                      e.task.prio, e.target_cpu);
        break;
    case kind::sched_migrate_task:
        std::snprintf(b, sizeof b, "comm=%s pid=%d prio=%d orig_cpu=%u dest_cpu=%u", e.task.comm.c_str(),
                      e.task.pid, e.task.prio, e.target_cpu, e.dest_cpu);
        break;
    case kind::sched_process_fork:
        std::snprintf(b, sizeof b, "comm=%s pid=%d child_comm=%s child_pid=%d", e.task.comm.c_str(),
                      e.task.pid, e.other.comm.c_str(), e.other.pid);
        break;
    case kind::sched_process_exit:
        std::snprintf(b, sizeof b, "comm=%s pid=%d prio=%d", e.task.comm.c_str(), e.task.pid, e.task.prio);
        break;
    case kind::counter:
        std::snprintf(b, sizeof b, "C|0|cpu%u %s|%llu", e.cpu, e.counter,
                      static_cast<unsigned long long>(e.value));
        break;
    }
    return b;
}
} // namespace

void write_ftrace_text(std::ostream& out, const sched_event_log& events) {
    out << "# tracer: nop\n#\n# entries-in-buffer/entries-written: " << events.size() << "/" << events.size()
        << "   #P:" << events.num_cpus() << "\n"
        << "#\n"
           "#                                _-----=> irqs-off/BH-disabled\n"
           "#                               / _----=> need-resched\n"
           "#                              | / _---=> hardirq/softirq\n"
           "#                              || / _--=> preempt-depth\n"
           "#                              ||| / _-=> migrate-disable\n"
           "#                              |||| /     delay\n"
           "#           TASK-PID     TGID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
           "#              | |         |        |   |||||     |         |\n";
    for (const event* e : events.in_time_order()) {
        // "<task>-<pid> (<tgid>) [cpu] flags ts: name: payload" for the task running on the CPU.
        char b[160];
        char tgid[16];
        const bool idle = e->current.pid == 0;
        if (idle)
            std::snprintf(tgid, sizeof tgid, "-------");
        else
            std::snprintf(tgid, sizeof tgid, "%7d", e->current.tgid);
        std::snprintf(b, sizeof b, "%16s-%-7d (%s) [%03u] %s %5llu.%09llu: %s: ",
                      idle ? "<idle>" : e->current.comm.c_str(), e->current.pid, tgid, e->cpu,
                      flags_of(e->what), static_cast<unsigned long long>(e->t / 1'000'000'000ull),
                      static_cast<unsigned long long>(e->t % 1'000'000'000ull), name_of(e->what));
        out << b << payload_of(*e) << "\n";
    }
}

} // namespace warmsched::sim
