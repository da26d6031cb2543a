// Fuzzes every workload's command line: the text split as a shell would (quotes), then dispatched to the
// tool's option parser (getopt_long and the tools' own checks) for a 32-CPU machine, as `run -- ...` does.
// Corpus: fuzz/corpus/workload_cli (the command lines of the docs and tests).
#include "fuzz/fuzz_input.h"

#include "platforms/config/config_error.h"
#include "workloads/cli/command_line.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warmsched;
    try {
        workloads::parse_command_line(workloads::split_command_line(fuzz::text_of(data, size)), 32);
    } catch (const workloads::usage_error&) {
    } catch (const workloads::help_requested&) {
    } catch (const config::config_error&) {
    }
    return 0;
}
