// A broken policy: a static constructor ends the process with exit(0) when the object is loaded.
#include <warmsched/policy.h>

#include <cstdio>
#include <cstdlib>

using namespace warmsched::ext;

namespace {
struct quits {
    quits() {
        std::puts("ctor_exit: no configuration file, bye");
        std::exit(0);
    }
} quit_at_load;
} // namespace

class ctor_exit final : public policy {
public:
    const char* name() const override { return "ctor_exit"; }
};

WARMSCHED_POLICY(ctor_exit)
