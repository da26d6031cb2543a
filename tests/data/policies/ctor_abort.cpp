// A broken policy: a static constructor calls abort() when the object is loaded.
#include <warmsched/policy.h>

#include <cstdio>
#include <cstdlib>

using namespace warmsched::ext;

namespace {
struct aborts {
    aborts() {
        std::fputs("ctor_abort: table size is not a power of two\n", stderr);
        std::abort();
    }
} abort_at_load;
} // namespace

class ctor_abort final : public policy {
public:
    const char* name() const override { return "ctor_abort"; }
};

WARMSCHED_POLICY(ctor_abort)
