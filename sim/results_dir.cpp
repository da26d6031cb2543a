// Results written whole or not at all; see results_dir.h.
#include "sim/results_dir.h"

#include "platforms/config/config_error.h"

#include <unistd.h>

#include <filesystem>
#include <regex>
#include <system_error>

namespace fs = std::filesystem;

namespace warmsched::sim {
namespace {
[[noreturn]] void fail(const std::string& option, const std::string& dir, const std::string& what) {
    throw config::config_error(std::vector<std::string>{option + " " + dir + ": " + what});
}
} // namespace

void results_dir::check_usable(const std::string& dir, bool replace, const std::string& option) {
    std::error_code ec;
    const fs::file_status st = fs::status(dir, ec);
    if (st.type() == fs::file_type::not_found) return;
    if (ec) fail(option, dir, ec.message());
    if (st.type() != fs::file_type::directory) fail(option, dir, "exists and is not a directory");
    if (!replace && !fs::is_empty(dir, ec))
        fail(option, dir,
             "is not empty (another run's files would mix with this one's); give --force to replace it, or "
             "another directory");
}

results_dir::results_dir(std::string dir, bool replace, std::string option)
    : dir_(std::move(dir)), option_(std::move(option)), replace_(replace) {
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    check_usable(dir_, replace_, option_);
    partial_ = dir_ + ".partial-" + std::to_string(::getpid());
    std::error_code ec;
    const fs::path parent = fs::path(partial_).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (!ec) fs::remove_all(partial_, ec); // a leftover of an earlier process with our pid
    if (!ec) fs::create_directory(partial_, ec);
    if (ec) fail(option_, dir_, "cannot be written: " + ec.message());
    if (::access(partial_.c_str(), W_OK | X_OK) != 0) {
        fs::remove_all(partial_, ec);
        fail(option_, dir_, "cannot be written: permission denied");
    }
}

results_dir::~results_dir() {
    if (committed_) return;
    std::error_code ec;
    fs::remove_all(partial_, ec);
}

void results_dir::commit() {
    std::error_code probe, ec;
    if (fs::is_directory(dir_, probe)) { // rename() needs it gone: empty, or replaced (--force)
        if (replace_)
            fs::remove_all(dir_, ec);
        else
            fs::remove(dir_, ec); // fails if a file appeared in it during the run: nothing is overwritten
    }
    if (!ec) fs::rename(partial_, dir_, ec);
    if (ec) fail(option_, dir_, "the results are complete in " + partial_ + " but could not be moved: " + ec.message());
    committed_ = true;
}

bool is_partial_results_name(const std::string& dir) {
    static const std::regex partial(R"(.*\.partial-\d+/*$)");
    return std::regex_match(dir, partial);
}

} // namespace warmsched::sim
