// Processes: fork/clone (copy_process's lines in this CPU's caches, sched_fork, wake_up_new_task),
// execve (sched_exec, then the new image), exit (the parent told, its waiter woken), and wait.
// See cpu_executor.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

namespace warmsched::workloads {

using models::ps_t;
using scheduler::task_state;

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
    k_.sched().sched_fork(child.t, cpu_, now_ns(), child.into_cgroup);
    const unsigned target = k_.sched().wake_up_new_task(child.t, cpu_, now_ns());
    if (target != cpu_) charge(static_cast<ps_t>(k_.costs().remote_enqueue_ps));
    touch(k_.rq_line(target), true);
    finish(t, static_cast<std::uint64_t>(child.t.pid));
}

void cpu_executor::sys_exec(kernel_task& t) {
    if (t.done == 0) { // bprm_execve -> sched_exec, before the old image is dropped
        t.done = 1;
        if (enter_scheduler().sched_exec(cpu_, now_ns()) != cpu_)
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

void cpu_executor::sys_exit(kernel_task& t) {
    charge(static_cast<ps_t>(k_.costs().exit_ps));
    h_.sync();
    finish(t, 0);
    t.t.state = task_state::dead;
    t.exited = now_ns();
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

void cpu_executor::sys_wait(kernel_task& t) {
    h_.sync();
    if (t.current->kind == op_kind::wait_children) { // every child
        if (t.live_children == 0) return finish(t, 0);
        return block(t);
    }
    if (!t.exited_children.empty()) { // wait(): reap one
        const int pid = t.exited_children.front();
        t.exited_children.pop_front();
        return finish(t, static_cast<std::uint64_t>(pid));
    }
    if (t.live_children == 0) return finish(t, 0); // ECHILD
    return block(t);
}

} // namespace warmsched::workloads
