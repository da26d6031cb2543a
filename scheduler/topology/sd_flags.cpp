// Sched-domain flag names and metaflags; see sd_flags.h.
#include "scheduler/topology/sd_flags.h"

namespace warmsched::scheduler {
namespace {

struct flag_info {
    const char* name;
    unsigned meta;
};

// In bit order, as include/linux/sched/sd_flags.h declares them (v6.12).
constexpr flag_info flags[sd_flag_count] = {
    {"SD_BALANCE_NEWIDLE", SDF_SHARED_CHILD | SDF_NEEDS_GROUPS},
    {"SD_BALANCE_EXEC", SDF_SHARED_CHILD | SDF_NEEDS_GROUPS},
    {"SD_BALANCE_FORK", SDF_SHARED_CHILD | SDF_NEEDS_GROUPS},
    {"SD_BALANCE_WAKE", SDF_SHARED_CHILD | SDF_NEEDS_GROUPS},
    {"SD_WAKE_AFFINE", SDF_SHARED_CHILD},
    {"SD_ASYM_CPUCAPACITY", SDF_SHARED_PARENT | SDF_NEEDS_GROUPS},
    {"SD_ASYM_CPUCAPACITY_FULL", SDF_SHARED_PARENT | SDF_NEEDS_GROUPS},
    {"SD_SHARE_CPUCAPACITY", SDF_SHARED_CHILD | SDF_NEEDS_GROUPS},
    {"SD_CLUSTER", SDF_NEEDS_GROUPS},
    {"SD_SHARE_LLC", SDF_SHARED_CHILD | SDF_NEEDS_GROUPS},
    {"SD_SERIALIZE", SDF_SHARED_PARENT | SDF_NEEDS_GROUPS},
    {"SD_ASYM_PACKING", SDF_NEEDS_GROUPS},
    {"SD_PREFER_SIBLING", SDF_NEEDS_GROUPS},
    {"SD_OVERLAP", SDF_SHARED_PARENT | SDF_NEEDS_GROUPS},
    {"SD_NUMA", SDF_SHARED_PARENT | SDF_NEEDS_GROUPS},
};

unsigned bit_of(unsigned f) {
    unsigned b = 0;
    while (b < sd_flag_count && (1u << b) != f) ++b;
    return b;
}

} // namespace

unsigned sd_flag_meta(unsigned bit) {
    return bit < sd_flag_count ? flags[bit].meta : 0;
}

unsigned sd_degenerate_groups_mask() {
    unsigned m = 0;
    for (unsigned b = 0; b < sd_flag_count; ++b)
        if (flags[b].meta & SDF_NEEDS_GROUPS) m |= 1u << b;
    return m;
}

const char* sd_flag_name(sd_flag f, kernel_version k) {
    if (f == SD_SHARE_LLC && k == kernel_version::cfs_v5_15) return "SD_SHARE_PKG_RESOURCES";
    const unsigned b = bit_of(f);
    return b < sd_flag_count ? flags[b].name : "?";
}

std::string sd_flag_names(unsigned mask, kernel_version k) {
    std::string s;
    for (unsigned b = 0; b < sd_flag_count; ++b)
        if (mask & (1u << b)) {
            if (!s.empty()) s += ' ';
            s += sd_flag_name(static_cast<sd_flag>(1u << b), k);
        }
    return s;
}

} // namespace warmsched::scheduler
