// Host-side work counts; see host_visits.h.
#include "models/common/host_visits.h"

#include <cstdio>

namespace warmsched::models {

std::string host_visits::per_access() const {
    const double n = accesses ? static_cast<double>(accesses) : 1.0;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "per simulated access: %.2f tag sets, %.2f line records, %.2f link buckets, %.2f observer "
                  "calls; %.2f left L1",
                  static_cast<double>(tag_sets) / n, static_cast<double>(line_records) / n,
                  static_cast<double>(link_buckets) / n, static_cast<double>(observer_calls) / n,
                  static_cast<double>(l1_misses) / n);
    return buf;
}

} // namespace warmsched::models
