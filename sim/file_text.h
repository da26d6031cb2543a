// A whole file's contents as a string (empty if it cannot be read): results files read back by the
// compare and plot subcommands.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace warmsched::sim {

inline std::string file_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace warmsched::sim
