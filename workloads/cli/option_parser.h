// Command-line options of the simulated tools, parsed by glibc's getopt_long, as the real tools parse
// them: "-l 100", "-l100", "--loops 100", "--loops=100", a unique abbreviation of a long option
// ("--pi" for --pipe), grouped flags ("-pT"), operands between options, and "--" ending the options.
// fio's dialect is glibc's getopt_long_only, as fio's parse_cmd_line calls it: a long option also with
// one dash ("-name=x"), and any two options a prefix matches are ambiguous.
// Errors are reported in the tool's own words -- glibc getopt's own messages ("hackbench: invalid
// option -- 'x'", "option '--p' is ambiguous; ...") or perf's parse-options (" Error: unknown switch
// `x'") -- by throwing usage_error, which carries the message and the tool's usage text.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace warmsched::workloads {

// A workload command line the real tool would reject; what() is the complete text to print. `own_words`:
// the text is warmsched's, about the tool's input (an rt-app taskset file's key), not the tool's own
// usage message -- printed after `error: `, as every other error of warmsched.
class usage_error : public std::runtime_error {
public:
    explicit usage_error(const std::string& text, bool own_words = false)
        : std::runtime_error(text), own_words_(own_words) {}
    bool own_words() const { return own_words_; }

private:
    bool own_words_;
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

// getopt: glibc getopt_long. getopt_long_only: glibc getopt_long_only (fio). perf: perf's parse-options
// wording for errors.
enum class option_dialect { getopt, getopt_long_only, perf };

// What a tool's parser does around getopt beyond its table (fio's parse_cmd_line).
struct option_hooks {
    // The tool's own lines after glibc's complaint about `word` (argv[optind - 1] when getopt returned
    // '?'), e.g. fio's "fio: unrecognized option '...'"; "" adds none. Not used by the perf dialect.
    std::function<std::string(const std::string& word)> after_refusal;
    // Asked after each option is handled: the options that follow `specs` in the table from then on
    // (fio puts the loaded I/O engine's own options at the end of its table).
    std::function<std::vector<option_spec>()> table_tail;
};

// Parses args (without the program name). Returns the operands left after the options.
std::vector<std::string> parse_options(const std::string& prog, const std::vector<std::string>& args,
                                       const std::vector<option_spec>& specs, const std::string& usage,
                                       option_dialect dialect = option_dialect::getopt,
                                       const option_hooks& hooks = {});

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
