// schbench's latency statistics ("mr axboe's magic latency histogram", from fio): a log-linear histogram
// of microsecond values -- exact below 512, then 256 buckets per power of two, 19 groups -- with a sample
// count, min and max, and the percentile printout schbench writes:
//
//     Wakeup Latencies percentiles (usec) runtime 30 (s) (255474 total samples)
//               50.0th: 7          (66640 samples)
//             * 99.0th: 272        (21770 samples)
//               min=1, max=10481
//
// A percentile is the representative value of the first bucket whose cumulative count reaches it (the
// bucket's mean above 511); "(N samples)" is the count between the previous listed percentile and this
// one. The quirks of the original are kept, because they show in its output: min = 0 means "unset"
// (a 0 sample is replaced by the next one), and combining keeps the smaller non-zero min in order.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::workloads {

class latency_histogram {
public:
    static constexpr unsigned bits = 8;                  // PLAT_BITS
    static constexpr unsigned group_values = 1u << bits; // PLAT_VAL
    static constexpr unsigned groups = 19;               // PLAT_GROUP_NR
    static constexpr unsigned buckets = groups * group_values;

    // schbench's percentile list (plist) and the masks of what it prints.
    static constexpr std::array<double, 5> percentiles = {20.0, 50.0, 90.0, 99.0, 99.9};
    static constexpr unsigned p20 = 1u << 0, p50 = 1u << 1, p90 = 1u << 2, p99 = 1u << 3, p999 = 1u << 4;
    static constexpr unsigned for_latency = p50 | p90 | p99 | p999; // PLIST_FOR_LAT
    static constexpr unsigned for_rps = p20 | p50 | p90;            // PLIST_FOR_RPS
    // schbench before 2023 (release 2021): every one of these is printed, 99.0 starred (PLIST_P99).
    static constexpr std::array<double, 7> percentiles_2021 = {50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9};
    static constexpr unsigned all_2021 = (1u << 7) - 1, p99_2021 = 1u << 4;

    static unsigned value_to_index(unsigned value);
    static unsigned index_to_value(unsigned index);

    void add(unsigned value); // add_lat
    void combine(const latency_histogram& other);
    void reset() { *this = latency_histogram(); }

    std::uint64_t samples() const { return samples_; }
    unsigned min() const { return min_; }
    unsigned max() const { return max_; }
    std::uint64_t bucket(unsigned index) const { return plat_[index]; }

    struct percentile {
        double pct;
        unsigned value;
        std::uint64_t count; // samples since the previous percentile of the list
    };
    // Every percentile of the list (calc_percentiles); by default schbench's current list.
    std::vector<percentile> compute() const { return compute(percentiles.data(), percentiles.size()); }
    std::vector<percentile> compute(const double* list, std::size_t len) const;

    // show_latencies: `label` e.g. "Wakeup Latencies", `units` "usec", `runtime` as printed, `mask` which
    // percentiles of `list` to print (bit i: list[i]), `star` the one marked with "* ".
    void print(std::ostream& out, const std::string& label, const std::string& units,
               const std::string& runtime, unsigned mask, unsigned star,
               const double* list = percentiles.data(), std::size_t len = percentiles.size()) const;

private:
    std::vector<std::uint64_t> plat_ = std::vector<std::uint64_t>(buckets, 0);
    std::uint64_t samples_ = 0;
    unsigned min_ = 0, max_ = 0;
};

} // namespace warmsched::workloads
