// A broken policy: its name is 200 characters long (sched_ext's ops.name holds 127).
#include <warmsched/policy.h>

#include <string>

using namespace warmsched::ext;

class long_name final : public policy {
public:
    const char* name() const override { return name_.c_str(); }

private:
    std::string name_ = std::string(200, 'x');
};

WARMSCHED_POLICY(long_name)
