// Fuzzes the sweep file reader (`warmsched sweep FILE`): the input, written to a scratch .yaml file, is
// read with read_sweep_spec (axes, placeholders of `command`, params, seeds, the grid's size bound), its
// grid is expanded (runs(), each run's overrides and command words) and written as canonical text, and
// the first run's experiment is read with its overrides and command, as `sweep` checks every run before
// any starts (reading them all is fuzz_experiment_yaml's work, many times over). Nothing is run and no
// sweep directory is made. Grids of more than 10,000 runs (the reader allows up to max_sweep_runs) are
// not expanded: a slow unit for the fuzzer, not a finding. Corpus: configs/sweeps and fuzz/corpus/sweep_file.
#include "fuzz/fuzz_input.h"

#include "platforms/config/config_error.h"
#include "sim/experiment.h"
#include "sim/sweep/sweep_spec.h"
#include "workloads/cli/option_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warmsched;
    const std::string path = fuzz::scratch_file(fuzz::text_of(data, size), "sweep.yaml");
    try {
        const sim::sweep::sweep_spec spec = sim::sweep::read_sweep_spec(path, "/tmp/warmsched-fuzz-sweep-out");
        if (spec.points() * spec.seeds.size() > 10'000) return 0;
        const std::vector<sim::sweep::sweep_run> runs = spec.runs();
        (void)spec.canonical_text();
        if (!runs.empty()) {
            sim::command_workload command;
            command.words = runs.front().command;
            sim::read_experiment(spec.experiment, runs.front().overrides, command);
        }
    } catch (const config::config_error&) {
    } catch (const workloads::usage_error&) {
    } catch (const workloads::help_requested&) {
    }
    return 0;
}
