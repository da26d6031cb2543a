// A broken policy: dispatch() spins in a loop of pure computation that never ends and never calls the
// kernel, so nothing can stop it short of ending the process.
#include <warmsched/policy.h>

using namespace warmsched::ext;

class dispatch_spin final : public policy {
public:
    const char* name() const override { return "dispatch_spin"; }
    unsigned select_cpu(task_info&, unsigned prev_cpu, u64) override { return prev_cpu; }
    void enqueue(task_info&, u64) override {}
    void dispatch(unsigned, task_info*) override {
        volatile u64 turns = 0;
        while (turns != ~0ull) turns = turns + 2; // never all ones: an even counter
    }
};

WARMSCHED_POLICY(dispatch_spin)
