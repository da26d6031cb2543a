// The system-call layer's entry: the syscall's entry cost once per call, then each operation to its
// handler -- pipes and sockets (pipe_socket.cpp), futexes (futex.cpp), fork/exec/exit/wait (process.cpp),
// asynchronous I/O (aio.cpp) -- and the small ones here: sleep, sched_yield. See cpu_executor.h.
#include "workloads/kernel/cpu_executor.h"

#include "workloads/kernel/sim_kernel.h"

namespace warmsched::workloads {

using models::ps_t;

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
    case op_kind::futex_wait:
        return sys_futex_wait(t);
    case op_kind::futex_wake:
        return sys_futex_wake(t);
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
    case op_kind::wait_children:
        return sys_wait(t);
    case op_kind::yield: {
        scheduler::scheduler& s = enter_scheduler();
        finish(t, 0);
        s.yield(cpu_, now_ns());
        return reschedule(false);
    }
    case op_kind::exit:
        return sys_exit(t);
    case op_kind::compute:
        return;
    }
}

} // namespace warmsched::workloads
