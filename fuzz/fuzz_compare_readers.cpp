// Fuzzes what `warmsched compare` and `plot` read from a results directory: report.txt's metric lines
// and stats.json (the input is tried as both). Corpus: a run's report.txt and stats.json.
#include "fuzz/fuzz_input.h"

#include "platforms/config/config_error.h"
#include "sim/compare/run_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warmsched;
    const std::string text = fuzz::text_of(data, size);
    sim::parse_report_metrics(text);
    try {
        sim::read_stats_json(fuzz::scratch_file(text, "json"));
    } catch (const config::config_error&) {
    }
    return 0;
}
