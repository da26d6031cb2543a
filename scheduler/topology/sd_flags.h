// The sched-domain flags of include/linux/sched/sd_flags.h as one bitmask, in the kernel's bit order, with
// the metaflags topology.c reads (SDF_SHARED_CHILD, SDF_SHARED_PARENT, SDF_NEEDS_GROUPS) and the names
// /sys/kernel/debug/sched/domains/cpuN/domainM/flags prints. The bit layout is v6.12's for both kernels:
// v5.15 has no SD_CLUSTER (v5.16+), so its own numeric values of the higher flags are one bit lower; only
// names are printed here, never numbers. SD_SHARE_LLC is printed SD_SHARE_PKG_RESOURCES for v5.15 (the
// rename came with v6.10). SD_ASYM_CPUCAPACITY(_FULL) and SD_ASYM_PACKING exist but no x86 platform
// modelled here sets them (no hybrid CPUs, no ITMT).
#pragma once

#include "scheduler/core/sched_features.h" // kernel_version

#include <string>

namespace warmsched::scheduler {

enum sd_flag : unsigned {
    SD_BALANCE_NEWIDLE = 1u << 0,       // balance when about to become idle
    SD_BALANCE_EXEC = 1u << 1,          // balance on exec
    SD_BALANCE_FORK = 1u << 2,          // balance on fork, clone
    SD_BALANCE_WAKE = 1u << 3,          // balance on wakeup (no x86 level sets it)
    SD_WAKE_AFFINE = 1u << 4,           // consider waking the task on the waking CPU
    SD_ASYM_CPUCAPACITY = 1u << 5,      // members have different CPU capacities
    SD_ASYM_CPUCAPACITY_FULL = 1u << 6, // ... spanning all capacity values
    SD_SHARE_CPUCAPACITY = 1u << 7,     // members share CPU capacity (SMT)
    SD_CLUSTER = 1u << 8,               // members share a cluster (L2 or LLC tags); v5.16+
    SD_SHARE_LLC = 1u << 9,             // members share the last-level cache (SD_SHARE_PKG_RESOURCES < v6.10)
    SD_SERIALIZE = 1u << 10,            // only one CPU balances this level at a time
    SD_ASYM_PACKING = 1u << 11,         // place busy tasks earlier in the domain
    SD_PREFER_SIBLING = 1u << 12,       // prefer to place tasks in a sibling domain
    SD_OVERLAP = 1u << 13,              // the groups of this level overlap
    SD_NUMA = 1u << 14,                 // cross-node balancing
};
constexpr unsigned sd_flag_count = 15;

// Metaflags (sd_flags.h): SHARED_CHILD flags are set from the base domain upwards, SHARED_PARENT ones from
// the top downwards, NEEDS_GROUPS ones only mean something on a domain with more than one group.
enum sd_metaflag : unsigned { SDF_SHARED_CHILD = 1u, SDF_SHARED_PARENT = 2u, SDF_NEEDS_GROUPS = 4u };

// The metaflags of flag bit `bit` (v6.12; v5.15 differs only in SD_ASYM_PACKING, then also SHARED_CHILD).
unsigned sd_flag_meta(unsigned bit);
// The flags with SDF_NEEDS_GROUPS (topology.c's SD_DEGENERATE_GROUPS_MASK).
unsigned sd_degenerate_groups_mask();

// The kernel's name of one flag, as kernel `k` spells it.
const char* sd_flag_name(sd_flag f, kernel_version k);
// The names of the flags in `mask`, lowest bit first, separated by one space: the debugfs `flags` file
// (which also ends the list with a space and a newline).
std::string sd_flag_names(unsigned mask, kernel_version k);

} // namespace warmsched::scheduler
