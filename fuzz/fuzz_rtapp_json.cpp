// Fuzzes rt-app's JSON reader: comments, trailing commas, workgen's duplicate keys, then the use case's
// grammar on a 32-CPU machine. Corpus: /usr/share/doc/rt-app/examples (Debian's rt-app) and tests/data.
#include "fuzz/fuzz_input.h"

#include "workloads/cli/option_parser.h"
#include "workloads/rtapp/json_reader.h"
#include "workloads/rtapp/rtapp_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warmsched::workloads;
    try {
        const auto doc = rtapp::parse_json_text(warmsched::fuzz::text_of(data, size), "fuzz.json");
        rtapp::parse_config(doc, "fuzz.json", 32);
    } catch (const usage_error&) {
    }
    return 0;
}
