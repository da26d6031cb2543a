// Strict, typed reading of one map in a configuration tree. Every read names its key; a missing required
// key, a wrong type, an out-of-range value or a key nobody read (finish()) becomes an error line with the
// file position and the full dotted key. Every value read -- given or defaulted -- is also written into a
// "resolved" tree, which is exactly the fully resolved configuration written next to a run's results.
#pragma once

#include "platforms/config/config_node.h"
#include "platforms/config/units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warmsched::config {

class config_reader {
public:
    // `node` may be null (an absent section: every key takes its default). `resolved` may be null.
    config_reader(const config_node* node, std::string key_path, error_list& errors, config_node* resolved,
                  origin fallback = {});

    // Scalars. A default of std::nullopt makes the key required.
    std::string text(const std::string& key, std::optional<std::string> def = std::nullopt);
    std::string choice(const std::string& key, const std::vector<std::string>& allowed,
                       std::optional<std::string> def = std::nullopt);
    long long integer(const std::string& key, std::optional<long long> def, long long min, long long max);
    double number(const std::string& key, std::optional<double> def, double min, double max);
    bool boolean(const std::string& key, std::optional<bool> def = std::nullopt);
    std::uint64_t size(const std::string& key, std::optional<std::uint64_t> def = std::nullopt,
                       std::uint64_t min = 1);
    double time_ps(const std::string& key, std::optional<double> def = std::nullopt);
    // A time the model counts in whole nanoseconds (the scheduler's clock, as the kernel's): a value with
    // a fraction of a ns (0.5ns, 1500ps) is refused rather than truncated -- `duration: 0.5ns` became 0,
    // which means no duration. Returns nanoseconds.
    std::uint64_t time_ns(const std::string& key, std::optional<std::uint64_t> def_ns = std::nullopt);
    latency_value latency(const std::string& key, std::optional<latency_value> def = std::nullopt);
    double frequency(const std::string& key, std::optional<double> def = std::nullopt);
    double bandwidth(const std::string& key, std::optional<double> def = std::nullopt);
    // A list of numbers rows (e.g. a distance table); empty when absent.
    std::vector<std::vector<double>> matrix(const std::string& key);
    std::vector<std::string> text_list(const std::string& key);

    bool has(const std::string& key) const;
    // Marks a key as read and returns its node (nullptr if absent), for sections read by another reader.
    const config_node* consume(const std::string& key) { return raw(key, false); }
    // Sub-map (absent -> a reader of defaults) and list of sub-maps.
    config_reader child(const std::string& key);
    std::vector<config_reader> children(const std::string& key, bool required = false);

    // Reports every key of the map that was never read (typo or unsupported option), with where the key
    // belongs instead (keys_of_elsewhere), else the key read here that it misspells ("did you mean
    // base_slice_ns?"), else the keys read here when they are few enough to read (64 or fewer: the 50
    // scheduler features).
    void finish();
    // Keys that belong under `section` instead of here (a platform's `caches` given at an experiment's
    // top level): finish() names `section.KEY` for them.
    void keys_of_elsewhere(std::vector<std::string> keys, std::string section) {
        elsewhere_keys_ = std::move(keys);
        elsewhere_ = std::move(section);
    }

    // An error about this map's key, for cross-field checks done by the caller.
    void error(const std::string& key, const std::string& what) const;
    // An error about `key` inside the sub-map `section` (reading nothing, resolving nothing).
    void error_in(const std::string& section, const std::string& key, const std::string& what) const;
    origin where(const std::string& key) const;
    std::string path(const std::string& key) const;
    const std::string& key_path() const { return path_; }

private:
    const config_node* raw(const std::string& key, bool required);
    void record(const std::string& key, const std::string& value);

    const config_node* node_;
    std::string path_;
    error_list* errors_;
    config_node* resolved_;
    origin fallback_;
    std::vector<std::string> used_;
    std::vector<std::string> elsewhere_keys_;
    std::string elsewhere_;
};

// The candidate `word` misspells: the shortest one it begins (from 4 letters), else the nearest by edit
// distance (case-insensitive; an adjacent swap costs 1) if close enough to be a misspelling (at most 1
// edit for short words, 2 from 5 letters, 3 from 12); "" if none is.
std::string nearest_spelling(const std::string& word, const std::vector<std::string>& candidates);

} // namespace warmsched::config
