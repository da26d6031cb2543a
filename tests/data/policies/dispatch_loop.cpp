// A broken policy: dispatch() waits for its own DSQ to fill, which only enqueue would do -- a loop that
// never ends, calling a kfunc on every turn (the kernel can stop it at one).
#include <warmsched/policy.h>

using namespace warmsched::ext;

class dispatch_loop final : public policy {
public:
    const char* name() const override { return "dispatch_loop"; }
    void init() override { k().create_dsq(7); }
    unsigned select_cpu(task_info&, unsigned prev_cpu, u64) override { return prev_cpu; }
    void enqueue(task_info&, u64) override {} // kept, for dispatch to find in DSQ 7 -- never put there
    void dispatch(unsigned, task_info*) override {
        while (!k().move_to_local(7)) {
        }
    }
};

WARMSCHED_POLICY(dispatch_loop)
