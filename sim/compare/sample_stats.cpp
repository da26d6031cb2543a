// Summary statistics and Welch's t-test; see sample_stats.h.
#include "sim/compare/sample_stats.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace warmsched::sim {

sample_summary summarize(const std::vector<double>& v) {
    sample_summary s;
    s.n = v.size();
    if (v.empty()) return s;
    double sum = 0, inv = 0;
    bool positive = true;
    for (double x : v) {
        sum += x;
        positive = positive && x > 0;
        if (x > 0) inv += 1 / x;
    }
    s.amean = sum / static_cast<double>(s.n);
    s.hmean = positive ? static_cast<double>(s.n) / inv : 0;
    double sq = 0;
    for (double x : v) sq += (x - s.amean) * (x - s.amean);
    s.stddev = s.n > 1 ? std::sqrt(sq / static_cast<double>(s.n - 1)) : 0;
    s.coeffvar = s.amean != 0 ? 100 * s.stddev / std::fabs(s.amean) : 0;
    s.min = *std::min_element(v.begin(), v.end());
    s.max = *std::max_element(v.begin(), v.end());
    if (s.min == s.max) { // identical samples: no rounding noise in the mean, no spread
        s.amean = s.min;
        s.stddev = s.coeffvar = 0;
    }
    return s;
}

double welch_p_value(const std::vector<double>& a, const std::vector<double>& b) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (a.size() < 2 || b.size() < 2) return nan;
    const sample_summary sa = summarize(a), sb = summarize(b);
    const double va = sa.stddev * sa.stddev / static_cast<double>(sa.n);
    const double vb = sb.stddev * sb.stddev / static_cast<double>(sb.n);
    if (va + vb == 0) return nan;
    const double t = (sa.amean - sb.amean) / std::sqrt(va + vb);
    const double df = (va + vb) * (va + vb) /
                      (va * va / static_cast<double>(sa.n - 1) + vb * vb / static_cast<double>(sb.n - 1));
    const boost::math::students_t dist(df);
    return 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
}

} // namespace warmsched::sim
