// Option parsing with glibc's getopt_long and getopt_long_only; see option_parser.h.
#include "workloads/cli/option_parser.h"

#include <getopt.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace warmsched::workloads {

bool parse_int(const std::string& text, long long min, long long max, long long& out) {
    long long v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end || text.empty() || v < min || v > max) return false;
    out = v;
    return true;
}

option_spec flag_option(char short_name, const std::string& long_name, bool& flag, bool value) {
    return {short_name, long_name, false, [&flag, value](const std::string&) {
                flag = value;
                return std::string();
            }};
}

option_spec help_option(char short_name, const std::string& usage) {
    return {short_name, "help", false,
            [usage](const std::string&) -> std::string { throw help_requested(usage); }};
}

option_spec positive_option(char short_name, const std::string& long_name, unsigned& field,
                            const std::string& error) {
    return {short_name, long_name, true, [&field, error](const std::string& v) {
                long long n = 0;
                if (!parse_int(v, 1, 1'000'000'000, n)) return error;
                field = static_cast<unsigned>(n);
                return std::string();
            }};
}

namespace {
// glibc's getopt reports an error on stderr before it returns '?': the message is taken from a memory
// stream put in stderr's place for the call, so that it is glibc's own wording.
class captured_stderr {
public:
    captured_stderr() : saved_(stderr), mem_(open_memstream(&buf_, &len_)) {
        if (mem_) stderr = mem_;
    }
    ~captured_stderr() {
        release();
        std::free(buf_); // open_memstream's buffer is the caller's to free, after fclose
    }
    std::string text() {
        release();
        std::string t = buf_ ? std::string(buf_, len_) : std::string();
        while (!t.empty() && t.back() == '\n') t.pop_back();
        return t;
    }
    captured_stderr(const captured_stderr&) = delete;
    captured_stderr& operator=(const captured_stderr&) = delete;

private:
    void release() {
        if (!mem_) return;
        stderr = saved_;
        std::fclose(mem_);
        mem_ = nullptr;
    }
    FILE* saved_;
    char* buf_ = nullptr;
    std::size_t len_ = 0;
    FILE* mem_;
};
} // namespace

std::vector<std::string> parse_options(const std::string& prog, const std::vector<std::string>& args,
                                       const std::vector<option_spec>& specs, const std::string& usage,
                                       option_dialect dialect, const option_hooks& hooks) {
    const bool perf = dialect == option_dialect::perf;
    const bool long_only = dialect == option_dialect::getopt_long_only;
    auto fail = [&](const std::string& line) { throw usage_error(line + "\n" + usage); };
    // getopt_long's tables: a short option returns its letter, a long-only one 256 + its spec's index.
    std::vector<option_spec> table = specs; // then hooks.table_tail's, once there are any
    std::string shorts;
    std::vector<option> longs;
    auto build_tables = [&] {
        shorts = perf ? ":" : ""; // perf: ':' for a missing value, words of its own below
        longs.clear();
        for (std::size_t i = 0; i < table.size(); ++i) {
            const option_spec& o = table[i];
            const int val =
                o.short_name ? static_cast<unsigned char>(o.short_name) : 256 + static_cast<int>(i);
            const bool optional = !o.takes_value && o.optional_value;
            if (o.short_name)
                shorts += std::string(1, o.short_name) + (o.takes_value ? ":" : optional ? "::" : "");
            if (!o.long_name.empty())
                longs.push_back({o.long_name.c_str(),
                                 o.takes_value ? required_argument
                                 : optional    ? optional_argument
                                               : no_argument,
                                 nullptr, val});
        }
        longs.push_back({nullptr, 0, nullptr, 0});
    };
    build_tables();
    auto spec_of = [&](int val) -> const option_spec* {
        if (val >= 256) return &table[static_cast<std::size_t>(val - 256)];
        for (const auto& o : table)
            if (o.short_name && static_cast<unsigned char>(o.short_name) == val) return &o;
        return nullptr;
    };
    std::vector<std::string> words{prog};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const int argc = static_cast<int>(words.size());
    optind = 0; // glibc: start afresh (a new argument vector)
    opterr = perf ? 0 : 1;
    for (;;) {
        captured_stderr err;
        int index = -1;
        const int c = long_only ? getopt_long_only(argc, argv.data(), shorts.c_str(), longs.data(), &index)
                                : getopt_long(argc, argv.data(), shorts.c_str(), longs.data(), &index);
        if (c == -1) break;
        if (c == '?' || c == ':') {
            if (!perf) {
                const std::string text = err.text();
                const std::string own = hooks.after_refusal
                                            ? hooks.after_refusal(argv[static_cast<std::size_t>(optind - 1)])
                                            : std::string();
                fail(own.empty() ? text : text + "\n" + own);
            }
            const std::string arg = argv[static_cast<std::size_t>(optind - 1)];
            const option_spec* s = optopt ? spec_of(optopt) : nullptr;
            const bool is_long = arg.rfind("--", 0) == 0;
            std::string name =
                is_long ? arg.substr(2, arg.find('=') - 2) : std::string(1, static_cast<char>(optopt));
            if (c == ':' && s)
                fail(" Error: " + std::string(is_long ? "option `" : "switch `") +
                     (is_long ? s->long_name : name) + "' requires a value");
            fail(is_long ? " Error: unknown option `" + name + "'" : " Error: unknown switch `" + name + "'");
        }
        const option_spec* s = spec_of(c);
        std::string value = optarg ? std::string(optarg) : std::string();
        if (!s->takes_value && s->optional_value && !optarg && optind < argc &&
            s->optional_value(argv[optind]))
            value = argv[optind++]; // the next word is its value (glibc takes an advanced optind)
        const std::string why = s->handle(value);
        if (!why.empty()) fail(why);
        if (hooks.table_tail) { // glibc reads the table afresh at each call, as fio relies on
            table.assign(specs.begin(), specs.end());
            const std::vector<option_spec> tail = hooks.table_tail();
            table.insert(table.end(), tail.begin(), tail.end());
            build_tables();
        }
    }
    return {argv.begin() + optind, argv.end() - 1};
}

} // namespace warmsched::workloads
