// Writes an imported machine as a platform YAML file in the schema of configs/platforms/ (docs/platforms.md):
// the shape's levels, SMT, numbering, caches and NUMA nodes as read (each commented `# read`), and every
// value no input gives from the nearest shipped family, commented `# est: ...` and listed in `estimated:`
// (platform rules: /work/shared/reference/platforms.md). The interconnect is a generic one -- a `hub` stop
// per socket (per NUMA node when a socket holds several), links hub-LLC, hub-memory and hub-hub -- whose
// latencies are fitted so an LLC reaches its node's memory, an LLC of another node and an LLC of another
// socket in the family's times. Kernel costs, idle states and the block device keep their defaults.
#pragma once

#include "platforms/import/machine_inventory.h"
#include "platforms/import/machine_shape.h"
#include "platforms/import/nearest_family.h"
#include "platforms/import/platform_import.h"

#include <string>

namespace warmsched::platform::import {

// A YAML double-quoted scalar: the text stays one value whatever it holds (control characters as \xNN).
std::string yaml_quoted(const std::string& text);

// `measured`: keys whose values were measured on the machine (calibrate): written with their comment and
// left out of estimated:. `appendix`: top-level sections written after the body.
std::string write_platform_yaml(const machine_inventory& inv, const machine_shape& shape,
                                const family_values& family, const std::string& name,
                                const std::map<std::string, measured_value>& measured = {},
                                const std::string& appendix = "");

} // namespace warmsched::platform::import
