// trace.perfetto-trace read back with a decoder generated from the same schema
// (sim/outputs/perfetto/perfetto_trace.proto) and with protoc itself: it holds trace.txt's events one
// for one with the same fields (sched_switch, sched_waking, sched_wakeup(_new), sched_migrate_task,
// sched_process_fork/exit), a task_newtask per fork and a sched_process_free per exit, whose counts
// match the run's own counters in stats.json; each CPU's bundles are in time order; the counter tracks
// exist for every CPU and carry trace.txt's and trace.json's values; every thread is named (the process
// tree or its task_newtask) and grouped by its tgid; the window bounds everything; the same seed gives
// the same bytes, whichever other formats the run writes.
#include <catch2/catch.hpp>

#include "sim/outputs/perfetto/perfetto_trace.pb.h"
#include "support/cli_runner.h"
#include "support/file_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
namespace pb = perfetto::protos;
using warmsched::test::file_text;
using warmsched::test::run_cli;

namespace {
constexpr std::uint64_t clone_thread = 0x10000;

fs::path run_traced(const std::string& name, const std::string& options, const std::string& workload) {
    const fs::path dir = fs::temp_directory_path() / ("warmsched-perfetto-" + name);
    fs::remove_all(dir);
    const auto r =
        run_cli("run --platform zen3-5950x " + options + " --out " + dir.string() + " -- " + workload);
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    return dir;
}

pb::Trace read_trace(const fs::path& dir) {
    pb::Trace t;
    REQUIRE(t.ParseFromString(file_text(dir / "trace.perfetto-trace")));
    return t;
}

std::map<std::string, double> stats_of(const fs::path& dir) {
    std::map<std::string, double> out;
    const auto j = nlohmann::json::parse(file_text(dir / "stats.json"));
    for (const auto& block : j.at("simulation"))
        for (const auto& [name, stat] : block.items())
            if (!stat.at("value").is_null()) out[name] = stat.at("value").get<double>();
    return out;
}

// sched_switch's prev_state bits as trace.txt prints them (kernel 4.14+ encoding).
std::string state_text(std::int64_t bits) {
    if (bits == 0) return "R";
    if (bits == 0x100) return "R+";
    if (bits == 0x1) return "S";
    if (bits == 0x10) return "X";
    FAIL("unexpected prev_state " << bits);
    return "";
}

// An event as trace.txt would print it, without the comm and flags columns:
// "<ts ns> [<cpu>] <pid> <event>: <payload>". Empty for the events trace.txt does not have.
std::string as_text(const pb::FtraceEvent& e, unsigned cpu, std::string& name) {
    char b[400];
    std::string payload;
    if (e.has_sched_switch()) {
        const auto& s = e.sched_switch();
        name = "sched_switch";
        std::snprintf(
            b, sizeof b,
            "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=%d",
            s.prev_comm().c_str(), s.prev_pid(), s.prev_prio(), state_text(s.prev_state()).c_str(),
            s.next_comm().c_str(), s.next_pid(), s.next_prio());
    } else if (e.has_sched_waking() || e.has_sched_wakeup() || e.has_sched_wakeup_new()) {
        // The three messages have the same fields.
        auto wake = [&](const char* event, const auto& w) {
            name = event;
            std::snprintf(b, sizeof b, "comm=%s pid=%d prio=%d target_cpu=%03d", w.comm().c_str(), w.pid(),
                          w.prio(), w.target_cpu());
        };
        if (e.has_sched_waking())
            wake("sched_waking", e.sched_waking());
        else if (e.has_sched_wakeup())
            wake("sched_wakeup", e.sched_wakeup());
        else
            wake("sched_wakeup_new", e.sched_wakeup_new());
    } else if (e.has_sched_migrate_task()) {
        const auto& m = e.sched_migrate_task();
        name = "sched_migrate_task";
        std::snprintf(b, sizeof b, "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", m.comm().c_str(),
                      m.pid(), m.prio(), m.orig_cpu(), m.dest_cpu());
    } else if (e.has_sched_process_fork()) {
        const auto& f = e.sched_process_fork();
        name = "sched_process_fork";
        std::snprintf(b, sizeof b, "comm=%s pid=%d child_comm=%s child_pid=%d", f.parent_comm().c_str(),
                      f.parent_pid(), f.child_comm().c_str(), f.child_pid());
    } else if (e.has_sched_process_exit()) {
        const auto& x = e.sched_process_exit();
        name = "sched_process_exit";
        std::snprintf(b, sizeof b, "comm=%s pid=%d prio=%d", x.comm().c_str(), x.pid(), x.prio());
    } else {
        name = e.has_task_newtask()         ? "task_newtask"
               : e.has_sched_process_free() ? "sched_process_free"
                                            : "?";
        return "";
    }
    payload = b;
    return std::to_string(e.timestamp()) + " [" + std::to_string(cpu) + "] " + std::to_string(e.pid()) + " " +
           name + ": " + payload;
}

// What a Perfetto trace holds, decoded.
struct decoded {
    std::vector<std::string> text;                       // the events trace.txt also has, as as_text
    std::map<std::string, unsigned> count;               // events by name
    std::vector<const pb::FtraceEvent*> newtasks;        // task_newtask
    std::vector<const pb::FtraceEvent*> exits;           // sched_process_exit
    std::set<int> switched_in;                           // next_pid of every sched_switch (0 left out)
    std::uint64_t first_ts = ~0ull, last_ts = 0;         // of the ftrace events and counter values
    std::map<std::uint64_t, std::string> counter_tracks; // uuid -> name
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::int64_t>>>
        counters; // name -> (ts, value)
    const pb::SystemInfo* system = nullptr;
    const pb::TracePacket* tree = nullptr;
};

decoded decode(const pb::Trace& trace, unsigned ncpus) {
    decoded d;
    std::map<unsigned, std::uint64_t> cpu_last; // per CPU: the last timestamp of its previous bundle
    auto span = [&](std::uint64_t ts) {
        d.first_ts = std::min(d.first_ts, ts);
        d.last_ts = std::max(d.last_ts, ts);
    };
    for (const auto& p : trace.packet()) {
        if (p.has_system_info()) d.system = &p.system_info();
        if (p.has_process_tree()) d.tree = &p;
        if (p.has_track_descriptor() && p.track_descriptor().has_counter())
            d.counter_tracks[p.track_descriptor().uuid()] = p.track_descriptor().name();
        if (p.has_track_event()) {
            const auto& e = p.track_event();
            CHECK(e.type() == pb::TrackEvent::TYPE_COUNTER);
            INFO("track " << e.track_uuid());
            REQUIRE(d.counter_tracks.count(e.track_uuid()) == 1); // declared before its first value
            d.counters[d.counter_tracks[e.track_uuid()]].emplace_back(p.timestamp(), e.counter_value());
            CHECK(p.trusted_packet_sequence_id() == 2);
            span(p.timestamp());
        }
        if (!p.has_ftrace_events()) continue;
        CHECK(p.trusted_packet_sequence_id() == 1);
        const auto& bundle = p.ftrace_events();
        const unsigned cpu = bundle.cpu();
        REQUIRE(cpu < ncpus);
        REQUIRE(bundle.event_size() > 0);
        // A bundle holds one CPU's events of one 1 ms period, in time order, after its previous bundle.
        std::uint64_t prev = cpu_last.count(cpu) ? cpu_last[cpu] : 0;
        const std::uint64_t period = bundle.event(0).timestamp() / 1'000'000;
        for (const auto& e : bundle.event()) {
            INFO("cpu " << cpu << " ts " << e.timestamp());
            CHECK(e.timestamp() >= prev);
            CHECK(e.timestamp() / 1'000'000 == period);
            prev = e.timestamp();
            span(e.timestamp());
            std::string name;
            const std::string text = as_text(e, cpu, name);
            ++d.count[name];
            if (!text.empty()) d.text.push_back(text);
            if (e.has_sched_switch()) {
                CHECK(static_cast<int>(e.pid()) == e.sched_switch().prev_pid()); // ftrace's pid is prev
                if (e.sched_switch().next_pid() != 0) d.switched_in.insert(e.sched_switch().next_pid());
            }
            if (e.has_task_newtask()) d.newtasks.push_back(&e);
            if (e.has_sched_process_exit()) d.exits.push_back(&e);
        }
        cpu_last[cpu] = prev;
    }
    std::sort(d.text.begin(), d.text.end());
    return d;
}

// trace.txt's events (tracing_mark_write left out) in as_text's form, sorted, and its counters by name
// ("cpu3 L1d misses") as (ts, value) in file order.
struct text_trace {
    std::vector<std::string> events;
    std::map<std::string, unsigned> count;
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::int64_t>>> counters;
};

text_trace read_text(const fs::path& file) {
    static const std::regex line_re(
        R"(^ *.{1,16}-(\d+) +\( *(?:\d+|-+)\) \[(\d{3})\] \S{5} +(\d+)\.(\d{9}): ([a-z_]+): (.*)$)");
    static const std::regex counter_re(R"(^C\|0\|(cpu\d+ L(?:1d|3) misses)\|(\d+)$)");
    text_trace t;
    std::istringstream in(file_text(file));
    for (std::string l; std::getline(in, l);) {
        if (l.empty() || l[0] == '#') continue;
        std::smatch m;
        INFO(l);
        REQUIRE(std::regex_match(l, m, line_re));
        const std::uint64_t ts = std::stoull(m[3]) * 1'000'000'000ull + std::stoull(m[4]);
        const std::string name = m[5], payload = m[6];
        ++t.count[name];
        if (name == "tracing_mark_write") {
            std::smatch c;
            REQUIRE(std::regex_match(payload, c, counter_re));
            t.counters[c[1]].emplace_back(ts, std::stoll(c[2]));
            continue;
        }
        t.events.push_back(std::to_string(ts) + " [" + std::to_string(std::stoul(m[2])) + "] " + m[1].str() +
                           " " + name + ": " + payload);
    }
    std::sort(t.events.begin(), t.events.end());
    return t;
}

// trace.json's counters as the perfetto tracks name them: "cpu<N> L1d misses" (L2, L3) and
// "cpu<N> nr_running", (ts in ns, value) in file order.
std::map<std::string, std::vector<std::pair<std::uint64_t, std::int64_t>>>
json_counters(const fs::path& file) {
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::int64_t>>> out;
    const auto j = nlohmann::json::parse(file_text(file));
    for (const auto& e : j.at("traceEvents")) {
        if (e.at("ph") != "C") continue;
        const auto ts = static_cast<std::uint64_t>(std::llround(e.at("ts").get<double>() * 1000));
        const std::string name = e.at("name");
        const std::string cpu = name.substr(0, name.find(' '));
        for (const auto& [series, value] : e.at("args").items()) {
            const std::string track =
                series == "nr_running" ? cpu + " nr_running" : cpu + " " + series + " misses";
            out[track].emplace_back(ts, value.get<std::int64_t>());
        }
    }
    return out;
}

// The first place two sorted lists differ ("" when equal), for a readable failure.
std::string first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    if (ia == a.end() && ib == b.end()) return "";
    return "perfetto: " + (ia == a.end() ? std::string("(end)") : *ia) +
           "\ntrace.txt: " + (ib == b.end() ? std::string("(end)") : *ib);
}

// Names every thread the trace switches to: by the process tree or by the task_newtask of its fork.
void check_every_thread_named(const decoded& d) {
    REQUIRE(d.tree);
    std::map<int, std::string> names;
    std::set<int> processes;
    for (const auto& th : d.tree->process_tree().threads()) names[th.tid()] = th.name();
    for (const auto& pr : d.tree->process_tree().processes()) {
        processes.insert(pr.pid());
        CHECK(pr.cmdline_size() == 1);
    }
    for (const auto& th : d.tree->process_tree().threads()) CHECK(processes.count(th.tgid()) == 1);
    for (const auto* n : d.newtasks) names[n->task_newtask().pid()] = n->task_newtask().comm();
    for (const int pid : d.switched_in) {
        INFO("pid " << pid);
        CHECK(names.count(pid) == 1);
        if (names.count(pid)) CHECK(!names[pid].empty());
    }
}
} // namespace

TEST_CASE("trace.perfetto-trace holds trace.txt's events one for one, and the run's counters") {
    const std::string workload = "hackbench -p -g 2 -l 20";
    const fs::path a = run_traced("a", "--trace-format ftrace,chrome,perfetto", workload);
    const pb::Trace trace = read_trace(a);
    const decoded d = decode(trace, 32);
    const text_trace txt = read_text(a / "trace.txt");

    // The same events with the same fields, times, CPUs and pids.
    CHECK(d.text.size() == txt.events.size());
    CHECK(first_difference(d.text, txt.events) == "");
    for (const char* name : {"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
                             "sched_migrate_task", "sched_process_fork", "sched_process_exit"}) {
        INFO(name);
        CHECK(d.count.at(name) == txt.count.at(name));
    }
    // ... and as many as the run counted.
    const auto stats = stats_of(a);
    CHECK(d.count.at("sched_switch") == stats.at("kernel.contextSwitches"));
    CHECK(d.count.at("sched_waking") == stats.at("kernel.wakeups"));
    CHECK(d.count.at("sched_migrate_task") == stats.at("kernel.migrations"));
    CHECK(d.count.at("sched_migrate_task") > 0);
    CHECK(d.count.at("sched_process_fork") == stats.at("kernel.forks"));
    CHECK(d.count.at("sched_process_fork") == 80); // 2 groups of 20 senders and 20 receivers
    CHECK(d.count.at("task_newtask") == 80);
    CHECK(d.count.at("sched_wakeup_new") == 80);
    CHECK(d.count.at("sched_process_exit") == 81); // the children and hackbench itself
    CHECK(d.count.at("sched_process_free") == 81);
    CHECK(d.count.count("?") == 0);
    // Processes: hackbench -p forks processes, each its own thread group.
    for (const auto* n : d.newtasks) CHECK((n->task_newtask().clone_flags() & clone_thread) == 0);
    for (const auto* x : d.exits) CHECK(x->sched_process_exit().tgid() == x->sched_process_exit().pid());

    // The run's window: from 0 to its end.
    CHECK(d.first_ts == 0);
    CHECK(static_cast<double>(d.last_ts) <= stats.at("simSeconds") * 1e9 + 1);

    // The system: uname -r of the simulated kernel (Perfetto decodes prev_state by it), 32 CPUs.
    REQUIRE(d.system);
    CHECK(d.system->utsname().sysname() == "Linux");
    CHECK(d.system->utsname().release() == "6.12.0-warmsched");
    CHECK(d.system->utsname().machine() == "x86_64");
    CHECK(d.system->num_cpus() == 32);

    // Names: the process tree at the start has hackbench (pid 1, the task not forked in the trace).
    REQUIRE(d.tree);
    CHECK(d.tree->timestamp() == 0);
    REQUIRE(d.tree->process_tree().threads_size() == 1);
    CHECK(d.tree->process_tree().threads(0).tid() == 1);
    CHECK(d.tree->process_tree().threads(0).name() == "hackbench");
    REQUIRE(d.tree->process_tree().processes_size() == 1);
    CHECK(d.tree->process_tree().processes(0).cmdline(0) == "hackbench");
    check_every_thread_named(d);
    CHECK(d.switched_in.size() == 81);

    // Counters: four tracks per CPU, each with values; L1d and L3 as trace.txt's tracing_mark_write,
    // all four as trace.json's counter events.
    CHECK(d.counter_tracks.size() == 4 * 32);
    const auto from_json = json_counters(a / "trace.json");
    for (unsigned c = 0; c < 32; ++c)
        for (const char* series : {"L1d misses", "L2 misses", "L3 misses", "nr_running"}) {
            const std::string track = "cpu" + std::to_string(c) + " " + series;
            INFO(track);
            REQUIRE(d.counters.count(track) == 1);
            CHECK(!d.counters.at(track).empty());
            CHECK(d.counters.at(track) == from_json.at(track));
            if (std::string(series) == "L1d misses" || std::string(series) == "L3 misses") {
                REQUIRE(txt.counters.count(track) == 1);
                CHECK(d.counters.at(track) == txt.counters.at(track));
            }
        }
    CHECK(txt.counters.size() == 2 * 32);

    // Determinism, and independence of the other formats: the same seed with only perfetto asked for
    // gives the same bytes (and no trace.txt or trace.json).
    const fs::path b = run_traced("b", "--trace-format perfetto", workload);
    CHECK(file_text(b / "trace.perfetto-trace") == file_text(a / "trace.perfetto-trace"));
    CHECK(!fs::exists(b / "trace.txt"));
    CHECK(!fs::exists(b / "trace.json"));
}

TEST_CASE("threads of hackbench -T are task_newtask with CLONE_THREAD in one thread group") {
    const fs::path dir = run_traced("threads", "--trace-format perfetto", "hackbench -T -g 1 -l 10");
    const pb::Trace trace = read_trace(dir);
    const decoded d = decode(trace, 32);
    REQUIRE(d.newtasks.size() == 40);
    for (const auto* n : d.newtasks) CHECK((n->task_newtask().clone_flags() & clone_thread) != 0);
    REQUIRE(d.exits.size() == 41);
    for (const auto* x : d.exits) CHECK(x->sched_process_exit().tgid() == 1);
    REQUIRE(d.tree);
    REQUIRE(d.tree->process_tree().processes_size() == 1);
    CHECK(d.tree->process_tree().processes(0).pid() == 1);
    check_every_thread_named(d);
}

TEST_CASE("a trace window bounds trace.perfetto-trace and names the tasks alive at its start") {
    // hackbench is still forking at 1 ms: the window has forks and tasks forked before it.
    const fs::path dir = run_traced("window", "--trace-format perfetto --trace-window 0.001:0.0015",
                                    "hackbench -p -g 1 -l 20");
    const pb::Trace trace = read_trace(dir);
    const decoded d = decode(trace, 32);
    REQUIRE(!d.text.empty());
    CHECK(d.first_ts >= 1'000'000);
    CHECK(d.last_ts < 1'500'000);
    CHECK(d.newtasks.size() > 0);
    REQUIRE(d.tree);
    CHECK(d.tree->timestamp() == 1'000'000);
    CHECK(d.tree->process_tree().threads_size() > 1); // hackbench and children it forked before 1 ms
    check_every_thread_named(d);
}

TEST_CASE("protoc decodes trace.perfetto-trace against the schema") {
    const fs::path dir = run_traced("protoc", "--trace-format perfetto", "hackbench -p -g 1 -l 5");
    const decoded d = decode(read_trace(dir), 32);
    const fs::path schema = fs::path(WARMSCHED_SOURCE_DIR) / "sim/outputs/perfetto";
    const fs::path text = dir / "trace.perfetto-trace.txt";
    const std::string cmd = std::string(WARMSCHED_PROTOC) + " --decode=perfetto.protos.Trace -I " +
                            schema.string() + " " + (schema / "perfetto_trace.proto").string() + " < " +
                            (dir / "trace.perfetto-trace").string() + " > " + text.string() + " 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const std::string decoded_text = file_text(text);
    auto occurrences = [&](const std::string& what) {
        unsigned n = 0;
        for (auto at = decoded_text.find(what); at != std::string::npos; at = decoded_text.find(what, at + 1))
            ++n;
        return n;
    };
    // protoc prints no unknown fields (they would show as bare numbers) and the same events.
    CHECK(!std::regex_search(decoded_text, std::regex(R"(\n *[0-9]+: )")));
    for (const char* name :
         {"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task",
          "sched_process_fork", "sched_process_exit", "sched_process_free", "task_newtask"}) {
        INFO(name);
        CHECK(occurrences(std::string("\n      ") + name + " {") == d.count.at(name));
    }
    CHECK(occurrences("\n  ftrace_events {") > 0);
    CHECK(occurrences("type: TYPE_COUNTER") > 0);
    CHECK(occurrences("process_tree {") == 1);
}
