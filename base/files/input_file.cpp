// Whole-file reading of user input; see input_file.h.
#include "base/files/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace warmsched::base {
namespace fs = std::filesystem;

namespace {
std::mutex inputs_mutex;
std::vector<std::string>& inputs() {
    static std::vector<std::string> v;
    return v;
}

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
    note_input_file(path);
    return text.str();
}

void note_input_file(const std::string& path) {
    std::error_code ec;
    std::string canonical = fs::weakly_canonical(fs::absolute(path, ec), ec).string();
    if (ec) canonical = path;
    const std::lock_guard<std::mutex> lock(inputs_mutex);
    auto& v = inputs();
    for (const auto& p : v)
        if (p == canonical) return;
    v.push_back(std::move(canonical));
}

std::vector<std::string> input_files_read() {
    const std::lock_guard<std::mutex> lock(inputs_mutex);
    return inputs();
}

} // namespace warmsched::base
