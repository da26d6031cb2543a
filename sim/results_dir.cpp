// Results written whole or not at all; see results_dir.h.
#include "sim/results_dir.h"

#include "base/files/input_file.h"
#include "base/files/output_file.h"
#include "platforms/config/config_error.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace warmsched::sim {
namespace {
constexpr const char* manifest_header = "# warmsched results:";

[[noreturn]] void fail(const std::string& option, const std::string& dir, const std::string& what) {
    throw config::config_error(std::vector<std::string>{option + " " + dir + ": " + what});
}

// DIR made absolute, with `.` and `..` resolved and its parent's symlinks followed; DIR itself, when it is a
// symlink, stays one (it is the name that is replaced, not what it points to).
fs::path normalized(const std::string& dir) {
    std::error_code ec;
    std::string s = fs::absolute(dir, ec).lexically_normal().string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    const fs::path p(s);
    if (p == p.root_path()) return p;
    return fs::weakly_canonical(p.parent_path(), ec) / p.filename();
}

// Whether `inner` is `outer` or lies below it (both canonical).
bool within(const fs::path& outer, const fs::path& inner) {
    const fs::path rel = inner.lexically_relative(outer);
    return !rel.empty() && *rel.begin() != "..";
}

// The checks that hold with or without --force: never the root, the current directory or its ancestors.
void check_place(const std::string& option, const std::string& dir, const fs::path& resolved) {
    if (resolved == resolved.root_path()) fail(option, dir, "is the root directory");
    std::error_code ec;
    const fs::path cwd = fs::canonical(fs::current_path(ec), ec);
    if (!ec && within(resolved, cwd))
        fail(option, dir,
             "is the current directory or one of its ancestors (the results would be written inside the "
             "directory they replace); give a directory of its own");
}

// --force's checks of a directory that exists and is not empty.
void check_replaceable(const std::string& option, const std::string& dir, const fs::path& resolved) {
    if (!has_results_manifest(resolved.string()))
        fail(option, dir,
             std::string("is not a results directory warmsched wrote (it has no ") + results_manifest +
                 "), and --force replaces only those; remove it yourself, or give another directory");
    const fs::path target = fs::weakly_canonical(resolved);
    for (const auto& input : base::input_files_read())
        if (within(target, input))
            fail(option, dir, "holds " + input + ", an input of this run; --force would delete it");
}
} // namespace

void results_dir::check_usable(const std::string& dir, bool replace, const std::string& option) {
    const fs::path resolved = normalized(dir);
    check_place(option, dir, fs::weakly_canonical(resolved));
    std::error_code ec;
    const fs::file_status st = fs::status(resolved, ec);
    if (st.type() == fs::file_type::not_found) return;
    if (ec) fail(option, dir, ec.message());
    if (st.type() != fs::file_type::directory) fail(option, dir, "exists and is not a directory");
    if (fs::is_empty(resolved, ec)) return;
    if (!replace)
        fail(option, dir,
             "is not empty (another run's files would mix with this one's); give --force to replace it, or "
             "another directory");
    check_replaceable(option, dir, resolved);
}

results_dir::identity results_dir::identity_of(const std::string& path) {
    struct stat st;
    identity id;
    if (::lstat(path.c_str(), &st) == 0) id = identity{true, st.st_dev, st.st_ino};
    return id;
}

results_dir::results_dir(std::string dir, bool replace, std::string option)
    : dir_(std::move(dir)), option_(std::move(option)), replace_(replace) {
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    check_usable(dir_, replace_, option_);
    path_ = normalized(dir_).string();
    at_start_ = identity_of(path_);
    partial_ = path_ + ".partial-" + std::to_string(::getpid());
    std::error_code ec;
    fs::create_directories(fs::path(partial_).parent_path(), ec);
    if (!ec) fs::remove_all(partial_, ec); // a leftover of an earlier process with our pid
    if (!ec) fs::create_directory(partial_, ec);
    if (ec) fail(option_, dir_, "cannot be written: " + ec.message());
    if (::access(partial_.c_str(), W_OK | X_OK) != 0) {
        fs::remove_all(partial_, ec);
        fail(option_, dir_, "cannot be written: permission denied");
    }
}

results_dir::~results_dir() {
    if (committed_ || keep_partial_) return;
    std::error_code ec;
    fs::remove_all(partial_, ec);
}

void results_dir::keep_partial_and_fail(const std::string& why) {
    keep_partial_ = true;
    throw base::write_error(option_ + " " + dir_, why + "; this run's complete results are kept in " + partial_);
}

void results_dir::write_failed(const base::write_error& e) const {
    std::string what = e.what();
    if (what.rfind(partial_ + "/", 0) == 0) what = what.substr(partial_.size() + 1);
    throw base::write_error(option_ + " " + dir_, what + " (nothing of this run was kept)");
}

void results_dir::commit() {
    write_files([&] { write_results_manifest(partial_); }); // on an error the destructor removes the partial dir
    // Runs into directories of one parent commit one at a time, so that the check below and the renames are
    // one step.
    const std::string parent = fs::path(path_).parent_path().string();
    const int lock = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock >= 0) ::flock(lock, LOCK_EX);
    struct unlock {
        int fd;
        ~unlock() {
            if (fd >= 0) ::close(fd); // releases the flock
        }
    } unlocker{lock};

    const identity now = identity_of(path_);
    if (now.exists && !(now == at_start_))
        keep_partial_and_fail("another run wrote it while this one ran, and it is left as that run wrote it");
    std::error_code ec;
    if (now.exists && replace_ && !fs::is_empty(path_, ec)) {
        try {
            check_replaceable(option_, dir_, path_); // the run's inputs are all known now (a policy)
        } catch (const config::config_error& e) {
            keep_partial_and_fail(e.lines().front().substr(option_.size() + dir_.size() + 2));
        }
        const std::string aside = path_ + ".replaced-" + std::to_string(::getpid());
        fs::remove_all(aside, ec);
        fs::rename(path_, aside, ec);
        if (ec) keep_partial_and_fail("it could not be moved aside to be replaced: " + ec.message());
        fs::rename(partial_, path_, ec);
        if (ec) {
            std::error_code back;
            fs::rename(aside, path_, back);
            keep_partial_and_fail("the results could not be moved into place: " + ec.message());
        }
        committed_ = true;
        fs::remove_all(aside, ec); // the old results, only now that the new ones are in place
        return;
    }
    // Absent, or (as when the run started) an empty directory, which rename() replaces in one step; it fails
    // if a file appeared in it meanwhile, and nothing is overwritten.
    fs::rename(partial_, path_, ec);
    if (ec == std::errc::directory_not_empty || ec == std::errc::file_exists)
        keep_partial_and_fail("files appeared in it while this run ran");
    if (ec) keep_partial_and_fail("the results could not be moved into place: " + ec.message());
    committed_ = true;
}

bool is_partial_results_name(const std::string& dir) {
    std::string s = dir;
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    const std::size_t at = s.rfind(".partial-");
    if (at == std::string::npos || at + 9 >= s.size()) return false;
    return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(at + 9), s.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

void write_results_manifest(const std::string& dir) {
    std::vector<std::pair<std::string, std::uintmax_t>> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string rel = it->path().lexically_relative(dir).string();
        if (rel == results_manifest) continue;
        files.emplace_back(rel, it->file_size(ec));
        if (ec) break;
    }
    if (ec) throw base::write_error(dir, ec.value());
    std::sort(files.begin(), files.end());
    std::ostringstream text;
    text << manifest_header
         << " complete. Every file of this directory with its size in bytes, written last; warmsched run --force "
            "replaces only a directory that holds this file, and compare and --resume check the files against it.\n";
    for (const auto& [name, size] : files) text << size << '\t' << name << '\n';
    base::write_file((fs::path(dir) / results_manifest).string(), text.str());
}

bool has_results_manifest(const std::string& dir) {
    std::ifstream in(fs::path(dir) / results_manifest);
    std::string first;
    return std::getline(in, first) && first.rfind(manifest_header, 0) == 0;
}

std::string results_problem(const std::string& dir) {
    const fs::path manifest = fs::path(dir) / results_manifest;
    std::error_code ec;
    if (!fs::is_regular_file(manifest, ec)) return std::string("no ") + results_manifest;
    std::ifstream in(manifest);
    std::string line;
    if (!std::getline(in, line) || line.rfind(manifest_header, 0) != 0)
        return std::string(results_manifest) + " was not written by warmsched";
    while (std::getline(in, line)) {
        const std::size_t tab = line.find('\t');
        if (tab == std::string::npos || tab == 0 || tab > 19 ||
            !std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(tab), ::isdigit))
            return std::string(results_manifest) + " is damaged (a line '" + line.substr(0, 80) + "')";
        const std::uintmax_t want = std::stoull(line.substr(0, tab));
        const fs::path rel(line.substr(tab + 1));
        if (rel.empty() || rel.is_absolute() || std::find(rel.begin(), rel.end(), "..") != rel.end())
            return std::string(results_manifest) + " is damaged (a file '" + rel.string() + "')";
        const fs::path f = fs::path(dir) / rel;
        if (!fs::is_regular_file(f, ec)) return rel.string() + " is missing";
        const std::uintmax_t size = fs::file_size(f, ec);
        if (ec) return rel.string() + " cannot be read: " + ec.message();
        if (size != want)
            return rel.string() + " is " + std::to_string(size) + " bytes, " + results_manifest + " says " +
                   std::to_string(want);
    }
    return "";
}

} // namespace warmsched::sim
