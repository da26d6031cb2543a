// Shipped platform lookup; see platform_catalog.h.
#include "platforms/platform_catalog.h"

#include "platforms/config/config_error.h"

#include <algorithm>
#include <filesystem>
#include <unistd.h>

namespace warmsched::platform {
namespace fs = std::filesystem;

std::string configs_dir() {
    std::vector<fs::path> candidates;
    char exe[4096];
    ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        fs::path dir = fs::path(exe).parent_path();
        candidates.push_back(dir / "configs");
        candidates.push_back(dir.parent_path() / "configs");
        candidates.push_back(dir.parent_path().parent_path() / "configs");
    }
    candidates.push_back(fs::path(WARMSCHED_SOURCE_DIR) / "configs");
    for (const auto& c : candidates)
        if (fs::is_directory(c / "platforms")) return c.string();
    return (fs::path(WARMSCHED_SOURCE_DIR) / "configs").string();
}

std::vector<std::string> shipped_platforms() {
    std::vector<std::string> names;
    fs::path dir = fs::path(configs_dir()) / "platforms";
    if (fs::is_directory(dir))
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string find_platform_path(const std::string& name_or_path, std::string& why) {
    const bool looks_like_path =
        name_or_path.find('/') != std::string::npos ||
        (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".yaml") ||
        (name_or_path.size() > 4 && name_or_path.substr(name_or_path.size() - 4) == ".xml");
    std::error_code ec;
    if (looks_like_path) {
        // A symlink loop or a path without permission is there to read: the reader names the problem.
        if (fs::exists(fs::symlink_status(name_or_path, ec))) return name_or_path;
        why = "platform file '" + name_or_path + "' does not exist";
        return {};
    }
    fs::path p = fs::path(configs_dir()) / "platforms" / (name_or_path + ".yaml");
    if (fs::exists(fs::symlink_status(p, ec))) return p.string();
    std::string list;
    for (const auto& n : shipped_platforms()) list += (list.empty() ? "" : ", ") + n;
    why = "unknown platform '" + name_or_path + "' (shipped: " + list + ")";
    return {};
}

std::string resolve_platform_path(const std::string& name_or_path) {
    std::string why;
    std::string path = find_platform_path(name_or_path, why);
    if (path.empty()) throw config::config_error(config::origin{"<command line>", 0, 0}, "platform", why);
    return path;
}

} // namespace warmsched::platform
