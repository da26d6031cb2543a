// Probe suite: settings, sequencing and reports; see probe_suite.h.
#include "sim/probe_suite.h"

#include "workloads/probes/probe_program.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace warmsched::sim {
namespace {
using models::mem_source;

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

const char* main_source(const std::array<std::uint64_t, static_cast<int>(mem_source::count)>& by) {
    auto it = std::max_element(by.begin(), by.end());
    return models::to_string(static_cast<mem_source>(it - by.begin()));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string source_header() {
    std::string s;
    for (int i = 0; i < static_cast<int>(mem_source::count); ++i)
        s += std::string(",") + models::to_string(static_cast<mem_source>(i));
    return s;
}

template <class A> std::string source_values(const A& a) {
    std::string s;
    for (auto v : a) s += "," + std::to_string(v);
    return s;
}

} // namespace

std::vector<unsigned> parse_cpulist(const std::string& text, unsigned num_cpus, const std::string& what) {
    std::vector<unsigned> cpus;
    std::stringstream ss(text);
    for (std::string part; std::getline(ss, part, ',');) {
        unsigned a = 0, b = 0;
        char dash = 0;
        std::stringstream ps(part);
        bool ok = static_cast<bool>(ps >> a);
        if (ok && ps >> dash)
            ok = dash == '-' && static_cast<bool>(ps >> b);
        else
            b = a;
        if (!ok || b < a || b >= num_cpus)
            throw config::config_error(config::origin{"<command line>", 0, 0}, what,
                                       "'" + text + "' is not a CPU list of this machine (CPUs 0-" +
                                           std::to_string(num_cpus - 1) + ")");
        for (unsigned c = a; c <= b; ++c) cpus.push_back(c);
    }
    if (cpus.empty())
        throw config::config_error(config::origin{"<command line>", 0, 0}, what, "empty CPU list");
    return cpus;
}

std::vector<std::pair<unsigned, unsigned>> parse_pairs(const std::string& text, unsigned num_cpus) {
    std::vector<std::pair<unsigned, unsigned>> pairs;
    std::stringstream ss(text);
    for (std::string part; std::getline(ss, part, ',');) {
        const auto colon = part.find(':');
        if (colon == std::string::npos)
            throw config::config_error(config::origin{"<command line>", 0, 0}, "pairs",
                                       "expected CPU pairs like 0:1,0:16, got '" + part + "'");
        const auto a = parse_cpulist(part.substr(0, colon), num_cpus, "pairs");
        const auto b = parse_cpulist(part.substr(colon + 1), num_cpus, "pairs");
        if (a.size() != 1 || b.size() != 1 || a[0] == b[0])
            throw config::config_error(config::origin{"<command line>", 0, 0}, "pairs",
                                       "'" + part + "' must name two different CPUs");
        pairs.emplace_back(a[0], b[0]);
    }
    return pairs;
}

std::uint64_t max_probe_bytes(const platform::platform_params& p) {
    std::uint64_t caches = 0;
    for (const auto& c : p.caches) caches += c.size;
    return std::max<std::uint64_t>(1ull << 30, 4 * caches);
}

std::string probe_size_problem(const platform::platform_params& p, std::uint64_t bytes) {
    const std::uint64_t max = max_probe_bytes(p);
    if (bytes <= max) return {};
    return config::format_size(bytes) + " is more than a probe takes on " + p.name + ": at most " +
           config::format_size(max) +
           ", the larger of 1GiB and 4 x the caches on one CPU's path (past that every access is served by "
           "memory; the probe simulates every line and keeps its order in host memory)";
}

probe_suite_settings read_probe_settings(config::config_reader& r, unsigned num_cpus,
                                         const platform::platform_params* platform) {
    auto check_size = [&](config::config_reader& c, const std::string& key, std::uint64_t bytes) {
        if (platform)
            if (const std::string why = probe_size_problem(*platform, bytes); !why.empty()) c.error(key, why);
    };
    probe_suite_settings s;
    const long long last_cpu = static_cast<long long>(num_cpus) - 1;
    if (r.has("latency")) {
        auto c = r.child("latency");
        latency_settings l;
        l.cpu = static_cast<unsigned>(c.integer("cpu", 0, 0, last_cpu));
        l.min_footprint = c.size("min_footprint", l.min_footprint, 64);
        l.max_footprint = c.size("max_footprint", l.max_footprint, 64);
        l.max_loads = static_cast<std::uint64_t>(
            c.integer("max_loads", static_cast<long long>(l.max_loads), 1, 1ll << 32));
        if (l.max_footprint < l.min_footprint)
            c.error("max_footprint", "must not be smaller than min_footprint");
        check_size(c, "max_footprint", l.max_footprint);
        c.finish();
        s.latency = l;
    }
    if (r.has("c2c")) {
        auto c = r.child("c2c");
        c2c_settings k;
        k.sample = static_cast<unsigned>(c.integer("sample", 0, 0, 1 << 24));
        k.round_trips = static_cast<unsigned>(c.integer("round_trips", k.round_trips, 1, 1 << 20));
        k.summary_only = c.boolean("summary_only", false);
        c.finish();
        s.c2c = k;
    }
    if (r.has("bandwidth")) {
        auto c = r.child("bandwidth");
        bandwidth_settings b;
        b.bytes_per_cpu = c.size("bytes_per_cpu", b.bytes_per_cpu, 4096);
        c.finish();
        s.bandwidth = b;
    }
    if (r.has("migrate")) {
        auto c = r.child("migrate");
        migrate_settings m;
        m.working_set = c.size("working_set", m.working_set, 64);
        check_size(c, "working_set", m.working_set);
        m.write_fraction = c.number("write_fraction", m.write_fraction, 0, 1);
        c.finish();
        s.migrate = m;
    }
    r.finish();
    return s;
}

probe_suite::probe_suite(models::machine& m, const probe_suite_settings& s) : m_(m), s_(s) {
    const auto& t = m.topo();
    if (s.latency) {
        workloads::pointer_chase_options o;
        o.cpu = s.latency->cpu;
        o.footprints = workloads::power_of_two_footprints(s.latency->min_footprint, s.latency->max_footprint);
        o.max_loads = s.latency->max_loads;
        o.seed = s.seed;
        latency_.emplace(m, o);
    }
    if (s.c2c) {
        workloads::line_bounce_options o;
        o.pairs = s.c2c->pairs.empty() ? workloads::cpu_pairs(t, s.c2c->sample, s.seed) : s.c2c->pairs;
        o.round_trips = s.c2c->round_trips;
        c2c_.emplace(m, o);
    }
    if (s.bandwidth) {
        workloads::stream_bandwidth_options o;
        o.bytes_per_cpu = s.bandwidth->bytes_per_cpu;
        if (s.bandwidth->cpus.empty())
            o.sets = workloads::default_stream_sets(t);
        else
            o.sets = {{std::to_string(s.bandwidth->cpus.size()) + " CPUs", s.bandwidth->cpus}};
        bandwidth_.emplace(m, o);
    }
    if (s.migrate) {
        workloads::migrate_refill_options o;
        o.working_set = s.migrate->working_set;
        o.write_fraction = s.migrate->write_fraction;
        o.seed = s.seed;
        if (s.migrate->from && s.migrate->to)
            o.moves = {{*s.migrate->from, *s.migrate->to}};
        else
            o.moves = workloads::default_moves(t);
        migrate_.emplace(m, o);
    }
}

void probe_suite::start() {
    workloads::spawn_program("probes", [this] {
        if (latency_) latency_->run();
        if (c2c_) c2c_->run();
        if (bandwidth_) bandwidth_->run();
        if (migrate_) migrate_->run();
    });
}

void probe_suite::report(std::ostream& out) const {
    const std::string& name = m_.platform().name;
    if (latency_) {
        out << "# latency: pointer chase on CPU " << s_.latency->cpu << " (" << name << ")\n";
        out << "  footprint          MB    ns/load  served mostly by\n";
        for (const auto& p : latency_->results()) {
            char buf[128];
            std::snprintf(
                buf, sizeof buf, "  %-10s %10.5f %10.2f  %s\n", config::format_size(p.footprint).c_str(),
                static_cast<double>(p.footprint) / (1 << 20), p.ns_per_load, main_source(p.by_source));
            out << buf;
        }
        out << "\n";
    }
    if (c2c_) {
        out << "# c2c: one-way cache-line transfer latency, half of a CAS round trip (" << name << ")\n";
        if (!s_.c2c->summary_only) {
            out << "  cpu_a cpu_b  relation          ns\n";
            for (const auto& r : c2c_->results()) {
                char buf[128];
                std::snprintf(buf, sizeof buf, "  %5u %5u  %-14s %7.1f\n", r.a, r.b, r.relation.c_str(),
                              r.one_way_ns);
                out << buf;
            }
        }
        std::map<std::string, std::vector<double>> by;
        std::vector<std::string> order;
        for (const auto& r : c2c_->results()) {
            if (!by.count(r.relation)) order.push_back(r.relation);
            by[r.relation].push_back(r.one_way_ns);
        }
        std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
            return median(by[a]) < median(by[b]);
        });
        out << "  summary by relation:\n  relation            pairs      min   median     mean      max  "
               "(ns)\n";
        for (const auto& rel : order) {
            const auto& v = by[rel];
            double sum = 0;
            for (double x : v) sum += x;
            char buf[160];
            std::snprintf(buf, sizeof buf, "  %-18s %6zu %8.1f %8.1f %8.1f %8.1f\n", rel.c_str(), v.size(),
                          *std::min_element(v.begin(), v.end()), median(v), sum / v.size(),
                          *std::max_element(v.begin(), v.end()));
            out << buf;
        }
        out << "\n";
    }
    if (bandwidth_) {
        out << "# bandwidth: streaming reads, " << config::format_size(s_.bandwidth->bytes_per_cpu)
            << " per CPU (" << name << ")\n  cpus  GB/s     set\n";
        for (const auto& r : bandwidth_->results())
            out << "  " << r.cpus << "  " << fmt("%7.1f", r.gb_per_s) << "  " << r.label << "\n";
        out << "\n";
    }
    if (migrate_) {
        out << "# migrate: refill after moving a warm " << config::format_size(s_.migrate->working_set)
            << " working set (" << name << ")\n";
        out << "  from   to  relation        warm_us  moved_us  extra_us  lines refetched from\n";
        for (const auto& r : migrate_->results()) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "  %4u %4u  %-14s %8.2f %9.2f %9.2f  ", r.from, r.to,
                          r.relation.c_str(), r.warm_sweep_us, r.moved_sweep_us, r.extra_us);
            out << buf;
            bool first = true;
            for (int s = 0; s < static_cast<int>(mem_source::count); ++s)
                if (r.lines_from[s] && s != static_cast<int>(mem_source::l1)) {
                    out << (first ? "" : " ") << models::to_string(static_cast<mem_source>(s)) << "="
                        << r.lines_from[s];
                    first = false;
                }
            out << "\n";
        }
        out << "\n";
    }
}

bool probe_suite::report_csv(const std::string& probe, std::ostream& out) const {
    if (probe == "latency" && latency_) {
        out << "footprint_bytes,ns_per_load,loads" << source_header() << "\n";
        for (const auto& p : latency_->results())
            out << p.footprint << "," << fmt("%.4f", p.ns_per_load) << "," << p.loads
                << source_values(p.by_source) << "\n";
        return true;
    }
    if (probe == "c2c" && c2c_) {
        out << "cpu_a,cpu_b,relation,one_way_ns\n";
        for (const auto& r : c2c_->results())
            out << r.a << "," << r.b << "," << r.relation << "," << fmt("%.3f", r.one_way_ns) << "\n";
        return true;
    }
    if (probe == "bandwidth" && bandwidth_) {
        out << "set,cpus,gb_per_s\n";
        for (const auto& r : bandwidth_->results())
            out << r.label << "," << r.cpus << "," << fmt("%.3f", r.gb_per_s) << "\n";
        return true;
    }
    if (probe == "migrate" && migrate_) {
        out << "from,to,relation,warm_sweep_us,moved_sweep_us,extra_us" << source_header() << "\n";
        for (const auto& r : migrate_->results())
            out << r.from << "," << r.to << "," << r.relation << "," << fmt("%.3f", r.warm_sweep_us) << ","
                << fmt("%.3f", r.moved_sweep_us) << "," << fmt("%.3f", r.extra_us)
                << source_values(r.lines_from) << "\n";
        return true;
    }
    return false;
}

} // namespace warmsched::sim
