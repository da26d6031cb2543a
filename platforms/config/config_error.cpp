// Configuration error reporting; see config_error.h.
#include "platforms/config/config_error.h"

#include "platforms/config/input_text.h"

namespace warmsched::config {
namespace {
// User text (a key, a value quoted in `what`, a file name) may hold control characters: they are shown
// escaped, never sent raw to the terminal.
std::string format_line(const origin& where, const std::string& key, const std::string& what) {
    std::string s = printable(where.describe()) + ": ";
    if (!key.empty()) s += printable(key) + ": ";
    return s + printable(what);
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
    if (column <= 0) return file + ":" + std::to_string(line);
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
