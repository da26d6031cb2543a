// A broken policy: enqueue dispatches to DSQ 42, which it never created (scx_bpf_dsq_insert to a DSQ id
// that does not exist: SCX_EXIT_ERROR).
#include <warmsched/policy.h>

using namespace warmsched::ext;

class no_dsq final : public policy {
public:
    const char* name() const override { return "no_dsq"; }
    unsigned select_cpu(task_info&, unsigned prev_cpu, u64) override { return prev_cpu; }
    void enqueue(task_info& p, u64) override { k().dispatch(p, 42, slice_dfl); }
};

WARMSCHED_POLICY(no_dsq)
