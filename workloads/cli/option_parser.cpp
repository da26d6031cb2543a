// getopt_long-style parsing; see option_parser.h.
#include "workloads/cli/option_parser.h"

#include <charconv>

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

option_spec positive_option(char short_name, const std::string& long_name, unsigned& field,
                            const std::string& error) {
    return {short_name, long_name, true, [&field, error](const std::string& v) {
                long long n = 0;
                if (!parse_int(v, 1, 1'000'000'000, n)) return error;
                field = static_cast<unsigned>(n);
                return std::string();
            }};
}

std::vector<std::string> parse_options(const std::string& prog, const std::vector<std::string>& args,
                                       const std::vector<option_spec>& specs, const std::string& usage,
                                       option_dialect dialect) {
    std::vector<std::string> operands;
    const bool perf = dialect == option_dialect::perf;
    auto fail = [&](const std::string& line) { throw usage_error(line + "\n" + usage); };
    auto apply = [&](const option_spec& s, const std::string& value) {
        const std::string why = s.handle(value);
        if (!why.empty()) fail(why);
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            operands.insert(operands.end(), args.begin() + static_cast<long>(i) + 1, args.end());
            break;
        }
        if (a.rfind("--", 0) == 0) {
            const std::size_t eq = a.find('=');
            const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            const option_spec* s = nullptr;
            for (const auto& o : specs)
                if (!o.long_name.empty() && o.long_name == name) s = &o;
            if (!s)
                fail(perf ? " Error: unknown option `" + name + "'"
                          : prog + ": unrecognized option '" + a + "'");
            if (!s->takes_value) {
                if (eq != std::string::npos)
                    fail(prog + ": option '--" + name + "' doesn't allow an argument");
                apply(*s, "");
            } else if (eq != std::string::npos) {
                apply(*s, a.substr(eq + 1));
            } else if (i + 1 < args.size()) {
                apply(*s, args[++i]);
            } else {
                fail(prog + ": option '--" + name + "' requires an argument");
            }
            continue;
        }
        if (a.size() > 1 && a[0] == '-') {
            for (std::size_t j = 1; j < a.size(); ++j) {
                const option_spec* s = nullptr;
                for (const auto& o : specs)
                    if (o.short_name == a[j]) s = &o;
                if (!s)
                    fail(perf ? " Error: unknown switch `" + std::string(1, a[j]) + "'"
                              : prog + ": invalid option -- '" + std::string(1, a[j]) + "'");
                if (!s->takes_value) {
                    apply(*s, "");
                    continue;
                }
                if (j + 1 < a.size())
                    apply(*s, a.substr(j + 1));
                else if (i + 1 < args.size())
                    apply(*s, args[++i]);
                else
                    fail(prog + ": option requires an argument -- '" + std::string(1, a[j]) + "'");
                break;
            }
            continue;
        }
        operands.push_back(a);
    }
    return operands;
}

} // namespace warmsched::workloads
