// Reads and validates a platform description (a YAML tree) into platform_params. Every problem -- unknown
// key, wrong type, bad unit, impossible cache geometry, a cache or NUMA node that does not fit the
// grouping levels, a fabric that does not connect every LLC to every memory controller -- is reported
// with file:line:column and the dotted key, all at once, as a config_error.
#pragma once

#include "platforms/config/config_node.h"
#include "platforms/platform_params.h"

#include <string>
#include <vector>

namespace warmsched::platform {

// `resolved` (optional) receives the fully resolved platform section, defaults included.
// `key_prefix` names the platform section in error messages when it is part of a larger file (e.g.
// "platform").
platform_params read_platform(const config::config_node& root, config::config_node* resolved = nullptr,
                              const std::string& key_prefix = "");

// The keys of a platform's top level (what read_platform reads), so that one given at an experiment's
// top level is pointed to `platform.KEY`.
const std::vector<std::string>& platform_keys();

// Why a set-sampling ratio cannot be used on this platform (empty when it can): it must be a power of
// two that divides the number of sets of every cache level.
std::string set_sampling_problem(const platform_params& p, unsigned ratio);

// The tree of a platform file: YAML (includes resolved), or an hwloc XML (a path ending in .xml or text
// starting with <?xml), imported on the fly as `warmsched import` would write it.
config::config_node load_platform_file(const std::string& path);

// Loads a platform by shipped name (configs/platforms/NAME.yaml) or by path, applying `-p` overrides.
platform_params load_platform(const std::string& name_or_path, const std::vector<std::string>& overrides = {},
                              config::config_node* resolved = nullptr);

} // namespace warmsched::platform
