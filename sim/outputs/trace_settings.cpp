// The trace window option; see trace_settings.h.
#include "sim/outputs/trace_settings.h"

#include "platforms/config/config_error.h"

#include <cmath>
#include <cstdlib>

namespace warmsched::sim {
namespace {
bool seconds(const std::string& s, double& out) {
    if (s.empty() || s.find_first_not_of("0123456789.") != std::string::npos) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out);
}
} // namespace

std::pair<std::uint64_t, std::uint64_t> parse_trace_window(const std::string& text,
                                                           const std::string& option) {
    const auto colon = text.find(':');
    double a = 0, b = 0;
    if (colon == std::string::npos || !seconds(text.substr(0, colon), a) ||
        !seconds(text.substr(colon + 1), b))
        throw config::config_error(config::origin{"<command line>", 0, 0}, option,
                                   "expected START:END in seconds (e.g. 0.01:0.02), got '" + text + "'");
    if (b <= a)
        throw config::config_error(config::origin{"<command line>", 0, 0}, option,
                                   "the window must end after it starts, got '" + text + "'");
    return {static_cast<std::uint64_t>(std::llround(a * 1e9)),
            static_cast<std::uint64_t>(std::llround(b * 1e9))};
}

} // namespace warmsched::sim
