// The shipped platforms: a name resolves to configs/platforms/NAME.yaml in the source tree (or the
// configs/ folder next to the executable); anything containing a '/' or ending in .yaml or .xml (an hwloc
// topology) is a path.
#pragma once

#include <string>
#include <vector>

namespace warmsched::platform {

// Directory holding the shipped configuration files (configs/).
std::string configs_dir();
// Path of a platform given by name or path; throws config_error naming the shipped platforms if unknown.
std::string resolve_platform_path(const std::string& name_or_path);
// The same without throwing: an empty string and, in `why`, what is wrong.
std::string find_platform_path(const std::string& name_or_path, std::string& why);
// Names of the shipped platforms, sorted.
std::vector<std::string> shipped_platforms();

} // namespace warmsched::platform
