// What every fuzz harness shares: the input as text, a scratch file holding it (for readers that take a
// path), and the rule of the harnesses -- a user's error (config_error, a workload's usage_error or help)
// is the expected answer to bad input; any other exception, a signal or a sanitizer report is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include <unistd.h>

namespace warmsched::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
}

// The input written to /tmp/warmsched-fuzz-<pid>.<ext> (one file per fuzzing process); returns its path.
inline std::string scratch_file(const std::string& text, const std::string& ext) {
    const std::string path = "/tmp/warmsched-fuzz-" + std::to_string(::getpid()) + "." + ext;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path;
}

} // namespace warmsched::fuzz
