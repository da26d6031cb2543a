// Workload parameters from an experiment file; see workload_params.h.
#include "workloads/cli/workload_params.h"

#include "workloads/cli/option_parser.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace warmsched::workloads {

namespace {
std::string format_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}
} // namespace

const std::string* workload_params::take(const std::string& key) {
    read_.insert(key);
    const auto it = given_.find(key);
    return it == given_.end() ? nullptr : &it->second;
}

double workload_params::number(const std::string& tool, const std::string& key, double def, double min,
                               double max) {
    double v = def;
    if (const std::string* text = take(key)) {
        char* end = nullptr;
        v = std::strtod(text->c_str(), &end);
        if (text->empty() || end != text->c_str() + text->size() || !(v >= min && v <= max))
            throw usage_error(tool + ": parameter '" + key + "': expected a number in [" +
                              format_number(min) + ", " + format_number(max) + "], got '" + *text + "'");
    }
    resolved_.emplace_back(key, format_number(v));
    return v;
}

long long workload_params::integer(const std::string& tool, const std::string& key, long long def,
                                   long long min, long long max) {
    long long v = def;
    if (const std::string* text = take(key)) {
        if (!parse_int(*text, min, max, v))
            throw usage_error(tool + ": parameter '" + key + "': expected an integer in [" +
                              std::to_string(min) + ", " + std::to_string(max) + "], got '" + *text + "'");
    }
    resolved_.emplace_back(key, std::to_string(v));
    return v;
}

void workload_params::finish(const std::string& tool) const {
    for (const auto& [key, value] : given_) {
        if (read_.count(key)) continue;
        std::string known;
        for (const auto& k : read_) known += (known.empty() ? "" : ", ") + k;
        throw usage_error(tool + ": unknown parameter '" + key + "' (" +
                          (known.empty() ? std::string("it takes no parameters beyond its command line")
                                         : "known: " + known) +
                          ")");
    }
}

} // namespace warmsched::workloads
