// Loading a policy plug-in; see policy_loader.h.
#include "scheduler/ext/policy_loader.h"

#include <dlfcn.h>

#include <filesystem>

namespace warmsched::scheduler {

namespace fs = std::filesystem;

std::string policy_path(const std::string& spec) {
    if (spec.find('/') != std::string::npos || (spec.size() > 3 && spec.compare(spec.size() - 3, 3, ".so") == 0))
        return spec;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ((ec ? fs::path(".") : exe.parent_path()) / "policies" / (spec + ".so")).string();
}

std::shared_ptr<ext::policy> load_policy(const std::string& spec) {
    const std::string path = policy_path(spec);
    if (!fs::exists(path))
        throw policy_load_error(path + ": no such file" +
                                (path != spec ? " (the in-tree examples are simple_fifo, llc_rr, llc_sticky)" : ""));
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw policy_load_error(dlerror());
    using version_fn = unsigned (*)();
    using create_fn = ext::policy* (*)();
    using destroy_fn = void (*)(ext::policy*);
    auto version = reinterpret_cast<version_fn>(dlsym(h, "warmsched_policy_api_version"));
    auto create = reinterpret_cast<create_fn>(dlsym(h, "warmsched_policy_create"));
    auto destroy = reinterpret_cast<destroy_fn>(dlsym(h, "warmsched_policy_destroy"));
    if (!version || !create || !destroy) {
        dlclose(h);
        throw policy_load_error(path + ": not a warmsched policy (no WARMSCHED_POLICY(...) in it)");
    }
    if (version() != ext::api_version) {
        const unsigned v = version();
        dlclose(h);
        throw policy_load_error(path + ": built against policy API " + std::to_string(v) + ", this warmsched has " +
                                std::to_string(ext::api_version));
    }
    ext::policy* p = create();
    if (!p) {
        dlclose(h);
        throw policy_load_error(path + ": warmsched_policy_create returned no policy");
    }
    return std::shared_ptr<ext::policy>(p, [h, destroy](ext::policy* q) {
        destroy(q);
        dlclose(h);
    });
}

} // namespace warmsched::scheduler
