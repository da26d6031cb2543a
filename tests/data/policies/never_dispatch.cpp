// A broken policy for the watchdog test: it takes every task into its custody at enqueue and never
// dispatches one, so runnable tasks never run.
#include <warmsched/policy.h>

using namespace warmsched::ext;

class never_dispatch final : public policy {
public:
    const char* name() const override { return "never_dispatch"; }
    unsigned select_cpu(task_info&, unsigned prev_cpu, u64) override { return prev_cpu; }
    void enqueue(task_info&, u64) override {}
};

WARMSCHED_POLICY(never_dispatch)
