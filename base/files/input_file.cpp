// Whole-file reading of user input; see input_file.h.
#include "base/files/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace warmsched::base {
namespace fs = std::filesystem;

namespace {
const char* kind_name(fs::file_type t) {
    switch (t) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    default: return "something other than a regular file";
    }
}
} // namespace

std::optional<std::string> read_input_file(const std::string& path, std::string& why, std::uint64_t max_bytes) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec); // follows symlinks, as opening would
    if (ec || st.type() == fs::file_type::not_found) {
        why = st.type() == fs::file_type::not_found || ec == std::errc::no_such_file_or_directory
                  ? "does not exist"
                  : "cannot be read: " + ec.message();
        return std::nullopt;
    }
    if (st.type() != fs::file_type::regular) {
        why = std::string(kind_name(st.type())) + ", not a file";
        return std::nullopt;
    }
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > max_bytes) {
        why = "is " + std::to_string(size >> 20) + "MiB; input files are at most " +
              std::to_string(max_bytes >> 20) + "MiB";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why = std::string("cannot be read: ") + std::strerror(errno);
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace warmsched::base
