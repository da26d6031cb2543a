// The stats of a measurement window; see stats_window.h.
#include "base/stats/stats_window.h"

#include <stdexcept>

namespace warmsched::stats {

namespace {
const group empty_group;

void window_of(group& out, const group& end, const group& start, const std::string& path) {
    for (const auto& e : end.entries()) {
        if (e.sub) {
            const group* before = start.find_child(e.sub->name());
            window_of(out.child(e.sub->name()), *e.sub, before ? *before : empty_group,
                      path + e.sub->name() + ".");
            continue;
        }
        const scalar& s = *e.stat;
        const scalar* before = start.find(s.name);
        if (before && (before->value.index() != s.value.index() || before->k != s.k))
            throw std::logic_error("stats window: '" + path + s.name + "' changed type"); // our bug
        if (s.k == kind::level || !before) {
            std::visit([&](auto v) { out.add(s.name, v, s.u, s.description, s.k); }, s.value);
        } else if (const auto* n = std::get_if<std::uint64_t>(&s.value)) {
            const std::uint64_t b = std::get<std::uint64_t>(before->value);
            if (b > *n)
                throw std::logic_error("stats window: the total '" + path + s.name + "' went down from " +
                                       std::to_string(b) + " to " + std::to_string(*n)); // our bug
            out.add(s.name, *n - b, s.u, s.description, s.k);
        } else {
            out.add(s.name, std::get<double>(s.value) - std::get<double>(before->value), s.u, s.description,
                    s.k);
        }
    }
}
} // namespace

void add_window(group& out, const group& end, const group& start) {
    window_of(out, end, start, "");
}

} // namespace warmsched::stats
