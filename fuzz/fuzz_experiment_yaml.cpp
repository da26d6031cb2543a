// Fuzzes the experiment reader end to end, short of running: an experiment YAML (with include: chains
// resolved next to it, the platform it names loaded, its workloads' command lines parsed) written to a
// scratch file and read with read_experiment. Corpus: configs/experiments/*.yaml.
#include "fuzz/fuzz_input.h"

#include "platforms/config/config_error.h"
#include "sim/experiment.h"
#include "workloads/cli/option_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warmsched;
    const std::string path = fuzz::scratch_file(fuzz::text_of(data, size), "yaml");
    try {
        sim::read_experiment(path, {});
    } catch (const config::config_error&) {
    } catch (const workloads::usage_error&) {
    } catch (const workloads::help_requested&) {
    }
    return 0;
}
