// Fuzzes `warmsched import`: the input as an hwloc XML (libhwloc's parser, then the shaping into the
// platform format and the platform reader) and as lscpu -J JSON. Corpus: tests/data/hwloc, this machine's.
#include "fuzz/fuzz_input.h"

#include "platforms/config/config_error.h"
#include "platforms/import/platform_import.h"

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
