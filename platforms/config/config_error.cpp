// Configuration error reporting; see config_error.h.
#include "platforms/config/config_error.h"

namespace warmsched::config {
namespace {
std::string format_line(const origin& where, const std::string& key, const std::string& what) {
    std::string s = where.describe() + ": ";
    if (!key.empty()) s += key + ": ";
    return s + what;
}
std::string join(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += (s.empty() ? "" : "\n") + l;
    return s;
}
} // namespace

std::string origin::describe() const {
    if (file.empty()) return "<default>";
    if (line <= 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

void error_list::add(const origin& where, const std::string& key, const std::string& what) {
    lines_.push_back(format_line(where, key, what));
}

void error_list::throw_if_any() const {
    if (!lines_.empty()) throw config_error(lines_);
}

config_error::config_error(std::vector<std::string> lines)
    : std::runtime_error(join(lines)), lines_(std::move(lines)) {}

config_error::config_error(const origin& where, const std::string& key, const std::string& what)
    : config_error(std::vector<std::string>{format_line(where, key, what)}) {}

} // namespace warmsched::config
