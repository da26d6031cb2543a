// A full disk, or one out of inodes, never leaves a results directory that looks complete (issue 41): every
// results file is written checked (base/files/output_file.h), and a failed write ends the run with exit 1,
// one line naming the file and the error, and nothing of the run left on disk. The disks are small tmpfs
// mounts, which need root (the suite runs as root on the project's machines); elsewhere the cases say
// they were not checked.
#include "support/cli_runner.h"

#include <catch2/catch.hpp>

#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>

namespace fs = std::filesystem;
using warmsched::test::run_cli_as_is;

namespace {
// A tmpfs of the given mount options, unmounted at the end of the test; !mounted() where that is not allowed.
class small_disk {
public:
    explicit small_disk(const std::string& name, const std::string& options)
        : dir_(warmsched::test::temp_path("disk", name)) {
        fs::create_directories(dir_);
        mounted_ = ::mount("warmsched-test", dir_.c_str(), "tmpfs", 0, options.c_str()) == 0;
    }
    ~small_disk() {
        if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    // Whether the disk is there; says the case was not checked where it is not.
    bool mounted() const {
        if (!mounted_) WARN("not checked: mounting a tmpfs needs root");
        return mounted_;
    }
    const fs::path& dir() const { return dir_; }

private:
    fs::path dir_;
    bool mounted_ = false;
};

// The run failed as a full disk must make it: status 1, one line naming --out, a file and the error, and
// nothing of the run on the disk.
void failed_cleanly(const small_disk& d, const std::string& args, const std::string& error) {
    const fs::path out = d.dir() / "r";
    const auto r = run_cli_as_is("run --out " + out.string() + " " + args);
    INFO(r.err);
    CHECK(r.status == 1);
    // stderr ends with the line (before it: the run's speed, which every run prints there).
    const std::regex line("(.*\n)?error: --out " + out.string() + ": [a-z0-9_./-]+: " + error +
                          " \\(nothing of this run was kept\\)\n");
    CHECK(std::regex_match(r.err, line));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') <= 2);
    CHECK(r.out.find("results: ") == std::string::npos);
    CHECK(fs::is_empty(d.dir())); // neither DIR nor DIR.partial-<pid>
}
} // namespace

TEST_CASE("a full disk ends the run with exit 1 and one line, and leaves no directory") {
    small_disk d("64k", "size=64k");
    if (!d.mounted()) return;
    failed_cleanly(d, "-- hackbench -g 1 -l 1", "No space left on device");
}

TEST_CASE("traces that do not fit end the run the same way") {
    small_disk d("1m", "size=1m");
    if (!d.mounted()) return;
    failed_cleanly(d, "--trace-format ftrace,perfetto -- hackbench -g 2 -l 200", "No space left on device");
}

TEST_CASE("running out of inodes is the same kind of error, not an uncaught exception") {
    small_disk d("inodes", "size=16m,nr_inodes=24");
    if (!d.mounted()) return;
    failed_cleanly(d, "-- hackbench -g 2 -l 1", "No space left on device");
}

TEST_CASE("a --repeat seed that meets a full disk fails, and --resume finishes it once there is room") {
    small_disk d("repeat", "size=256k");
    if (!d.mounted()) return;
    const fs::path out = d.dir() / "rep";
    const auto r = run_cli_as_is("run --repeat 3 -j 1 --out " + out.string() + " -- hackbench -g 1 -l 1");
    INFO(r.err);
    CHECK(r.status == 1);
    CHECK(r.err.find("No space left on device (nothing of this run was kept)") != std::string::npos);
    for (const auto& e : fs::directory_iterator(out)) // only complete seeds, each matching its manifest
        if (e.is_directory()) CHECK(fs::exists(e.path() / "manifest.txt"));
    CHECK(run_cli_as_is("compare " + out.string()).status == 2); // the failed seeds are missing
    REQUIRE(::mount("warmsched-test", d.dir().c_str(), "tmpfs", MS_REMOUNT, "size=16m") == 0);
    const auto resumed = run_cli_as_is("run --repeat 3 -j 1 --resume --out " + out.string() + " -- hackbench -g 1 -l 1");
    INFO(resumed.err);
    CHECK(resumed.status == 0);
    CHECK(run_cli_as_is("compare " + out.string()).status == 0);
}
