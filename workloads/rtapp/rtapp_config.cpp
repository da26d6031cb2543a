// rt-app's JSON use case; see rtapp_config.h. The order of the checks and the defaults follow
// src/rt-app_parse_config.c (scheduler-tools/rt-app): global first, then the legacy resources section,
// then the tasks in file order; events by key prefix in the order rt-app tests them.
#include "workloads/rtapp/rtapp_config.h"

#include "workloads/cli/option_parser.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

namespace warmsched::workloads::rtapp {

const char* policy_name(policy p) {
    switch (p) {
    case policy::other:
        return "SCHED_OTHER";
    case policy::batch:
        return "SCHED_BATCH";
    case policy::idle:
        return "SCHED_IDLE";
    case policy::fifo:
        return "SCHED_FIFO";
    case policy::rr:
        return "SCHED_RR";
    case policy::deadline:
        return "SCHED_DEADLINE";
    }
    return "?";
}

const char* event_kind_name(event_kind k) {
    switch (k) {
    case event_kind::run:
        return "run";
    case event_kind::runtime:
        return "runtime";
    case event_kind::sleep:
        return "sleep";
    case event_kind::timer:
        return "timer";
    case event_kind::lock:
        return "lock";
    case event_kind::unlock:
        return "unlock";
    case event_kind::wait:
        return "wait";
    case event_kind::signal:
        return "signal";
    case event_kind::broad:
        return "broad";
    case event_kind::sync:
        return "sync";
    case event_kind::barrier:
        return "barrier";
    case event_kind::suspend:
        return "suspend";
    case event_kind::resume:
        return "resume";
    case event_kind::mem:
        return "mem";
    case event_kind::memrun:
        return "memrun";
    case event_kind::yield:
        return "yield";
    case event_kind::fork:
        return "fork";
    }
    return "?";
}

namespace {

bool starts_with(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

const char* type_name(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number_integer()) return "an integer";
    // nlohmann keeps an integer literal past 64 bits as a double: it has no fraction, it is too large.
    if (v.is_number() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>())
        return "an integer too large for 64 bits";
    if (v.is_number()) return "a number with a fraction";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

// Scheduling parameters as given at one level (task or phase); unset fields are absent.
struct sched_given {
    bool has_policy = false, has_priority = false;
    policy pol = policy::other;
    int priority = 0;
    std::string policy_path, priority_path;
    long long runtime_us = 0; // dl-runtime: SCHED_DEADLINE's runtime, or a fair thread's custom slice
    std::string runtime_path;
};

struct parser {
    const std::string& file;
    unsigned ncpus;
    config c;
    std::vector<std::string> not_modelled; // refused after the whole file has been checked

    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw usage_error("rt-app: " + file + ": " + path + ": " + what, true);
    }
    void later(const std::string& path, const std::string& what) {
        not_modelled.push_back("rt-app: " + file + ": " + path + ": " + what);
    }

    long long integer(const json& v, const std::string& path, long long min, long long max,
                      const char* what = "an integer") const {
        if (!v.is_number_integer()) fail(path, std::string("expected ") + what + ", got " + type_name(v));
        long long n = 0;
        if (v.is_number_unsigned()) {
            const auto u = v.get<unsigned long long>();
            n = u > static_cast<unsigned long long>(LLONG_MAX) ? LLONG_MAX : static_cast<long long>(u);
        } else {
            n = v.get<long long>();
        }
        if (n < min || n > max)
            fail(path, std::string("expected ") + what + " in [" + std::to_string(min) + ", " +
                           std::to_string(max) + "], got " + std::to_string(n));
        return n;
    }
    bool boolean(const json& v, const std::string& path) const {
        if (!v.is_boolean()) fail(path, std::string("expected true or false, got ") + type_name(v));
        return v.get<bool>();
    }
    std::string string(const json& v, const std::string& path) const {
        if (!v.is_string()) fail(path, std::string("expected a string, got ") + type_name(v));
        return v.get<std::string>();
    }
    const json& object(const json& v, const std::string& path, const char* what = "an object") const {
        if (!v.is_object()) fail(path, std::string("expected ") + what + ", got " + type_name(v));
        return v;
    }

    policy policy_of(const json& v, const std::string& path) const {
        const std::string s = string(v, path);
        static const std::pair<const char*, policy> names[] = {
            {"SCHED_OTHER", policy::other}, {"SCHED_BATCH", policy::batch},
            {"SCHED_IDLE", policy::idle},   {"SCHED_FIFO", policy::fifo},
            {"SCHED_RR", policy::rr},       {"SCHED_DEADLINE", policy::deadline}};
        for (const auto& [name, p] : names)
            if (s == name) return p;
        fail(path, "unknown policy \"" + s +
                       "\" (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE)");
    }

    std::vector<bool> cpu_list(const json& v, const std::string& path) const {
        if (!v.is_array()) fail(path, std::string("expected an array of CPU numbers, got ") + type_name(v));
        if (v.empty()) fail(path, "an empty CPU list (sched_setaffinity would fail with EINVAL)");
        std::vector<bool> mask(ncpus, false);
        for (std::size_t i = 0; i < v.size(); ++i)
            mask[static_cast<std::size_t>(integer(v[i], path + "[" + std::to_string(i) + "]", 0, ncpus - 1,
                                                  "a CPU number of this machine"))] = true;
        return mask;
    }

    int resource_index(const std::string& name, resource_kind kind, int task = -1) {
        for (std::size_t i = 0; i < c.resources.size(); ++i) {
            const resource& r = c.resources[i];
            if (r.name == name && r.kind == kind && r.task == task) return static_cast<int>(i);
        }
        resource r;
        r.name = name;
        r.kind = kind;
        r.task = task;
        c.resources.push_back(r);
        return static_cast<int>(c.resources.size() - 1);
    }

    void parse_global(const json& g) {
        global_options& o = c.global;
        object(g, "global");
        for (const auto& [key, v] : g.items()) {
            const std::string path = "global." + key;
            if (key == "duration") {
                o.duration_s = integer(v, path, -1, INT_MAX, "an integer number of seconds (-1: no limit)");
            } else if (key == "calibration") {
                if (v.is_number_integer()) {
                    o.calib_ns = integer(v, path, 0, INT_MAX, "ns per loop (0: calibrate CPU0)");
                } else if (v.is_string()) {
                    const std::string s = v.get<std::string>();
                    long long cpu = -1;
                    if (s.rfind("CPU", 0) != 0 || !parse_int(s.substr(3), 0, ncpus - 1, cpu))
                        fail(path, "\"" + s + "\" is not CPU<n> with n a CPU of this machine (0-" +
                                       std::to_string(ncpus - 1) + ")");
                    o.calib_cpu = static_cast<int>(cpu);
                } else {
                    fail(path, std::string("expected \"CPU<n>\" or ns per loop, got ") + type_name(v));
                }
            } else if (key == "default_policy") {
                o.default_policy = policy_of(v, path);
            } else if (key == "pi_enabled") {
                o.pi_enabled = boolean(v, path);
            } else if (key == "lock_pages") {
                o.lock_pages = boolean(v, path);
            } else if (key == "gnuplot") {
                o.gnuplot = boolean(v, path);
            } else if (key == "cumulative_slack") {
                o.cumulative_slack = boolean(v, path);
            } else if (key == "logdir") {
                o.logdir = string(v, path);
            } else if (key == "log_basename") {
                o.log_basename = string(v, path);
                if (o.log_basename.empty() || o.log_basename.find('/') != std::string::npos)
                    fail(path, "expected a file name prefix without '/'");
            } else if (key == "io_device") {
                o.io_device = string(v, path);
            } else if (key == "log_size") {
                if (v.is_number_integer()) {
                    o.log_disabled = integer(v, path, 0, 2047, "a buffer size in MB") == 0;
                } else {
                    const std::string s = string(v, path);
                    if (s == "disable")
                        o.log_disabled = true;
                    else if (s != "file" && s != "auto")
                        fail(path,
                             "expected \"file\", \"auto\", \"disable\" or a size in MB, got \"" + s + "\"");
                }
            } else if (key == "ftrace") {
                if (v.is_boolean()) {
                    o.ftrace = v.get<bool>() ? "main,task,run,loop,event,stats,attrs" : "none";
                } else {
                    o.ftrace = string(v, path);
                    std::size_t at = 0;
                    while (at <= o.ftrace.size()) {
                        const std::size_t comma = std::min(o.ftrace.find(',', at), o.ftrace.size());
                        const std::string cat = o.ftrace.substr(at, comma - at);
                        static const char* known[] = {"none", "main",  "task",  "run",
                                                      "loop", "event", "stats", "attrs"};
                        if (std::find_if(std::begin(known), std::end(known),
                                         [&](const char* k) { return cat == k; }) == std::end(known))
                            fail(path, "unknown ftrace category \"" + cat +
                                           "\" (none, main, task, run, loop, event, stats, attrs)");
                        at = comma + 1;
                    }
                }
            } else if (key == "mem_buffer_size") {
                o.mem_buffer_size =
                    static_cast<std::uint64_t>(integer(v, path, 64, INT_MAX, "a buffer size in bytes"));
            } else if (key == "frag") {
                integer(v, path, 0, INT_MAX, "an integer"); // rt-app reads no such key: it is ignored
            } else {
                fail(path, "unknown key (global keys: duration, calibration, default_policy, pi_enabled, "
                           "lock_pages, logdir, log_basename, log_size, ftrace, gnuplot, io_device, "
                           "mem_buffer_size, cumulative_slack, frag)");
            }
        }
    }

    void parse_resources(const json& r) {
        object(r, "resources");
        for (const auto& [name, v] : r.items()) {
            const std::string path = "resources." + name;
            object(v, path);
            resource_kind kind = resource_kind::mutex;
            for (const auto& [key, t] : v.items()) {
                if (key != "type") fail(path + "." + key, "unknown key (a resource has only \"type\")");
                const std::string s = string(t, path + ".type");
                if (s == "mutex")
                    kind = resource_kind::mutex;
                else if (s == "wait")
                    kind = resource_kind::cond;
                else if (s == "timer")
                    kind = resource_kind::timer;
                else if (s == "barrier")
                    kind = resource_kind::barrier;
                else
                    fail(path + ".type",
                         "\"" + s + "\" is not a resource events use (mutex, wait, timer, barrier)");
            }
            resource_index(name, kind);
        }
    }

    // The sub-keys of an event given as an object; any other key is an error.
    void only_keys(const json& v, const std::string& path, std::initializer_list<const char*> keys) const {
        for (const auto& item : v.items()) {
            const std::string& key = item.key(); // a name, not a structured binding: lambdas capture it
            if (std::find_if(keys.begin(), keys.end(), [&](const char* k) { return key == k; }) ==
                keys.end()) {
                std::string list;
                for (const char* k : keys) list += std::string(list.empty() ? "" : ", ") + k;
                fail(path + "." + key, "unknown key (this event takes: " + list + ")");
            }
        }
    }
    std::string required_string(const json& v, const std::string& path, const char* key) const {
        if (!v.contains(key)) fail(path, std::string("missing \"") + key + "\"");
        return string(v.at(key), path + "." + key);
    }

    // Is `key` an event? Returns false for the other keys of a phase. Fills `e` when it is.
    bool parse_event(const std::string& key, const json& v, const std::string& path, int task_index,
                     event& e) {
        task& t = c.tasks[static_cast<std::size_t>(task_index)];
        e.key = key;
        const auto duration = [&](const char* unit) { return integer(v, path, 0, INT_MAX, unit); };
        if (starts_with(key, "run") || starts_with(key, "sleep")) {
            e.kind = starts_with(key, "sleep")     ? event_kind::sleep
                     : starts_with(key, "runtime") ? event_kind::runtime
                                                   : event_kind::run;
            e.duration_us = duration("a duration in microseconds");
            return true;
        }
        if (starts_with(key, "memrun")) {
            e.kind = event_kind::memrun;
            object(v, path, "an object {\"type\", \"size\", \"count\", \"pattern\", \"ref\"}");
            only_keys(v, path, {"type", "size", "count", "pattern", "ref", "stride"});
            const std::uint64_t buffer = c.global.mem_buffer_size;
            e.bytes = buffer;
            std::string type = "read";
            if (v.contains("type")) type = string(v.at("type"), path + ".type");
            if (type == "write")
                e.write = true;
            else if (type == "read")
                e.write = false;
            else if (type == "chase")
                later(path + ".type", "\"chase\" (dependent loads) is not modelled yet: the compute path "
                                      "overlaps a chunk's misses; use \"read\" with \"pattern\": \"rand\"");
            else
                fail(path + ".type", "expected \"read\", \"write\" or \"chase\", got \"" + type + "\"");
            if (v.contains("size"))
                e.bytes = static_cast<std::uint64_t>(
                    integer(v.at("size"), path + ".size", 64, static_cast<long long>(buffer),
                            "a size in bytes within global.mem_buffer_size"));
            e.accesses = (e.bytes + 63) / 64;
            if (v.contains("count"))
                e.accesses = static_cast<std::uint64_t>(
                    integer(v.at("count"), path + ".count", 1, INT_MAX, "a number of cache-line accesses"));
            if (v.contains("pattern")) {
                const std::string p = string(v.at("pattern"), path + ".pattern");
                if (p == "seq" || p == "sequential")
                    e.random = false;
                else if (p == "rand" || p == "random")
                    e.random = true;
                else
                    fail(path + ".pattern", "expected \"seq\" or \"rand\", got \"" + p + "\"");
            }
            if (v.contains("stride"))
                fail(path + ".stride",
                     "not modelled: every access is one whole cache line, in sequence or at "
                     "random (leave \"stride\" out)");
            if (v.contains("ref"))
                e.res = resource_index(required_string(v, path, "ref"), resource_kind::buffer);
            else
                e.res = own_buffer(task_index);
            return true;
        }
        if (starts_with(key, "mem") || starts_with(key, "iorun")) {
            e.kind = event_kind::mem;
            e.bytes = static_cast<std::uint64_t>(integer(v, path, 1, INT_MAX, "a size in bytes"));
            e.res = own_buffer(task_index);
            if (starts_with(key, "iorun"))
                later(path,
                      "iorun (writes to global.io_device) is not modelled yet: there is no IO device model");
            return true;
        }
        if (starts_with(key, "lock") || starts_with(key, "unlock")) {
            e.kind = starts_with(key, "lock") ? event_kind::lock : event_kind::unlock;
            e.res = resource_index(string(v, path), resource_kind::mutex);
            return true;
        }
        if (starts_with(key, "signal") || starts_with(key, "broad")) {
            e.kind = starts_with(key, "signal") ? event_kind::signal : event_kind::broad;
            e.res = resource_index(string(v, path), resource_kind::cond);
            return true;
        }
        if (starts_with(key, "wait") || starts_with(key, "sync")) {
            e.kind = starts_with(key, "wait") ? event_kind::wait : event_kind::sync;
            object(v, path, "an object {\"ref\": condition, \"mutex\": mutex}");
            only_keys(v, path, {"ref", "mutex"});
            e.res = resource_index(required_string(v, path, "ref"), resource_kind::cond);
            e.dep = resource_index(required_string(v, path, "mutex"), resource_kind::mutex);
            return true;
        }
        if (starts_with(key, "barrier")) {
            e.kind = event_kind::barrier;
            e.res = resource_index(string(v, path), resource_kind::barrier);
            c.resources[static_cast<std::size_t>(e.res)].waiting += t.instances;
            return true;
        }
        if (starts_with(key, "timer")) {
            e.kind = event_kind::timer;
            object(v, path, "an object {\"ref\", \"period\"[, \"mode\"]}");
            only_keys(v, path, {"ref", "period", "mode"});
            const std::string ref = required_string(v, path, "ref");
            if (!v.contains("period")) fail(path, "missing \"period\"");
            e.duration_us = integer(v.at("period"), path + ".period", 0, INT_MAX, "a period in microseconds");
            const bool unique = starts_with(ref, "unique");
            e.res = resource_index(ref, resource_kind::timer, unique ? task_index : -1);
            resource& r = c.resources[static_cast<std::size_t>(e.res)];
            r.unique = unique;
            if (v.contains("mode")) {
                const std::string m = string(v.at("mode"), path + ".mode");
                if (m == "absolute")
                    r.absolute = true;
                else if (m != "relative")
                    fail(path + ".mode", "expected \"relative\" or \"absolute\", got \"" + m + "\"");
            }
            return true;
        }
        if (starts_with(key, "resume") || starts_with(key, "suspend")) {
            e.kind = starts_with(key, "resume") ? event_kind::resume : event_kind::suspend;
            const std::string ref = string(v, path);
            e.res = resource_index(ref, resource_kind::cond);
            e.dep = resource_index(ref, resource_kind::mutex);
            return true;
        }
        if (starts_with(key, "yield")) {
            e.kind = event_kind::yield;
            string(v, path);
            return true;
        }
        if (starts_with(key, "fork")) {
            e.kind = event_kind::fork;
            e.res = resource_index(string(v, path), resource_kind::fork);
            return true;
        }
        return false;
    }

    int own_buffer(int task_index) {
        task& t = c.tasks[static_cast<std::size_t>(task_index)];
        if (t.mem_buffer < 0)
            t.mem_buffer = resource_index("mem:" + t.name, resource_kind::buffer, task_index);
        return t.mem_buffer;
    }

    // The keys a phase (or a task without phases) has beside its events. Returns false if `key` is not one.
    bool parse_phase_key(const std::string& key, const json& v, const std::string& path, phase& ph,
                         sched_given& sched, bool& has_cpus, std::vector<bool>& cpus, std::string& cpus_text,
                         std::string& taskgroup, std::string& taskgroup_path,
                         std::vector<std::string>& dl_keys) {
        if (key == "loop") {
            ph.loop = integer(v, path, -1, INT_MAX, "a loop count (-1: forever)");
            if (ph.loop == 0)
                fail(path, "a loop count of 0 would make rt-app repeat the phase forever; use -1");
        } else if (key == "cpus") {
            has_cpus = true;
            cpus = cpu_list(v, path);
            cpus_text = v.dump();
        } else if (key == "policy") {
            sched.has_policy = true;
            sched.pol = policy_of(v, path);
            sched.policy_path = path;
        } else if (key == "priority") {
            sched.has_priority = true;
            sched.priority = static_cast<int>(integer(v, path, INT_MIN, INT_MAX));
            sched.priority_path = path;
        } else if (key == "dl-runtime") {
            sched.runtime_us = integer(v, path, 0, INT_MAX, "microseconds");
            sched.runtime_path = path;
        } else if (key == "dl-period" || key == "dl-deadline") {
            integer(v, path, 0, INT_MAX, "microseconds");
            dl_keys.push_back(path);
        } else if (key == "taskgroup") {
            taskgroup = string(v, path);
            taskgroup_path = path;
            if (!taskgroup.empty() && taskgroup[0] != '/')
                fail(path, "taskgroup \"" + taskgroup + "\" has to start with '/'");
        } else if (key == "util_min" || key == "util_max") {
            integer(v, path, -1, 1024, "a utilization clamp in [0, 1024]");
            later(path, "utilization clamping (uclamp) is not modelled yet");
        } else if (key == "nodes_membind" || key == "membind_nodes") {
            if (!v.is_array())
                fail(path, std::string("expected an array of NUMA nodes, got ") + type_name(v));
            for (std::size_t i = 0; i < v.size(); ++i)
                integer(v[i], path + "[" + std::to_string(i) + "]", 0, INT_MAX, "a NUMA node");
            later(path, "NUMA memory binding is not modelled yet");
        } else if (key == "nice") {
            fail(path,
                 "rt-app has no \"nice\" key: the nice value of a SCHED_OTHER thread is its \"priority\"");
        } else {
            return false;
        }
        return true;
    }

    void parse_task(const std::string& name, const json& v, int index) {
        const std::string path = "tasks." + name;
        object(v, path);
        task& t = c.tasks[static_cast<std::size_t>(index)];
        t.name = name;
        t.path = path;
        // instance first: barrier users count the instances of the tasks that name them.
        if (v.contains("instance"))
            t.instances = static_cast<int>(integer(v.at("instance"), path + ".instance", 0, 100000));
        const bool has_phases = v.contains("phases");
        sched_given task_sched;
        bool has_cpus = false;
        std::vector<bool> cpus;
        std::string cpus_text = "-", taskgroup, taskgroup_path;
        std::vector<std::string> dl_keys;
        phase single;
        single.name = name;
        single.path = path;
        bool loop_given = false;
        for (const auto& [key, val] : v.items()) {
            const std::string kp = path + "." + key;
            if (key == "instance") continue;
            if (key == "delay") {
                t.delay_us = integer(val, kp, 0, INT_MAX, "a delay in microseconds");
            } else if (key == "phases") {
                object(val, kp, "an object of phases");
                if (val.empty()) fail(kp, "no phases");
            } else if (key == "period" || key == "deadline") {
                integer(val, kp, 0, INT_MAX, "microseconds");
                dl_keys.push_back(kp); // rt-app's legacy names of dl-period and dl-deadline
            } else if (has_phases && key == "loop") {
                t.loop = integer(val, kp, -1, INT_MAX, "a loop count (-1: forever)");
            } else if (parse_phase_key(key, val, kp, single, task_sched, has_cpus, cpus, cpus_text, taskgroup,
                                       taskgroup_path, dl_keys)) {
                if (key == "loop") loop_given = true;
            } else {
                event e;
                if (key == "exec" || key == "lock_order" || key == "resources")
                    fail(kp, "rt-app's legacy grammar (exec, period, lock_order and resources in a task, as "
                             "doc/examples/merge and taskset.json have it), which current rt-app no longer "
                             "reads (it logs \"Unknown or mismatch ... event type\" and ignores the key): "
                             "write run, sleep, lock and unlock events");
                if (!parse_event(key, val, kp, index, e))
                    fail(kp,
                         "unknown key (task keys: instance, delay, loop, phases, policy, priority, cpus, "
                         "taskgroup, dl-runtime, dl-period, dl-deadline, util_min, util_max, nodes_membind; "
                         "events: run, runtime, sleep, timer, lock, unlock, wait, signal, broad, sync, "
                         "barrier, suspend, resume, mem, memrun, iorun, yield, fork)");
                if (has_phases)
                    fail(kp, "an event beside \"phases\": rt-app does not run it; move it into a phase");
                single.events.push_back(e);
            }
        }
        // The thread's scheduling parameters (rt-app's parse_sched_data with the default policy).
        t.pol = task_sched.has_policy ? task_sched.pol : c.global.default_policy;
        const std::string pol_where =
            task_sched.has_policy ? task_sched.policy_path : path + " (global.default_policy)";
        t.priority = task_sched.has_priority ? task_sched.priority : default_priority(t.pol);
        check_priority(t.pol, t.priority, task_sched.has_priority ? task_sched.priority_path : path);
        // dl-runtime on a fair thread: rt-app passes it as sched_attr::sched_runtime, which v6.12 takes as
        // the thread's custom slice (clamped to 0.1-100 ms); on SCHED_DEADLINE it is the runtime.
        if (task_sched.runtime_us) {
            if (t.pol == policy::other || t.pol == policy::batch)
                t.custom_slice_ns = static_cast<std::uint64_t>(task_sched.runtime_us) * 1000;
            else if (t.pol != policy::deadline)
                fail(task_sched.runtime_path,
                     std::string("dl-runtime is SCHED_DEADLINE's runtime or, on SCHED_OTHER and SCHED_BATCH, "
                                 "v6.12's custom slice; the thread's policy is ") +
                         policy_name(t.pol));
        }
        if (has_cpus && !has_phases) {
            t.cpus = cpus;
            t.cpus_text = cpus_text;
        }
        std::string tg = taskgroup, tg_path = taskgroup_path;

        if (!has_phases) {
            if (single.events.empty()) fail(path, "no events: a task must have events (or phases)");
            // Without phases, "loop" is the phase's; the thread then runs once, else forever.
            t.loop = loop_given ? 1 : -1;
            t.phases.push_back(single);
        } else {
            const json& phases = v.at("phases");
            // Each phase's affinity: its own "cpus", else the task's, else rt-app's.
            std::vector<std::vector<bool>> phase_cpus;
            std::vector<std::string> phase_cpus_text, phase_cpus_path;
            for (const auto& [pname, pv] : phases.items()) {
                const std::string pp = path + ".phases." + pname;
                object(pv, pp);
                phase ph;
                ph.name = pname;
                ph.path = pp;
                sched_given ps;
                bool p_has_cpus = false;
                std::vector<bool> p_cpus;
                std::string p_cpus_text, p_tg, p_tg_path;
                std::vector<std::string> p_dl;
                for (const auto& [key, val] : pv.items()) {
                    const std::string kp = pp + "." + key;
                    if (parse_phase_key(key, val, kp, ph, ps, p_has_cpus, p_cpus, p_cpus_text, p_tg,
                                        p_tg_path, p_dl))
                        continue;
                    event e;
                    if (!parse_event(key, val, kp, index, e))
                        fail(kp,
                             "unknown key (phase keys: loop, policy, priority, cpus, taskgroup, dl-runtime, "
                             "dl-period, dl-deadline, util_min, util_max, nodes_membind; events: run, "
                             "runtime, sleep, timer, lock, unlock, wait, signal, broad, sync, barrier, "
                             "suspend, resume, mem, memrun, iorun, yield, fork)");
                    ph.events.push_back(e);
                }
                if (ph.events.empty()) fail(pp, "no events found: a phase must have events");
                // A phase may restate the thread's parameters, not change them: rt-app would call
                // sched_setattr / sched_setaffinity on the running thread, which is not modelled yet.
                if (ps.has_policy || ps.has_priority) {
                    const policy pol = ps.has_policy ? ps.pol : t.pol;
                    const int prio =
                        ps.has_priority ? ps.priority : (ps.has_policy ? default_priority(pol) : t.priority);
                    const std::string where = ps.has_priority ? ps.priority_path : ps.policy_path;
                    check_priority(pol, prio, where);
                    if (pol != t.pol || prio != t.priority)
                        later(where,
                              std::string("changing a running thread's scheduling parameters between phases "
                                          "(to ") +
                                  policy_name(pol) + " " + std::to_string(prio) + " from " +
                                  policy_name(t.pol) + " " + std::to_string(t.priority) +
                                  ") is not modelled yet");
                }
                if (ps.runtime_us && static_cast<std::uint64_t>(ps.runtime_us) * 1000 != t.custom_slice_ns &&
                    t.pol != policy::deadline)
                    later(ps.runtime_path, "changing a running thread's custom slice between phases "
                                           "(sched_setattr) is not modelled yet");
                phase_cpus.push_back(p_has_cpus ? p_cpus : (has_cpus ? cpus : std::vector<bool>{}));
                phase_cpus_text.push_back(p_has_cpus ? p_cpus_text : cpus_text);
                phase_cpus_path.push_back(p_has_cpus ? pp + ".cpus" : pp);
                if (!p_tg.empty() && tg.empty()) {
                    tg = p_tg;
                    tg_path = p_tg_path;
                } else if (!p_tg.empty() && p_tg != tg) {
                    later(p_tg_path, "moving a running thread to another task group between phases (from \"" +
                                         tg + "\" to \"" + p_tg + "\") is not modelled yet");
                }
                dl_keys.insert(dl_keys.end(), p_dl.begin(), p_dl.end());
                t.phases.push_back(ph);
            }
            // The first phase's affinity is the thread's from its start; a phase may not change it.
            t.cpus = phase_cpus.front();
            t.cpus_text = t.cpus.empty() ? "-" : phase_cpus_text.front();
            for (std::size_t i = 1; i < phase_cpus.size(); ++i)
                if (phase_cpus[i] != t.cpus)
                    later(phase_cpus_path[i], "changing a running thread's affinity between phases "
                                              "(sched_setaffinity) is not modelled yet");
        }
        if (t.pol != policy::deadline && !dl_keys.empty())
            fail(dl_keys.front(),
                 std::string("a SCHED_DEADLINE parameter, but the thread's policy is ") + policy_name(t.pol));
        if (!tg.empty() && t.pol != policy::other && t.pol != policy::idle && t.pol != policy::batch)
            fail(tg_path, std::string("no taskgroup support for policy ") + policy_name(t.pol));
        if (t.pol == policy::deadline)
            later(pol_where, "SCHED_DEADLINE needs the deadline scheduling class, which is not modelled yet");
        t.taskgroup = tg;
        t.taskgroup_path = tg_path;
        check_mutex_pairs(t);
        check_time_advances(t);
    }

    // An unlock of a mutex the thread does not hold at that point of its loop. rt-app's mutexes are
    // PTHREAD_PRIO_INHERIT (global.pi_enabled) or default ones: unlocking one the thread does not own is
    // EPERM or undefined, never what the file means. Wait and sync release and retake their mutex.
    void check_mutex_pairs(const task& t) const {
        std::set<int> held;
        for (const phase& ph : t.phases)
            for (const event& e : ph.events) {
                if (e.kind == event_kind::lock) held.insert(e.res);
                if (e.kind == event_kind::unlock && !held.erase(e.res))
                    fail(ph.path + "." + e.key,
                         "unlocks mutex \"" + c.resources[static_cast<std::size_t>(e.res)].name +
                             "\", which the thread does not hold there (lock it first in the same loop)");
            }
    }

    // A thread whose every event takes no time (lock and unlock, run 0, a timer of period 0, ...) loops
    // without the simulated clock moving: the run could never end. The real rt-app spins a CPU there
    // on its own bookkeeping, which the model does not charge.
    void check_time_advances(const task& t) const {
        const auto takes_time = [](const event& e) {
            switch (e.kind) {
            case event_kind::lock:
            case event_kind::unlock:
                return false;
            case event_kind::run:
            case event_kind::runtime:
            case event_kind::timer:
                return e.duration_us > 0;
            case event_kind::mem:
                return e.bytes > 0;
            case event_kind::memrun:
                return e.accesses > 0;
            default: // a system call (sleep, yield, futexes, clone): the kernel's direct cost
                return true;
            }
        };
        long long passes = t.loop < 0 ? -1 : t.loop;
        for (const phase& ph : t.phases) {
            if (ph.loop < 0) passes = -1;
            if (std::any_of(ph.events.begin(), ph.events.end(), takes_time)) return;
        }
        if (passes < 0 || passes > 1'000'000)
            fail(t.path, "no event of its loop takes time (lock, unlock, run 0, a timer of period 0), so it "
                         "would loop forever at one instant; give it a run, a sleep or a timer period > 0");
    }

    // rt-app writes each thread's log as <log_basename>-<thread>.log in the log directory (and, with
    // gnuplot, <log_basename>-<thread>.plot and <log_basename>-period.plot / -run.plot), where a thread's
    // name is <task>-<index>, or <task>-<index>-<fork number> for a thread a fork event made. These must
    // be file names in that directory: a task name with '/' would put its log elsewhere (a task
    // "../../esc"), and a name past NAME_MAX cannot be created (ENAMETOOLONG) -- both were silently not
    // written. Checked with the longest index each task's threads can get.
    void check_log_names() const {
        static constexpr std::size_t name_max = 255; // NAME_MAX: a directory entry's bytes
        const auto digits = [](long long n) { return std::to_string(std::max(0ll, n)).size(); };
        for (const task& t : c.tasks) {
            if (t.name.find('/') != std::string::npos || t.name.find('\0') != std::string::npos)
                fail(t.path, std::string("a task name with a '") + (t.name.find('/') != std::string::npos ? "/" : "\\0") +
                                 "': it is part of its threads' log file names (" + c.global.log_basename +
                                 "-<task>-<index>.log), which must stay in the log directory");
        }
        const std::string& base = c.global.log_basename;
        if (base.find('\0') != std::string::npos) fail("global.log_basename", "a file name prefix with a '\\0'");
        if (c.global.log_disabled) return; // no file is written
        const std::size_t ext = c.global.gnuplot ? 5 : 4; // ".plot" or ".log"
        if (base.size() + std::string("-period.plot").size() > name_max ||
            base.size() + std::string("-t-0").size() + ext > name_max)
            fail("global.log_basename",
                 "a prefix of " + std::to_string(base.size()) + " bytes: with the suffixes rt-app adds (-<task>-" +
                     "<index>.log) its log file names would pass NAME_MAX (" + std::to_string(name_max) + " bytes)");
        long long fork_resources = 0;
        for (const resource& r : c.resources) fork_resources += r.kind == resource_kind::fork;
        for (std::size_t i = 0; i < c.tasks.size(); ++i) {
            const task& t = c.tasks[i];
            bool forked = false; // a fork event names this task: its forked threads' names are longer
            for (const resource& r : c.resources) forked = forked || (r.kind == resource_kind::fork && r.name == t.name);
            // At most 1024 forks per fork resource (rt-app's FORKS_LIMIT), each a new thread index.
            const std::size_t suffix = forked ? 1 + digits(c.threads + 1024 * fork_resources - 1) + 5
                                              : 1 + digits(c.threads - 1);
            const std::size_t longest = base.size() + 1 + t.name.size() + suffix + ext;
            if (longest > name_max)
                fail(t.path, "its threads' log files would be named " + base + "-<task>-<index>" +
                                 (forked ? "-<fork>" : "") + (c.global.gnuplot ? ".plot" : ".log") + ", up to " +
                                 std::to_string(longest) + " bytes, more than NAME_MAX (" + std::to_string(name_max) +
                                 "); give the task a shorter name (or a shorter global.log_basename)");
        }
    }

    static int default_priority(policy p) { return p == policy::fifo || p == policy::rr ? 10 : 0; }

    void check_priority(policy p, int prio, const std::string& where) const {
        switch (p) {
        case policy::other:
        case policy::batch:
            if (prio < -20 || prio > 19)
                fail(where, "nice " + std::to_string(prio) + " is invalid for " + policy_name(p) +
                                " (valid between -20 and 19)");
            break;
        case policy::idle:
            if (prio != 0)
                fail(where,
                     "SCHED_IDLE threads have no priority (rt-app does not set a nice value for them)");
            break;
        case policy::fifo:
        case policy::rr:
            if (prio < 1 || prio > 99)
                fail(where,
                     "priority " + std::to_string(prio) + " is invalid for " + policy_name(p) + " (1-99)");
            break;
        case policy::deadline:
            break;
        }
    }

    void parse(const json& root) {
        if (!root.is_object()) fail("(top level)", std::string("expected an object, got ") + type_name(root));
        for (const auto& [key, v] : root.items()) {
            (void)v;
            if (key != "tasks" && key != "global" && key != "resources")
                fail(key, "unknown key (the top level has \"tasks\", \"global\" and \"resources\")");
        }
        if (root.contains("global")) parse_global(root.at("global"));
        if (root.contains("resources")) parse_resources(root.at("resources"));
        if (!root.contains("tasks")) fail("(top level)", "missing \"tasks\"");
        const json& tasks = object(root.at("tasks"), "tasks");
        if (tasks.empty()) fail("tasks", "no tasks");
        c.tasks.resize(tasks.size());
        int index = 0;
        for (const auto& [name, v] : tasks.items()) parse_task(name, v, index++);
        for (const task& t : c.tasks) c.threads += t.instances;
        for (resource& r : c.resources) {
            if (r.kind != resource_kind::fork) continue;
            for (std::size_t i = 0; i < c.tasks.size(); ++i)
                if (c.tasks[i].name == r.name) r.task = static_cast<int>(i);
            if (r.task < 0) {
                for (const task& t : c.tasks)
                    for (const phase& ph : t.phases)
                        for (const event& e : ph.events)
                            if (e.kind == event_kind::fork &&
                                c.resources[static_cast<std::size_t>(e.res)].name == r.name)
                                fail(ph.path + "." + e.key, "fork of an unknown task \"" + r.name + "\"");
            }
        }
        check_log_names();
        if (!not_modelled.empty()) throw usage_error(not_modelled.front(), true);
    }
};

} // namespace

config parse_config(const json& root, const std::string& file, unsigned ncpus) {
    parser p{file, ncpus, {}, {}};
    p.c.file = file;
    p.parse(root);
    return p.c;
}

config read_config(const std::string& file, unsigned ncpus) {
    return parse_config(read_json_file(file), file, ncpus);
}

} // namespace warmsched::workloads::rtapp
