// A broken policy: its name has an escape sequence in it (which would reach the user's terminal).
#include <warmsched/policy.h>

using namespace warmsched::ext;

class unprintable_name final : public policy {
public:
    const char* name() const override { return "fifo\x1b[2J"; }
};

WARMSCHED_POLICY(unprintable_name)
