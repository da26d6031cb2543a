// A broken policy for the invalid-CPU test: select_cpu answers a CPU the machine does not have.
#include <warmsched/policy.h>

using namespace warmsched::ext;

class bad_cpu final : public policy {
public:
    const char* name() const override { return "bad_cpu"; }
    unsigned select_cpu(task_info&, unsigned, u64) override { return k().topology().nr_cpus + 7; }
};

WARMSCHED_POLICY(bad_cpu)
