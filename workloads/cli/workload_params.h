// Parameters of a workload that its real tool's command line does not have -- instructions per request,
// working-set sizes, start-up delays -- given in an experiment file beside the command line:
//
//     workloads:
//       - schbench -m 2 -t 16 -r 1                # a plain command line: every parameter at its default
//       - command: massive_intr 32 1
//         start_delay_ms: 0                       # any other key is a parameter of that workload
//
// A workload reads the keys it knows, each with its documented default and range; finish() then rejects
// any key nobody read, naming it and listing the known ones. Every value read, defaults included, is
// kept in order for the run's resolved configuration. Errors are usage_error, worded like
// "schbench: parameter 'x': ...".
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace warmsched::workloads {

class workload_params {
public:
    workload_params() = default;
    // A value as written in the experiment file (later values of a key replace earlier ones).
    void set(const std::string& key, const std::string& value) { given_[key] = value; }
    bool empty() const { return given_.empty(); }

    // A decimal number in [min, max]; `def` when the key is absent.
    double number(const std::string& tool, const std::string& key, double def, double min, double max);
    // An integer in [min, max]; `def` when the key is absent.
    long long integer(const std::string& tool, const std::string& key, long long def, long long min,
                      long long max);
    // Throws usage_error for the first key that was given but never read.
    void finish(const std::string& tool) const;

    // key -> value of every parameter read, in the order read (defaults included).
    const std::vector<std::pair<std::string, std::string>>& resolved() const { return resolved_; }

private:
    const std::string* take(const std::string& key);

    std::map<std::string, std::string> given_;
    std::set<std::string> read_;
    std::vector<std::pair<std::string, std::string>> resolved_;
};

} // namespace warmsched::workloads
