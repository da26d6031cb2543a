// simple_fifo: scx_simple in its FIFO mode (tools/sched_ext/scx_simple.bpf.c). A waking task goes to an
// idle CPU if there is one (the kernel's default select_cpu, which then dispatches it straight to that
// CPU's local queue); every other task joins one shared FIFO queue, and any CPU that runs out of work
// takes the task at its head -- wherever that task ran before. Simple and work-conserving, and blind to
// caches: a task goes to whichever CPU frees up first, in any LLC.
#include <warmsched/policy.h>

using namespace warmsched::ext;

class simple_fifo final : public policy {
    static constexpr u64 shared_dsq = 0;

public:
    const char* name() const override { return "simple_fifo"; }

    void init() override { k().create_dsq(shared_dsq); }

    // select_cpu is the default: prev_cpu if idle, else an idle CPU of its LLC, else any idle CPU.

    void enqueue(task_info& p, u64 enq_flags) override {
        (void)enq_flags;
        k().dispatch(p, shared_dsq, slice_dfl);
    }

    void dispatch(unsigned cpu, task_info* prev) override {
        (void)cpu, (void)prev;
        k().move_to_local(shared_dsq);
    }
};

WARMSCHED_POLICY(simple_fifo)
