// Finding the twin's guest kernel; see guest_kernel.h.
#include "twin/guest_kernel.h"

#include "platforms/config/config_error.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace warmsched::twin {
namespace {

[[noreturn]] void bad(const std::string& why) {
    throw config::config_error(config::origin{"<command line>", 0, 0}, "--guest-kernel", why);
}

} // namespace

std::string kernels_dir() {
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return "twin/kernels";
    exe[n] = '\0';
    return (fs::path(exe).parent_path() / "twin" / "kernels").string();
}

guest_kernel find_guest_kernel(const std::string& choice, scheduler::kernel_version k) {
    guest_kernel g;
    g.name = choice.empty() ? (k == scheduler::kernel_version::cfs_v5_15 ? "cloud-6.1" : "cloud-6.12") : choice;
    if (g.name == "cloud-6.1" || g.name == "cloud-6.12" || g.name == "rt-6.1") {
        const fs::path dir = fs::path(kernels_dir()) / g.name;
        g.image = (dir / "vmlinuz").string();
        if (!fs::is_regular_file(g.image))
            bad("kernel " + g.name + " is not installed (" + g.image + "): run `make deps`");
        std::ifstream pk(dir / "package");
        std::getline(pk, g.package);
        if (g.name == "cloud-6.12") g.append = "tsc=unstable";
        if (g.name == "rt-6.1") g.append = "noirqdebug";
        return g;
    }
    if (choice.find('/') == std::string::npos && !fs::exists(choice))
        bad("unknown kernel '" + choice + "' (cloud-6.1, cloud-6.12, rt-6.1, or a path to a bzImage)");
    if (!fs::is_regular_file(choice)) bad("no file " + choice);
    std::ifstream f(choice, std::ios::binary);
    char header[0x206] = {};
    f.read(header, sizeof header);
    if (f.gcount() < static_cast<std::streamsize>(sizeof header) || std::string(header + 0x202, 4) != "HdrS")
        bad(choice + " is not an x86 bzImage (no \"HdrS\" boot header)");
    g.image = fs::absolute(choice).string();
    g.package = "user's bzImage " + g.image;
    return g;
}

} // namespace warmsched::twin
