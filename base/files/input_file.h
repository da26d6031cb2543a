// Reading a user's input file (a platform or experiment YAML, an rt-app JSON) whole, with the checks a
// plain ifstream does not make: the path must name a regular file -- a directory reads as an empty file,
// a FIFO blocks forever and /dev/zero never ends -- and the file must be no larger than `max_bytes`
// (no configuration is near 16MiB; shipped ones are under 20KiB).
// Every file read here (and every other input a caller notes, a policy .so) is remembered for the process:
// `--force` refuses to replace a directory that holds one (sim/results_dir.h).
// Left out: following the file while it grows, and any encoding check (the parsers do that).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warmsched::base {

constexpr std::uint64_t max_input_file_bytes = 16u << 20;

// The file's bytes, or std::nullopt with `why` saying what is wrong, to follow "PATH: ": "does not exist",
// "a directory, not a file", "a FIFO, not a file", "is 2048MiB; input files are at most 16MiB",
// "cannot be read: Permission denied".
std::optional<std::string> read_input_file(const std::string& path, std::string& why,
                                           std::uint64_t max_bytes = max_input_file_bytes);

// Remembers `path` as an input of this process (read_input_file does it for the files it reads).
void note_input_file(const std::string& path);
// The canonical paths of every input noted so far, in the order first noted.
std::vector<std::string> input_files_read();

} // namespace warmsched::base
