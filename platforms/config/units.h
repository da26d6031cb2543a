// Parsing of values with units as they appear in configuration files: sizes (32MiB), times (85ns),
// cycle counts (46cycles), frequencies (3.4GHz) and bandwidths (51.2GB/s). Binary prefixes (KiB, MiB,
// GiB) are powers of 1024, decimal prefixes (kB, MB, GB) powers of 1000. Parsing is strict: a missing
// or unknown unit is an error whose text says what was expected; nothing is guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace warmsched::config {

// A latency as written: either absolute time or a cycle count that needs a clock to become time.
struct latency_value {
    double value = 0; // picoseconds when !in_cycles, else cycles
    bool in_cycles = false;

    // Picoseconds at the given clock (Hz). Absolute times ignore the clock.
    double to_ps(double clock_hz) const { return in_cycles ? value * 1e12 / clock_hz : value; }
};

// Each parser returns the value, or std::nullopt and fills `why` with what was expected.
std::optional<std::uint64_t> parse_size(const std::string& text, std::string& why);    // bytes
std::optional<double> parse_time_ps(const std::string& text, std::string& why);        // picoseconds
std::optional<latency_value> parse_latency(const std::string& text, std::string& why); // time or cycles
std::optional<double> parse_frequency(const std::string& text, std::string& why);      // Hz
std::optional<double> parse_bandwidth(const std::string& text, std::string& why);      // bytes/second

// Formatting for the resolved configuration and reports (inverse of the parsers, exact where possible).
std::string format_size(std::uint64_t bytes);
std::string format_time_ps(double ps);
std::string format_latency(const latency_value& v);
std::string format_frequency(double hz);
std::string format_bandwidth(double bytes_per_s);

} // namespace warmsched::config
