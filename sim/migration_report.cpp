// Cost-of-migration report; see migration_report.h.
#include "sim/migration_report.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

namespace warmsched::sim {

using scheduler::migration_cause;
using workloads::migration_distance;
using workloads::miss_origin;
using workloads::miss_tally;

namespace {
constexpr int num_origins = static_cast<int>(miss_origin::count);

// 1234567 -> "1,234,567"
std::string grouped(std::uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
    return s;
}
std::string us(double ps, int decimals = 1) {
    char b[48];
    std::snprintf(b, sizeof b, "%.*f", decimals, ps / 1e6);
    const std::string s = b;
    const std::size_t dot = s.find('.');
    return grouped(std::stoull(s.substr(0, dot))) + s.substr(dot);
}
std::string
camel(const char* words) { // "periodic balance" -> "periodicBalance", "SMT sibling" -> "smtSibling"
    std::string s;
    bool up = false, first = true;
    for (const char* p = words; *p; ++p) {
        if (*p == ' ') {
            up = true;
            first = false;
            continue;
        }
        const char c = static_cast<char>(first ? std::tolower(static_cast<unsigned char>(*p)) : *p);
        s += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        up = false;
    }
    return s;
}
double per(models::ps_t total, std::uint64_t n) {
    return static_cast<double>(total) / static_cast<double>(n);
}
const char* origin_key(miss_origin o) {
    switch (o) {
    case miss_origin::own_l2:
        return "ownL2";
    case miss_origin::own_llc:
        return "ownL3";
    case miss_origin::other_llc:
        return "otherL3";
    default:
        return "dram";
    }
}
} // namespace

namespace {
// A miss tally as the registry holds it (kernel.migrationCost.*.refill, .unattributed, kernel.stacking).
struct tally_view {
    std::array<std::uint64_t, num_origins> misses{};
    std::uint64_t total = 0;
    models::ps_t stall = 0;
    explicit tally_view(const stats::group& g) : total(g.count("misses")) {
        for (int o = 0; o < num_origins; ++o)
            misses[o] = g.count(std::string("misses::") + origin_key(static_cast<miss_origin>(o)));
        stall = static_cast<models::ps_t>(std::llround(g.real("stallSeconds") * 1e12));
    }
};
std::string origins(const tally_view& t) {
    std::string s;
    for (int o = 0; o < num_origins; ++o) s += (o ? " / " : "") + grouped(t.misses[o]);
    return s;
}
// The report's classes in order (cause, then distance), the empty ones left out (the registry has only
// the others): f(cause, distance, group of the class).
template <class F> void for_each_class(const stats::group& cost, F&& f) {
    for (unsigned w = 0; w < workloads::migration_cost::num_causes; ++w) {
        const auto why = static_cast<migration_cause>(w);
        const stats::group* by_cause = cost.find_child(camel(scheduler::to_string(why)));
        if (!by_cause) continue;
        for (unsigned d = 0; d < workloads::migration_cost::num_distances; ++d) {
            const auto where = static_cast<migration_distance>(d);
            if (const stats::group* g = by_cause->find_child(camel(workloads::to_string(where))))
                f(why, where, *g);
        }
    }
}
const char* evictor_key(int p) {
    static const char* keys[] = {"sameCpu", "smtSibling", "otherCore"};
    return keys[p];
}
} // namespace

void print_migration_report(std::ostream& out, const stats::group& kernel) {
    const stats::group& cost = kernel.at("migrationCost");
    const std::uint64_t sampling = cost.count("setSampling");
    char b[320];
    out << "\n--- cost of migrations (refill: lines the task had in its previous CPU's caches, fetched again "
           "after it moved)\n";
    if (sampling > 1)
        out << "(set sampling 1 in " << sampling << ": only simulated lines are tracked; the whole "
            << "machine misses about " << sampling << " times these counts; most kernel lines are not "
            << "simulated, so the scheduler's choices differ from an exact run: docs/performance.md)\n";
    std::snprintf(b, sizeof b, "%-17s %-12s %9s %14s  %-36s %12s %17s\n", "cause", "distance", "count",
                  "refill misses", "(own L2 / own L3 / other L3 / DRAM)", "stall us", "per migration us");
    out << b;
    auto row = [&](const char* cause, const char* distance, std::uint64_t n, const tally_view& t) {
        std::snprintf(b, sizeof b, "%-17s %-12s %9s %14s  %-36s %12s %17s\n", cause, distance,
                      grouped(n).c_str(), grouped(t.total).c_str(), origins(t).c_str(), us(t.stall).c_str(),
                      n ? us(per(t.stall, n), 3).c_str() : "-");
        out << b;
    };
    for_each_class(cost, [&](migration_cause why, migration_distance where, const stats::group& g) {
        row(scheduler::to_string(why), workloads::to_string(where), g.count("migrations"),
            tally_view(g.at("refill")));
    });
    row("all", "", cost.count("migrations"), tally_view(cost.at("refill")));
    const tally_view u(cost.at("unattributed"));
    if (u.total) {
        std::snprintf(
            b, sizeof b,
            "not attributed: %s misses (stall %s us) on lines touched before an earlier migration\n",
            grouped(u.total).c_str(), us(u.stall).c_str());
        out << b;
    }

    const stats::group& stacking = kernel.at("stacking");
    const tally_view s(stacking);
    out << "--- cost of stacking (lines a co-scheduled task evicted from the task's core or LLC, fetched "
           "again)\n";
    std::snprintf(b, sizeof b, "misses %s (own L3 %s, other L3 %s, DRAM %s), stall %s us\n",
                  grouped(s.total).c_str(), grouped(s.misses[static_cast<int>(miss_origin::own_llc)]).c_str(),
                  grouped(s.misses[static_cast<int>(miss_origin::other_llc)]).c_str(),
                  grouped(s.misses[static_cast<int>(miss_origin::memory)]).c_str(), us(s.stall).c_str());
    out << b;
    out << "evicted by a task on";
    for (int p = 0; p < static_cast<int>(workloads::evictor_place::count); ++p)
        out << (p ? ", " : " ") << workloads::to_string(static_cast<workloads::evictor_place>(p)) << " "
            << grouped(stacking.count(std::string("evictedBy::") + evictor_key(p)));
    out << "\n(stall: the misses' latencies summed; misses of one compute chunk overlap, so less time is "
           "lost)\n";
}

void add_migration_stats(stats::group& kernel, const workloads::migration_cost& c) {
    using stats::unit;
    auto tally = [&](stats::group& g, const miss_tally& t, const char* what) {
        g.add("misses", t.total(), unit::count, what);
        for (int o = 0; o < num_origins; ++o)
            g.add(std::string("misses::") + origin_key(static_cast<miss_origin>(o)), t.misses[o], unit::count,
                  "of them served by this level");
        g.add("stallSeconds", static_cast<double>(t.stall()) / 1e12, unit::second, "their latencies summed");
    };
    stats::group& cost = kernel.child("migrationCost");
    std::uint64_t total_n = 0;
    miss_tally total;
    for (unsigned w = 0; w < workloads::migration_cost::num_causes; ++w)
        for (unsigned d = 0; d < workloads::migration_cost::num_distances; ++d) {
            const auto why = static_cast<migration_cause>(w);
            const auto dist = static_cast<migration_distance>(d);
            const auto& k = c.at(why, dist);
            if (k.migrations == 0 && k.refill.total() == 0) continue;
            total_n += k.migrations;
            total += k.refill;
            stats::group& g =
                cost.child(camel(scheduler::to_string(why))).child(camel(workloads::to_string(dist)));
            g.add("migrations", k.migrations, unit::count, "migrations of this cause and distance");
            tally(g.child("refill"), k.refill, "lines the task had before it moved, fetched again");
        }
    cost.add("migrations", total_n, unit::count, "migrations, every class");
    tally(cost.child("refill"), total, "refill misses, every class");
    tally(cost.child("unattributed"), c.unattributed(),
          "misses on lines touched before an earlier migration");
    stats::group& stacking = kernel.child("stacking");
    tally(stacking, c.stacking(), "lines a co-scheduled task evicted, fetched again");
    for (int p = 0; p < static_cast<int>(workloads::evictor_place::count); ++p) {
        const auto place = static_cast<workloads::evictor_place>(p);
        stacking.add(std::string("evictedBy::") + evictor_key(p), c.stacking_by(place).total(), unit::count,
                     "stacking misses by where the evicting task ran");
    }
    cost.add("setSampling", std::uint64_t{c.set_sampling()}, unit::count,
             "1 in N cache sets simulated: the counts cover those sets", stats::kind::level);
    cost.add("trackerBytes", static_cast<std::uint64_t>(c.memory_bytes()), unit::byte,
             "memory of the line-ownership records", stats::kind::level);
}

namespace {
nlohmann::ordered_json tally_json(const tally_view& t) {
    nlohmann::ordered_json by_origin = nlohmann::ordered_json::object();
    for (int o = 0; o < num_origins; ++o)
        by_origin[workloads::to_string(static_cast<miss_origin>(o))] = t.misses[o];
    return {{"misses", t.total}, {"by_origin", by_origin}, {"stall_us", static_cast<double>(t.stall) / 1e6}};
}
} // namespace

void write_migration_report_json(std::ostream& out, const stats::group& kernel,
                                 const nlohmann::ordered_json& run) {
    using json = nlohmann::ordered_json;
    const stats::group& cost = kernel.at("migrationCost");
    auto with_per = [](json row, std::uint64_t n, const tally_view& t) {
        row["stall_per_migration_us"] = n ? json(per(t.stall, n) / 1e6) : json(nullptr);
        return row;
    };
    json classes = json::array();
    for_each_class(cost, [&](migration_cause why, migration_distance where, const stats::group& g) {
        const tally_view t(g.at("refill"));
        classes.push_back(with_per({{"cause", scheduler::to_string(why)},
                                    {"distance", workloads::to_string(where)},
                                    {"migrations", g.count("migrations")},
                                    {"refill", tally_json(t)}},
                                   g.count("migrations"), t));
    });
    const tally_view all(cost.at("refill"));
    json evicted_by = json::object();
    for (int p = 0; p < static_cast<int>(workloads::evictor_place::count); ++p)
        evicted_by[workloads::to_string(static_cast<workloads::evictor_place>(p))] =
            kernel.at("stacking").count(std::string("evictedBy::") + evictor_key(p));
    json stacking = tally_json(tally_view(kernel.at("stacking")));
    stacking["evicted_by"] = evicted_by;
    json doc = json::object();
    if (!run.is_null()) doc["run"] = run;
    doc["set_sampling"] = cost.count("setSampling");
    doc["classes"] = classes;
    doc["all"] = with_per({{"migrations", cost.count("migrations")}, {"refill", tally_json(all)}},
                          cost.count("migrations"), all);
    doc["unattributed"] = tally_json(tally_view(cost.at("unattributed")));
    doc["stacking"] = stacking;
    out << doc.dump(2) << "\n";
}

} // namespace warmsched::sim
