// Summary statistics of repeated runs (one sample per seed) as mmtests' compare-kernels prints them --
// arithmetic and harmonic mean, sample standard deviation (n-1), coefficient of variation, min, max --
// and Welch's two-sample t-test (unequal variances) for marking a difference significant. Left out:
// mmtests' other means (geometric, trimmed) and its per-metric "higher is better" direction.
#pragma once

#include <cstddef>
#include <vector>

namespace warmsched::sim {

struct sample_summary {
    std::size_t n = 0;
    double amean = 0, hmean = 0, stddev = 0, coeffvar = 0, min = 0, max = 0;
};

// Empty input gives n = 0 and zeros. stddev is the sample one (divisor n-1; 0 for one sample);
// coeffvar = 100 * stddev / amean (0 when amean is 0); hmean is 0 unless every value is positive.
sample_summary summarize(const std::vector<double>& values);

// Two-sided p-value of Welch's t-test that a and b have the same mean. NaN when it cannot be computed:
// fewer than two values in either sample, or both samples without any spread.
double welch_p_value(const std::vector<double>& a, const std::vector<double>& b);

} // namespace warmsched::sim
