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

void group::add(const std::string& name, std::uint64_t value, unit u, std::string description, kind k) {
    check_new(name);
    entries_.push_back(
        {std::make_unique<scalar>(scalar{name, value, u, std::move(description), k}), nullptr});
}

void group::add(const std::string& name, double value, unit u, std::string description, kind k) {
    check_new(name);
    entries_.push_back(
        {std::make_unique<scalar>(scalar{name, value, u, std::move(description), k}), nullptr});
}

const group* group::find_child(const std::string& name) const {
    for (const auto& e : entries_)
        if (e.sub && e.sub->name_ == name) return e.sub.get();
    return nullptr;
}

const group& group::at(const std::string& name) const {
    if (const group* g = find_child(name)) return *g;
    throw std::logic_error("stats: no group '" + name + "' in '" + name_ + "'"); // our bug
}

const scalar* group::find(const std::string& stat) const {
    for (const auto& e : entries_)
        if (e.stat && e.stat->name == stat) return e.stat.get();
    return nullptr;
}

std::uint64_t group::count(const std::string& stat) const {
    const scalar* s = find(stat);
    if (!s || !std::holds_alternative<std::uint64_t>(s->value))
        throw std::logic_error("stats: no integer '" + stat + "' in '" + name_ + "'"); // our bug
    return std::get<std::uint64_t>(s->value);
}

double group::real(const std::string& stat) const {
    const scalar* s = find(stat);
    if (!s || !std::holds_alternative<double>(s->value))
        throw std::logic_error("stats: no real '" + stat + "' in '" + name_ + "'"); // our bug
    return std::get<double>(s->value);
}

std::vector<const group*> group::children() const {
    std::vector<const group*> out;
    for (const auto& e : entries_)
        if (e.sub) out.push_back(e.sub.get());
    return out;
}

std::vector<group::entry_view> group::entries() const {
    std::vector<entry_view> out;
    for (const auto& e : entries_) out.push_back({e.stat.get(), e.sub.get()});
    return out;
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
