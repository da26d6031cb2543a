// A broken policy: enqueue dispatches each task twice (a task goes on one DSQ once per enqueue).
#include <warmsched/policy.h>

using namespace warmsched::ext;

class double_dispatch final : public policy {
public:
    const char* name() const override { return "double_dispatch"; }
    unsigned select_cpu(task_info&, unsigned prev_cpu, u64) override { return prev_cpu; }
    void enqueue(task_info& p, u64) override {
        k().dispatch(p, dsq_global, slice_dfl);
        k().dispatch(p, dsq_global, slice_dfl);
    }
};

WARMSCHED_POLICY(double_dispatch)
