// The stats registry, as gem5's Stats::Group: every model and scheduler part puts its counters in a named
// group, groups nest as the module tree does (system.core3.l2, kernel.domain.MC), and one tree feeds
// every writer (stats.txt, stats.json, compare). A stat is a name, a value, a unit and a description.
// Integers stay integers (an exact uint64, never a double); real values are doubles.
//
// Left out from gem5: stats are filled once, when the run ends (a snapshot of the models' counters, not
// live references), and there are no vector, distribution or formula types (a vector's elements are
// scalars named `accesses::l1`, as gem5's text output names them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace warmsched::stats {

enum class unit { count, second, microsecond, byte, ratio };
const char* to_string(unit u); // gem5's unit names: "Count", "Second", "Microsecond", "Byte", "Ratio"

// What a stat's value is, for a measurement window (stats_window.h): a total counts or sums since the
// run began (accesses, seconds of CPU time), so the window's value is end minus start; a level is a
// state at one moment (a setting, the size of a structure), so the window's value is the one at its end.
enum class kind { total, level };

struct scalar {
    std::string name; // within its group: "hits", "accesses::l1"
    std::variant<std::uint64_t, double> value;
    unit u = unit::count;
    std::string description;
    kind k = kind::total;
};

class group {
public:
    explicit group(std::string name = {}) : name_(std::move(name)) {}
    group(const group&) = delete;
    group& operator=(const group&) = delete;

    const std::string& name() const { return name_; }
    // The subgroup `name`, created at the end of this group's entries the first time it is asked for.
    group& child(const std::string& name);
    void add(const std::string& name, std::uint64_t value, unit u, std::string description,
             kind k = kind::total);
    void add(const std::string& name, double value, unit u, std::string description, kind k = kind::total);

    // Every stat below this group, depth first in the order added, with its full dotted name (this
    // group's own name is not part of it: the root of a run is nameless).
    struct named {
        std::string full_name;
        const scalar* stat;
    };
    std::vector<named> flatten() const;

    // Lookups, for the writers that print a view of the registry (the run summary, the migration and
    // cgroup reports): one level at a time, `kernel` then `migrationCost`. A stat or group that is not
    // there, or an integer read as a real, is our bug (std::logic_error); find_* answer nullptr instead.
    const group* find_child(const std::string& name) const;
    const group& at(const std::string& name) const;
    const scalar* find(const std::string& stat) const;
    std::uint64_t count(const std::string& stat) const; // an integer stat
    double real(const std::string& stat) const;         // a real stat
    // The subgroups in the order they were added.
    std::vector<const group*> children() const;
    // Every entry in the order added: a stat or a subgroup (the other one nullptr).
    struct entry_view {
        const scalar* stat;
        const group* sub;
    };
    std::vector<entry_view> entries() const;

private:
    void flatten_into(const std::string& prefix, std::vector<named>& out) const;
    void check_new(const std::string& name) const; // a name added twice is our bug (std::logic_error)

    struct entry { // one of the two
        std::unique_ptr<scalar> stat;
        std::unique_ptr<group> sub;
    };
    std::string name_;
    std::vector<entry> entries_;
};

} // namespace warmsched::stats
