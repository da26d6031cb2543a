// A broken policy: name() returns a null pointer.
#include <warmsched/policy.h>

using namespace warmsched::ext;

class null_name final : public policy {
public:
    const char* name() const override { return nullptr; }
};

WARMSCHED_POLICY(null_name)
