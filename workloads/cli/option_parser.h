// Command-line options of the simulated tools, parsed the way getopt_long parses them: "-l 100",
// "-l100", "--loops 100", "--loops=100", grouped flags ("-pT"), and "--" ending the options. Errors
// are reported in glibc's words ("hackbench: invalid option -- 'x'") by throwing usage_error, which
// carries the tool's message and usage text.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace warmsched::workloads {

// A workload command line the real tool would reject; what() is the complete text to print.
class usage_error : public std::runtime_error {
public:
    explicit usage_error(const std::string& text) : std::runtime_error(text) {}
};

struct option_spec {
    char short_name;       // 0: long only
    std::string long_name; // empty: short only
    bool takes_value;
    // Handles one occurrence; `value` is empty for flags. Returns an error line or "".
    std::function<std::string(const std::string& value)> handle;
};

// Parses args (without the program name). Returns the operands left after the options.
std::vector<std::string> parse_options(const std::string& prog, const std::vector<std::string>& args,
                                       const std::vector<option_spec>& specs, const std::string& usage);

// A decimal integer in [min, max] (the whole text), or false.
bool parse_int(const std::string& text, long long min, long long max, long long& out);

} // namespace warmsched::workloads
