// Scheduler feature flags; see sched_features.h.
#include "scheduler/core/sched_features.h"

namespace warmsched::scheduler {
namespace {
enum class dflt { off, on, absent };
constexpr dflt on = dflt::on, off = dflt::off, absent = dflt::absent;

struct entry {
    const char* name;
    dflt cfs, eevdf;
    const char* doc;
};
constexpr entry table[] = {
#define WARMSCHED_FEATURE_ROW(n, c, e, d) {#n, c, e, d},
    WARMSCHED_SCHED_FEATURES(WARMSCHED_FEATURE_ROW)
#undef WARMSCHED_FEATURE_ROW
};
static_assert(sizeof table / sizeof table[0] == static_cast<int>(feature::count));
#define WARMSCHED_FEATURE_ONE(n, c, e, d) +1
constexpr int kernel_feature_count = 0 WARMSCHED_KERNEL_FEATURES(WARMSCHED_FEATURE_ONE);
#undef WARMSCHED_FEATURE_ONE
} // namespace

const char* to_string(kernel_version k) {
    return k == kernel_version::cfs_v5_15 ? "cfs" : "eevdf";
}

sched_features::sched_features(kernel_version k) : kernel_(k) {
    for (int i = 0; i < static_cast<int>(feature::count); ++i) {
        const dflt d = k == kernel_version::cfs_v5_15 ? table[i].cfs : table[i].eevdf;
        exists_[i] = d != dflt::absent;
        on_[i] = d == dflt::on;
    }
}

const char* sched_features::name(feature f) {
    return table[static_cast<int>(f)].name;
}
const char* sched_features::description(feature f) {
    return table[static_cast<int>(f)].doc;
}

bool sched_features::version_change(feature f) {
    return static_cast<int>(f) >= kernel_feature_count;
}

std::vector<feature> sched_features::available() const {
    std::vector<feature> v;
    for (int i = 0; i < static_cast<int>(feature::count); ++i)
        if (exists_[i]) v.push_back(static_cast<feature>(i));
    return v;
}

std::string sched_features::set(const std::string& n, bool value) {
    for (int i = 0; i < static_cast<int>(feature::count); ++i) {
        if (n != table[i].name) continue;
        if (!exists_[i])
            return std::string("feature ") + n + " does not exist in the " + to_string(kernel_) +
                   " kernel model";
        on_[i] = value;
        return {};
    }
    return "unknown scheduler feature '" + n + "'";
}

} // namespace warmsched::scheduler
