// A policy that gives up on its own: the first enqueue calls scx_bpf_error (k().error).
#include <warmsched/policy.h>

using namespace warmsched::ext;

class calls_error final : public policy {
public:
    const char* name() const override { return "calls_error"; }
    void enqueue(task_info& p, u64) override {
        k().error("out of per-task slots for " + std::string(p.comm));
        k().dispatch(p, dsq_global, slice_dfl); // ignored: the policy is stopped
    }
};

WARMSCHED_POLICY(calls_error)
