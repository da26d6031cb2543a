// schbench's latency histogram; see latency_histogram.h.
#include "workloads/bench/latency_histogram.h"

#include <cstdio>

namespace warmsched::workloads {

unsigned latency_histogram::value_to_index(unsigned value) {
    const unsigned msb = value == 0 ? 0 : 31u - static_cast<unsigned>(__builtin_clz(value));
    if (msb <= bits) return value; // below 512: one bucket per value
    const unsigned error_bits = msb - bits;
    const unsigned base = (error_bits + 1) << bits;
    const unsigned offset = (group_values - 1) & (value >> error_bits);
    return base + offset < buckets - 1 ? base + offset : buckets - 1;
}

unsigned latency_histogram::index_to_value(unsigned index) {
    if (index < (group_values << 1)) return index;
    const unsigned error_bits = (index >> bits) - 1;
    const unsigned base = 1u << (error_bits + bits);
    const unsigned k = index % group_values;
    return base + static_cast<unsigned>((k + 0.5) * static_cast<double>(1u << error_bits)); // bucket mean
}

void latency_histogram::add(unsigned value) {
    if (value > max_) max_ = value;
    if (min_ == 0 || value < min_) min_ = value;
    ++plat_[value_to_index(value)];
    ++samples_;
}

void latency_histogram::combine(const latency_histogram& o) {
    for (unsigned i = 0; i < buckets; ++i) plat_[i] += o.plat_[i];
    samples_ += o.samples_;
    if (o.max_ > max_) max_ = o.max_;
    if (min_ == 0 || o.min_ < min_) min_ = o.min_;
}

std::vector<latency_histogram::percentile> latency_histogram::compute(const double* list,
                                                                      std::size_t len) const {
    std::vector<percentile> out;
    std::uint64_t sum = 0;
    bool last = false;
    for (unsigned i = 0; i < buckets && !last; ++i) {
        sum += plat_[i];
        while (static_cast<double>(sum) >= list[out.size()] / 100.0 * static_cast<double>(samples_)) {
            out.push_back({list[out.size()], index_to_value(i), sum});
            last = out.size() == len;
            if (last) break;
        }
    }
    // Cumulative counts become counts since the previous percentile.
    for (std::size_t i = out.size(); i-- > 1;) out[i].count -= out[i - 1].count;
    return out;
}

void latency_histogram::print(std::ostream& out, const std::string& label, const std::string& units,
                              const std::string& runtime, unsigned mask, unsigned star, const double* list,
                              std::size_t len) const {
    char line[160];
    const auto ps = compute(list, len);
    if (!ps.empty()) {
        std::snprintf(line, sizeof line, "%s percentiles (%s) runtime %s (s) (%llu total samples)\n",
                      label.c_str(), units.c_str(), runtime.c_str(),
                      static_cast<unsigned long long>(samples_));
        out << line;
        for (std::size_t i = 0; i < ps.size(); ++i) {
            const unsigned bit = 1u << i;
            if (!(mask & bit)) continue;
            std::snprintf(line, sizeof line, "\t%s%2.1fth: %-10u (%llu samples)\n", bit == star ? "* " : "  ",
                          ps[i].pct, ps[i].value, static_cast<unsigned long long>(ps[i].count));
            out << line;
        }
    }
    std::snprintf(line, sizeof line, "\t  min=%u, max=%u\n", min_, max_);
    out << line;
}

} // namespace warmsched::workloads
