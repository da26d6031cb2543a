// A real machine as the platform format can state it: grouping levels (socket, then die, NUMA node and
// LLC domain where they differ, then core) with a count of each inside the level above, the SMT width,
// the CPU numbering, which level each cache is shared by, the NUMA node level and the distance table in
// the model's node order. Derived from a machine_inventory once. A machine the format cannot state --
// cores with different SMT widths or caches (hybrid CPUs), instances of one level holding different
// numbers of cores, a shared cache level below the last, an LLC spanning NUMA nodes, NUMA nodes spanning
// some but not all packages -- is a config_error naming what differs. A die level that does not nest
// with the NUMA nodes or LLCs is left out (Linux builds no sched domain from dies) and noted.
#pragma once

#include "platforms/import/machine_inventory.h"
#include "platforms/platform_params.h"

#include <string>
#include <vector>

namespace warmsched::platform::import {

struct shaped_cache {
    std::string name;      // l1d, l2, l3 ...
    unsigned level = 0;
    std::string shared_by; // "core" or a level name
    std::uint64_t size = 0;
    unsigned associativity = 0; // 0: the input does not say
    unsigned line_size = 0;     // 0: the input does not say
    int inclusive = -1;         // as inventory_cache::inclusive
    unsigned cores_sharing = 1; // cores per instance
};

struct machine_shape {
    std::vector<level_params> levels; // socket first, core last
    unsigned threads_per_core = 1;
    std::string cpu_numbering;        // siblings_last or siblings_adjacent; empty when cpu_ids is set
    std::vector<unsigned> cpu_ids;    // per (core, thread) in tree order, when neither numbering fits
    std::string node_per;             // the NUMA node level, or "machine"
    unsigned num_nodes = 1;
    std::vector<std::vector<unsigned>> distances; // model node order; empty when the input has none
    std::vector<shaped_cache> caches;             // closest to the core first
    std::vector<std::string> notes;               // what was left out or assumed, for the file's header

    unsigned num_sockets() const { return levels.front().count; }
    unsigned num_cores() const;
    unsigned cores_per(const std::string& level) const; // "machine" or a level name
};

machine_shape shape_machine(const machine_inventory& inv);

} // namespace warmsched::platform::import
