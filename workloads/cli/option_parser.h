// Command-line options of the simulated tools, parsed by glibc's getopt_long, as the real tools parse
// them: "-l 100", "-l100", "--loops 100", "--loops=100", a unique abbreviation of a long option
// ("--pi" for --pipe), grouped flags ("-pT"), operands between options, and "--" ending the options.
// Errors are reported in the tool's own words -- glibc getopt's own messages ("hackbench: invalid
// option -- 'x'", "option '--p' is ambiguous; ...") or perf's parse-options (" Error: unknown switch
// `x'") -- by throwing usage_error, which carries the message and the tool's usage text.
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

// --help (or -h): the tool's usage text was asked for; what() is it. The run prints it on stdout and
// exits 0, as the real tools do.
class help_requested : public std::runtime_error {
public:
    explicit help_requested(const std::string& text) : std::runtime_error(text) {}
};

struct option_spec {
    char short_name;       // 0: long only
    std::string long_name; // empty: short only
    bool takes_value;
    // Handles one occurrence; `value` is empty for flags. Returns an error line or "".
    std::function<std::string(const std::string& value)> handle;
    // For an option without a required value: set, the option takes an optional one -- attached
    // ("-t4", "--threads=4"), or the next word if this says it is one, which it then consumes (cyclictest's
    // -t and -a look at argv[optind] so). The handler gets "" when there is none.
    std::function<bool(const std::string& next)> optional_value = nullptr;
};

enum class option_dialect { getopt, perf };

// Parses args (without the program name). Returns the operands left after the options.
std::vector<std::string> parse_options(const std::string& prog, const std::vector<std::string>& args,
                                       const std::vector<option_spec>& specs, const std::string& usage,
                                       option_dialect dialect = option_dialect::getopt);

// An option without a value that sets `flag` to `value`.
option_spec flag_option(char short_name, const std::string& long_name, bool& flag, bool value = true);
// -h/--help (short_name 0: --help only), which throws help_requested with `usage`.
option_spec help_option(char short_name, const std::string& usage);
// An option whose value is an integer in [1, 1e9] stored in `field`; `error` is the tool's complaint.
option_spec positive_option(char short_name, const std::string& long_name, unsigned& field,
                            const std::string& error);

// A decimal integer in [min, max] (the whole text), or false.
bool parse_int(const std::string& text, long long min, long long max, long long& out);

} // namespace warmsched::workloads
