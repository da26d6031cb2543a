// Unit parsing for configuration values; see units.h.
#include "platforms/config/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace warmsched::config {
namespace {

struct unit {
    const char* name;
    double scale;
};

// Splits "51.2 GB/s" into number and unit; false when no number leads the text.
bool split_number(const std::string& text, double& number, std::string& suffix) {
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t start = i;
    if (i < text.size() && (text[i] == '+')) ++i;
    bool digits = false;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, digits = true;
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, digits = true;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E') && digits) {
        std::size_t j = i + 1;
        if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
        if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
            i = j;
            while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        }
    }
    if (!digits) return false;
    // strtod, not stod: a number beyond a double's range (1e400) comes back as inf, and the caller
    // refuses it in one line, where stod threw std::out_of_range through the whole run.
    number = std::strtod(text.substr(start, i - start).c_str(), nullptr);
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t end = text.size();
    while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    suffix = text.substr(i, end - i);
    return true;
}

std::optional<double> parse_with(const std::string& text, const std::vector<unit>& units, const char* kind,
                                 const char* examples, std::string& why) {
    double number = 0;
    std::string suffix;
    if (!split_number(text, number, suffix)) {
        why = std::string("expected a ") + kind + " like " + examples + ", got '" + text + "'";
        return std::nullopt;
    }
    if (!std::isfinite(number)) {
        why = std::string("a ") + kind + " beyond any machine's: '" + text + "'";
        return std::nullopt;
    }
    for (const unit& u : units)
        if (suffix == u.name) {
            const double v = number * u.scale;
            if (!std::isfinite(v)) {
                why = std::string("a ") + kind + " beyond any machine's: '" + text + "'";
                return std::nullopt;
            }
            return v;
        }
    if (suffix.empty())
        why = std::string("a ") + kind + " needs a unit (" + examples + "), got '" + text + "'";
    else
        why = std::string("unknown ") + kind + " unit '" + suffix + "' in '" + text + "' (use " + examples +
              ")";
    return std::nullopt;
}

const std::vector<unit> size_units = {{"B", 1},
                                      {"KiB", 1024.0},
                                      {"MiB", 1024.0 * 1024},
                                      {"GiB", 1024.0 * 1024 * 1024},
                                      {"TiB", 1024.0 * 1024 * 1024 * 1024},
                                      {"kB", 1e3},
                                      {"KB", 1e3},
                                      {"MB", 1e6},
                                      {"GB", 1e9},
                                      {"TB", 1e12}};
const std::vector<unit> time_units = {{"ps", 1},          {"ns", 1e3}, {"us", 1e6},
                                      {"\xC2\xB5s", 1e6}, {"ms", 1e9}, {"s", 1e12}};
const std::vector<unit> frequency_units = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
const std::vector<unit> bandwidth_units = {{"B/s", 1},        {"kB/s", 1e3},        {"KB/s", 1e3},
                                           {"MB/s", 1e6},     {"GB/s", 1e9},        {"TB/s", 1e12},
                                           {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}};

std::string trim_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

} // namespace

std::optional<std::uint64_t> parse_size(const std::string& text, std::string& why) {
    auto v = parse_with(text, size_units, "size", "64B, 32KiB, 32MiB, 1GiB", why);
    if (!v) return std::nullopt;
    if (*v < 0 || std::floor(*v) != *v) {
        why = "size '" + text + "' is not a whole number of bytes";
        return std::nullopt;
    }
    if (*v >= 18446744073709551616.0) { // 2^64: the cast below would wrap
        why = "a size beyond any machine's: '" + text + "'";
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(*v);
}

std::optional<double> parse_time_ps(const std::string& text, std::string& why) {
    auto v = parse_with(text, time_units, "time", "500ps, 85ns, 1.5us, 4ms", why);
    // The model counts picoseconds in 64 bits: a time past 1e19 ps (about 116 days) cannot be simulated,
    // and casting it wrapped (a duration of 1e30s ran as if none were set).
    if (v && *v > 1e19) {
        why = "a time beyond what a run can simulate (at most 1e7 s, about 116 days): '" + text + "'";
        return std::nullopt;
    }
    return v;
}

std::optional<latency_value> parse_latency(const std::string& text, std::string& why) {
    double number = 0;
    std::string suffix;
    if (split_number(text, number, suffix) && (suffix == "cycles" || suffix == "cycle"))
        return latency_value{number, true};
    auto ps = parse_with(text, time_units, "latency", "46cycles, 85ns, 1.5us", why);
    if (!ps) return std::nullopt;
    return latency_value{*ps, false};
}

std::optional<double> parse_frequency(const std::string& text, std::string& why) {
    return parse_with(text, frequency_units, "frequency", "3.4GHz, 1600MHz", why);
}

std::optional<double> parse_bandwidth(const std::string& text, std::string& why) {
    return parse_with(text, bandwidth_units, "bandwidth", "51.2GB/s, 25.6GB/s, 800MB/s", why);
}

std::string format_size(std::uint64_t bytes) {
    const std::pair<const char*, std::uint64_t> units[] = {
        {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}};
    for (const auto& [name, scale] : units)
        if (bytes >= scale && bytes % scale == 0) return std::to_string(bytes / scale) + name;
    return std::to_string(bytes) + "B";
}

std::string format_time_ps(double ps) {
    if (ps != 0 && std::fmod(ps, 1e9) == 0) return trim_number(ps / 1e9) + "ms";
    if (ps != 0 && std::fmod(ps, 1e6) == 0) return trim_number(ps / 1e6) + "us";
    if (std::fmod(ps, 1.0) == 0 && std::fmod(ps, 1e3) != 0 && ps < 1e3) return trim_number(ps) + "ps";
    return trim_number(ps / 1e3) + "ns";
}

std::string format_latency(const latency_value& v) {
    return v.in_cycles ? trim_number(v.value) + "cycles" : format_time_ps(v.value);
}

std::string format_frequency(double hz) {
    if (hz >= 1e9) return trim_number(hz / 1e9) + "GHz";
    if (hz >= 1e6) return trim_number(hz / 1e6) + "MHz";
    return trim_number(hz) + "Hz";
}

std::string format_bandwidth(double bps) {
    return trim_number(bps / 1e9) + "GB/s";
}

} // namespace warmsched::config
