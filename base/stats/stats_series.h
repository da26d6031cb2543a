// A time series of the stats registry, as gem5's periodic stats dumps give it (`stats_period:`): the run
// stops every period, the registry is filled, and each row holds the period's stats by stats_window's
// rule (a total is the period's increase, a level its value at the period's end, a stat that appeared
// within the period counts from 0). Written as one CSV table, stats-series.csv: `start_s,end_s`, then one
// column per stat in the order the stats first appeared, named as in stats.txt; one row per period, the
// last one ending with the run. A cell is empty where a level did not exist; a total that did not
// exist counted nothing (0). Integers are exact; real values at full precision (as stats.json).
// Left out: units and descriptions (stats.txt has them under the same names).
#pragma once

#include "base/stats/stats_group.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace warmsched::stats {

class series {
public:
    // The row of the period [start_s, end_s]: its stats (a window's registry, stats_window.h).
    void add_row(double start_s, double end_s, const group& period);
    std::size_t rows() const { return rows_.size(); }
    void write_csv(std::ostream& out) const;

private:
    struct column {
        std::string name;
        kind k;
    };
    struct row {
        double start_s, end_s;
        std::vector<std::optional<std::variant<std::uint64_t, double>>> values; // by column
    };
    std::vector<column> columns_;
    std::unordered_map<std::string, std::size_t> column_of_;
    std::vector<row> rows_;
};

} // namespace warmsched::stats
