// Reading a user's input file (a platform or experiment YAML, an rt-app JSON) whole, with the checks a
// plain ifstream does not make: the path must name a regular file -- a directory reads as an empty file,
// a FIFO blocks forever and /dev/zero never ends -- and the file must be no larger than `max_bytes`
// (no configuration is near 16MiB; shipped ones are under 20KiB).
// Left out: following the file while it grows, and any encoding check (the parsers do that).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace warmsched::base {

constexpr std::uint64_t max_input_file_bytes = 16u << 20;

// The file's bytes, or std::nullopt with `why` saying what is wrong, to follow "PATH: ": "does not exist",
// "a directory, not a file", "a FIFO, not a file", "is 2048MiB; input files are at most 16MiB",
// "cannot be read: Permission denied".
std::optional<std::string> read_input_file(const std::string& path, std::string& why,
                                           std::uint64_t max_bytes = max_input_file_bytes);

} // namespace warmsched::base
