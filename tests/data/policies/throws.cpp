// A broken policy: enqueue throws a C++ exception out of the callback.
#include <warmsched/policy.h>

#include <stdexcept>

using namespace warmsched::ext;

class throws final : public policy {
public:
    const char* name() const override { return "throws"; }
    unsigned select_cpu(task_info&, unsigned prev_cpu, u64) override { return prev_cpu; }
    void enqueue(task_info&, u64) override { throw std::runtime_error("no room in the run list"); }
};

WARMSCHED_POLICY(throws)
