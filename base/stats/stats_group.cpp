// The stats registry; see stats_group.h.
#include "base/stats/stats_group.h"

#include <stdexcept>

namespace warmsched::stats {

const char* to_string(unit u) {
    switch (u) {
    case unit::count:
        return "Count";
    case unit::second:
        return "Second";
    case unit::microsecond:
        return "Microsecond";
    case unit::byte:
        return "Byte";
    case unit::ratio:
        return "Ratio";
    }
    return "Count";
}

group& group::child(const std::string& name) {
    for (auto& e : entries_)
        if (e.sub && e.sub->name_ == name) return *e.sub;
    entries_.push_back({nullptr, std::make_unique<group>(name)});
    return *entries_.back().sub;
}

void group::check_new(const std::string& name) const {
    for (const auto& e : entries_)
        if ((e.stat && e.stat->name == name) || (e.sub && e.sub->name_ == name))
            throw std::logic_error("stats: '" + name + "' added twice to group '" + name_ + "'"); // our bug
}

void group::add(const std::string& name, std::uint64_t value, unit u, std::string description) {
    check_new(name);
    entries_.push_back({std::make_unique<scalar>(scalar{name, value, u, std::move(description)}), nullptr});
}

void group::add(const std::string& name, double value, unit u, std::string description) {
    check_new(name);
    entries_.push_back({std::make_unique<scalar>(scalar{name, value, u, std::move(description)}), nullptr});
}

std::vector<group::named> group::flatten() const {
    std::vector<named> out;
    flatten_into("", out);
    return out;
}

void group::flatten_into(const std::string& prefix, std::vector<named>& out) const {
    for (const auto& e : entries_) {
        if (e.stat)
            out.push_back({prefix + e.stat->name, e.stat.get()});
        else
            e.sub->flatten_into(prefix + e.sub->name_ + ".", out);
    }
}

} // namespace warmsched::stats
