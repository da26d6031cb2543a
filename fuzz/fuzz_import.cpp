// Fuzzes `warmsched import`: the input as an hwloc XML (libhwloc's parser, then the shaping into the
// platform format and the platform reader) and as lscpu -J JSON. Corpus: tests/data/hwloc, this machine's.
//
// libhwloc parses XML with libxml2 through a plugin it dlopens (hwloc_xml_libxml.so) and closes again
// with the topology. On some inputs libxml2 keeps state in its globals (an XML declaring an encoding it does
// not know, "UTF-4": 3,240 bytes); when the plugin and libxml2 are unloaded, that memory loses its last
// reference, and LeakSanitizer reported it as a leak from "<unknown module>" (this harness's 1-hour run).
// In warmsched, which imports once and exits, nothing accumulates. The harness keeps both loaded
// (RTLD_NODELETE), as a process that loads them once does: the memory stays reachable, and a leak that
// is really one is still reported.
#include "fuzz/fuzz_input.h"

#include "platforms/config/config_error.h"
#include "platforms/import/platform_import.h"

#include <dlfcn.h>
#include <hwloc.h>

#include <string>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&hwloc_topology_init), &info) != 0 && info.dli_fname != nullptr) {
        std::string dir = info.dli_fname;
        dir = dir.substr(0, dir.find_last_of('/') + 1);
        dlopen((dir + "hwloc/hwloc_xml_libxml.so").c_str(), RTLD_NOW | RTLD_NODELETE);
    }
    dlopen("libxml2.so.2", RTLD_NOW | RTLD_NODELETE);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warmsched;
    const std::string text = fuzz::text_of(data, size);
    for (const auto from : {platform::import::import_from::hwloc, platform::import::import_from::lscpu}) {
        try {
            platform::import::import_platform_yaml(
                {from, fuzz::scratch_file(text, from == platform::import::import_from::hwloc ? "xml" : "json"),
                 "fuzz"});
        } catch (const config::config_error&) {
        }
    }
    return 0;
}
