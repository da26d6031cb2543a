// A broken policy: select_cpu asks pick_idle_cpu among a list with a CPU the machine does not have.
#include <warmsched/policy.h>

using namespace warmsched::ext;

class bad_idle_cpu final : public policy {
public:
    const char* name() const override { return "bad_idle_cpu"; }
    unsigned select_cpu(task_info& p, unsigned prev_cpu, u64) override {
        const int cpu = k().pick_idle_cpu(p, {prev_cpu, k().topology().nr_cpus + 8});
        return cpu >= 0 ? static_cast<unsigned>(cpu) : prev_cpu;
    }
};

WARMSCHED_POLICY(bad_idle_cpu)
