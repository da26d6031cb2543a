// VCD and GTKWave translate filter; see vcd_writer.h.
#include "sim/outputs/vcd_writer.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warmsched::sim {
namespace {
constexpr int signals_per_cpu = 5; // pid, nr_running, l1d_misses, l2_misses, l3_misses
const char* signal_names[signals_per_cpu] = {"pid", "nr_running", "l1d_misses", "l2_misses", "l3_misses"};

// VCD identifier codes: printable ASCII '!'..'~' as base-94 digits.
std::string code(unsigned i) {
    std::string s;
    do {
        s += static_cast<char>('!' + i % 94);
        i /= 94;
    } while (i);
    return s;
}

std::string binary(std::uint64_t v) {
    if (v > 0xffffffffull) v = 0xffffffffull; // 32-bit wires
    std::string s;
    do {
        s += static_cast<char>('0' + (v & 1));
        v >>= 1;
    } while (v);
    std::reverse(s.begin(), s.end());
    return s;
}

struct change {
    scheduler::nsec t;
    std::uint64_t seq;
    unsigned signal; // cpu * signals_per_cpu + which
    std::uint64_t value;
};
} // namespace

void write_vcd(std::ostream& out, const sched_timeline& t) {
    const unsigned n = t.num_cpus();
    const scheduler::nsec origin = t.start();
    std::vector<change> changes;
    std::uint64_t seq = 0;
    for (const auto& s : t.slices()) {
        changes.push_back({s.start, seq++, s.cpu * signals_per_cpu, static_cast<std::uint64_t>(s.pid)});
        changes.push_back({s.end, seq++, s.cpu * signals_per_cpu, 0});
    }
    for (const auto& l : t.levels())
        changes.push_back({l.t, seq++, l.cpu * signals_per_cpu + 1, l.nr_running});
    for (const auto& m : t.samples()) {
        changes.push_back({m.t, seq++, m.cpu * signals_per_cpu + 2, m.l1d});
        changes.push_back({m.t, seq++, m.cpu * signals_per_cpu + 3, m.l2});
        changes.push_back({m.t, seq++, m.cpu * signals_per_cpu + 4, m.l3});
    }
    // A slice's end and the next one's start share a time: the start (later in seq) wins.
    std::stable_sort(changes.begin(), changes.end(),
                     [](const change& a, const change& b) { return a.t != b.t ? a.t < b.t : a.seq < b.seq; });

    out << "$date\n  warmsched run\n$end\n$version\n  warmsched sched timeline\n$end\n$timescale 1 ns $end\n"
        << "$scope module system $end\n";
    for (unsigned c = 0; c < n; ++c) {
        out << "$scope module cpu" << c << " $end\n";
        for (int k = 0; k < signals_per_cpu; ++k)
            out << "$var wire 32 " << code(c * signals_per_cpu + k) << " " << signal_names[k]
                << " [31:0] $end\n";
        out << "$upscope $end\n";
    }
    out << "$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n";
    std::vector<std::uint64_t> current(n * signals_per_cpu, 0);
    for (unsigned i = 0; i < n * signals_per_cpu; ++i) out << "b0 " << code(i) << "\n";
    out << "$end\n";
    // Collapse each time's changes to the last value per signal, and leave out non-changes.
    std::size_t i = 0;
    scheduler::nsec stamp = 0;
    while (i < changes.size()) {
        const scheduler::nsec time = changes[i].t;
        std::map<unsigned, std::uint64_t> last;
        for (; i < changes.size() && changes[i].t == time; ++i) last[changes[i].signal] = changes[i].value;
        bool stamped = false;
        for (const auto& [sig, v] : last) {
            if (current[sig] == v) continue;
            current[sig] = v;
            if (!stamped && time > origin) {
                out << "#" << (time - origin) << "\n";
                stamp = time;
            }
            stamped = true;
            out << "b" << binary(v) << " " << code(sig) << "\n";
        }
    }
    if (t.end() > stamp && t.end() > origin) out << "#" << (t.end() - origin) << "\n";
}

void write_gtkwave_translate_filter(std::ostream& out, const sched_timeline& t) {
    out << "# GTKWave Translate Filter File for trace.vcd's system.cpu<N>.pid signals (Data Format: "
           "Decimal)\n";
    for (const auto& [pid, comm] : t.names())
        out << pid << " " << (pid == 0 ? std::string("idle") : comm + "-" + std::to_string(pid)) << "\n";
}

} // namespace warmsched::sim
