// Fuzzes `warmsched compare DIR` over a whole directory: the input is a tree (fuzz/fuzz_tree.h) -- a
// results directory (stats.json, report.txt), a --repeat directory (repeat.yaml, seed-<s>/ runs), a sweep
// directory (results.db) or a mixture, with symbolic links, loops, links to devices and FIFOs -- read as
// the compare subcommand reads it (sim/main.cpp): a sweep's database if there is one, else every run's
// files, printed both as the mmtests table and the --wide one (the same directory twice: two columns).
// Corpus: fuzz/corpus/compare_dir (a run, a --repeat directory, damaged ones).
#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_tree.h"

#include "platforms/config/config_error.h"
#include "sim/compare/compare_table.h"
#include "sim/sweep/sweep_compare.h"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warmsched;
    const std::string dir = fuzz::scratch_tree(fuzz::text_of(data, size));
    std::ostringstream out;
    try {
        if (const std::string db = sim::sweep::sweep_database_of(dir); !db.empty()) {
            sim::sweep::compare_sweeps(out, {db}, false);
        } else {
            sim::print_comparison(out, {dir, dir});
            sim::print_comparison_wide(out, {dir});
        }
    } catch (const config::config_error&) {
    }
    return 0;
}
