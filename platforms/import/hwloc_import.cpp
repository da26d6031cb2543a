// hwloc reader; see hwloc_import.h.
#include "platforms/import/hwloc_import.h"

#include "platforms/config/config_error.h"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

namespace warmsched::platform::import {
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what) {
    throw config::config_error(config::origin{source, 0, 0}, "", what);
}

// hwloc reports XML problems on stderr. While it loads, stderr goes to a temporary file so the message
// becomes the one error line instead of being printed around it.
class stderr_capture {
public:
    stderr_capture() : file_(std::tmpfile()) {
        std::fflush(stderr);
        saved_ = ::dup(2);
        if (file_ && saved_ >= 0) ::dup2(::fileno(file_), 2);
    }
    ~stderr_capture() { restore(); }
    // Restores stderr and returns the line of what hwloc wrote that says what is wrong (empty if none):
    // the first one that is not a warning or a caret under the XML text, without hwloc's own prefix.
    std::string finish() {
        restore();
        std::string said;
        if (file_) {
            std::rewind(file_);
            char buf[1024];
            while (said.empty() && std::fgets(buf, sizeof buf, file_)) {
                std::string line = buf;
                while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
                if (line.empty() || line[0] == ' ' || line.find("without DTD") != std::string::npos) continue;
                if (line.rfind("xmlbuffer: ", 0) == 0) line = line.substr(11);
                if (line.size() > 1 && line[0] == ':' && std::isdigit(static_cast<unsigned char>(line[1])))
                    line = "line " + line.substr(1);
                said = line;
            }
            std::fclose(file_);
            file_ = nullptr;
        }
        return said;
    }

private:
    void restore() {
        if (saved_ >= 0) {
            std::fflush(stderr);
            ::dup2(saved_, 2);
            ::close(saved_);
            saved_ = -1;
        }
    }
    std::FILE* file_;
    int saved_ = -1;
};

struct topology_deleter {
    void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using topology_ptr = std::unique_ptr<hwloc_topology, topology_deleter>;

cpu_set cpus_of(hwloc_const_cpuset_t set) {
    cpu_set cpus;
    for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i))
        cpus.push_back(static_cast<unsigned>(i));
    return cpus;
}

std::vector<cpu_set> objects_of(hwloc_topology_t topo, hwloc_obj_type_t type) {
    std::vector<cpu_set> sets;
    const int n = hwloc_get_nbobjs_by_type(topo, type);
    for (int i = 0; i < n; ++i) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
        if (o->cpuset && !hwloc_bitmap_iszero(o->cpuset)) sets.push_back(cpus_of(o->cpuset));
    }
    return sets;
}

std::string trimmed(std::string s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

int number_info(hwloc_obj_t o, const char* name) {
    const char* v = hwloc_obj_get_info_by_name(o, name);
    if (!v || !*v) return -1;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    return end && *end == '\0' && n >= 0 && n < 1 << 20 ? static_cast<int>(n) : -1;
}

// libhwloc loads some non-uniform or inconsistent inputs without complaint and the inventory would make
// them uniform (a core's cpuset counts a CPU whose PU is missing; two PUs share an os_index; hybrid CPU
// kinds look like one): the model states uniform machines only (docs/platforms.md, "Limits"), so each
// is refused, naming what differs.
void check_uniform(hwloc_topology_t topo, const std::string& source) {
    std::vector<hwloc_obj_t> pu_of_cpu;
    const int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    for (int i = 0; i < pus; ++i) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, static_cast<unsigned>(i));
        const unsigned cpu = pu->os_index;
        if (cpu >= 1u << 20) fail(source, "a PU without os_index (L#" + std::to_string(i) + "): not a consistent topology");
        if (cpu >= pu_of_cpu.size()) pu_of_cpu.resize(cpu + 1, nullptr);
        if (pu_of_cpu[cpu])
            fail(source, "two PU objects have os_index " + std::to_string(cpu) + " (L#" +
                             std::to_string(pu_of_cpu[cpu]->logical_index) + " and L#" + std::to_string(i) +
                             "): a CPU number is one hardware thread");
        pu_of_cpu[cpu] = pu;
        if (!pu->cpuset || hwloc_bitmap_weight(pu->cpuset) != 1 || !hwloc_bitmap_isset(pu->cpuset, cpu))
            fail(source, "the PU with os_index " + std::to_string(cpu) + " has a cpuset that is not CPU " +
                             std::to_string(cpu) + ": not a consistent topology");
    }
    const int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int i = 0; i < cores; ++i) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
        if (!core->cpuset) continue;
        unsigned below = 0;
        for (unsigned k = 0; k < core->arity; ++k)
            if (core->children[k]->type == HWLOC_OBJ_PU) ++below;
        const int width = hwloc_bitmap_weight(core->cpuset);
        for (int cpu = hwloc_bitmap_first(core->cpuset); cpu >= 0; cpu = hwloc_bitmap_next(core->cpuset, cpu))
            if (static_cast<unsigned>(cpu) >= pu_of_cpu.size() || !pu_of_cpu[static_cast<unsigned>(cpu)] ||
                pu_of_cpu[static_cast<unsigned>(cpu)]->parent != core)
                fail(source, "core L#" + std::to_string(i) + " has " + std::to_string(below) + " PU of the " +
                                 std::to_string(width) + " CPUs of its cpuset (no PU object for CPU " +
                                 std::to_string(cpu) + "): the model needs every core's hardware threads");
    }
    // hwloc >= 2.4 describes hybrid CPUs (P- and E-cores) as CPU kinds.
    const int kinds = hwloc_cpukinds_get_nr(topo, 0);
    if (kinds > 1) {
        std::string which;
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        for (int k = 0; k < kinds; ++k) {
            int efficiency = -1;
            unsigned nr_infos = 0;
            hwloc_info_s* infos = nullptr;
            if (hwloc_cpukinds_get_info(topo, static_cast<unsigned>(k), set, &efficiency, &nr_infos, &infos, 0) != 0)
                continue;
            std::string type;
            for (unsigned i = 0; i < nr_infos; ++i)
                if (std::string(infos[i].name) == "CoreType") type = infos[i].value;
            char* list = nullptr;
            hwloc_bitmap_list_asprintf(&list, set);
            which += std::string(which.empty() ? "" : ", ") + (type.empty() ? "kind " + std::to_string(k) : type) +
                     " (CPUs " + (list ? list : "?") + ")";
            std::free(list);
        }
        hwloc_bitmap_free(set);
        fail(source, "the input has " + std::to_string(kinds) + " CPU kinds, " + which +
                         " (a hybrid CPU?); the model needs one kind of core");
    }
}

machine_inventory inventory_of(hwloc_topology_t topo, const std::string& source) {
    check_uniform(topo, source);
    machine_inventory inv;
    inv.source = source;
    inv.reader = "hwloc";
    inv.packages = objects_of(topo, HWLOC_OBJ_PACKAGE);
    inv.dies = objects_of(topo, HWLOC_OBJ_DIE);
    inv.cores = objects_of(topo, HWLOC_OBJ_CORE);
    if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) <= 0) fail(source, "the topology has no PU (no CPU)");
    if (inv.packages.empty()) fail(source, "the topology has no Package object");
    if (inv.cores.empty()) fail(source, "the topology has no Core object");

    // The CPU's identity: the first package that states it (the Linux and x86 backends set these infos).
    for (int i = 0; i < hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE); ++i) {
        hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(i));
        const char* model = hwloc_obj_get_info_by_name(pkg, "CPUModel");
        const char* vendor = hwloc_obj_get_info_by_name(pkg, "CPUVendor");
        if (!model && !vendor) continue;
        inv.model_name = trimmed(model ? model : "");
        inv.vendor = trimmed(vendor ? vendor : "");
        inv.family = number_info(pkg, "CPUFamilyNumber");
        inv.model = number_info(pkg, "CPUModelNumber");
        break;
    }

    const int nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < nodes; ++i) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
        if (!o->cpuset || hwloc_bitmap_iszero(o->cpuset)) continue; // memory-only node (CXL, HBM)
        // libhwloc gives a NUMANode without os_index the unknown index 2^32-1 (on a slow host its trial
        // load runs out of CPU time first, below): not a node the kernel numbers.
        if (o->os_index >= 1u << 20)
            fail(source, "a NUMANode without os_index (L#" + std::to_string(i) + "): not a consistent topology");
        inv.nodes.push_back({o->os_index, cpus_of(o->cpuset)});
    }

    for (hwloc_obj_type_t type : {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
                                  HWLOC_OBJ_L5CACHE}) {
        const int n = hwloc_get_nbobjs_by_type(topo, type);
        for (int i = 0; i < n; ++i) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
            const auto& a = o->attr->cache;
            if (a.type == HWLOC_OBJ_CACHE_INSTRUCTION || !o->cpuset) continue;
            inventory_cache c;
            c.level = a.depth;
            c.size = a.size;
            c.associativity = a.associativity > 0 ? static_cast<unsigned>(a.associativity) : 0;
            c.line_size = a.linesize;
            if (const char* incl = hwloc_obj_get_info_by_name(o, "Inclusive"))
                c.inclusive = std::string(incl) == "1" ? 1 : 0;
            c.cpus = cpus_of(o->cpuset);
            inv.caches.push_back(c);
        }
    }

    // The NUMA distances: the latency matrix (the SLIT on Linux), if the input has one.
    unsigned nr = 1;
    hwloc_distances_s* dist = nullptr;
    if (inv.nodes.size() > 1 &&
        hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist, HWLOC_DISTANCES_KIND_MEANS_LATENCY,
                                    0) == 0 &&
        nr >= 1) {
        std::vector<int> index_of(inv.nodes.size(), -1); // our node -> row of the hwloc matrix
        for (unsigned r = 0; r < dist->nbobjs; ++r)
            for (std::size_t k = 0; k < inv.nodes.size(); ++k)
                if (dist->objs[r]->os_index == inv.nodes[k].os_index) index_of[k] = static_cast<int>(r);
        if (std::all_of(index_of.begin(), index_of.end(), [](int r) { return r >= 0; })) {
            inv.distances.assign(inv.nodes.size(), std::vector<unsigned>(inv.nodes.size()));
            for (std::size_t i = 0; i < inv.nodes.size(); ++i)
                for (std::size_t j = 0; j < inv.nodes.size(); ++j)
                    inv.distances[i][j] = static_cast<unsigned>(
                        dist->values[static_cast<unsigned>(index_of[i]) * dist->nbobjs +
                                     static_cast<unsigned>(index_of[j])]);
        }
        hwloc_distances_release(topo, dist);
    }
    return inv;
}

// Loads with `configure` choosing the input, turning hwloc's complaints into one error line.
template <typename Configure>
machine_inventory load(const std::string& source, Configure configure) {
    // hwloc says why an XML does not load only when HWLOC_XML_VERBOSE is set: set it while loading.
    const bool verbose_was_set = std::getenv("HWLOC_XML_VERBOSE") != nullptr;
    if (!verbose_was_set) ::setenv("HWLOC_XML_VERBOSE", "1", 1);
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) fail(source, "hwloc could not initialise a topology");
    topology_ptr topo(raw);
    stderr_capture capture;
    const bool ok = configure(raw) == 0 && hwloc_topology_load(raw) == 0;
    const std::string why = capture.finish();
    if (!verbose_was_set) ::unsetenv("HWLOC_XML_VERBOSE");
    if (!ok) fail(source, why.empty() ? "hwloc cannot load it (not an hwloc XML topology?)" : "hwloc: " + why);
    return inventory_of(raw, source);
}

// libhwloc 2.9 (Debian 12) itself crashes on some inconsistent XMLs (a SIGSEGV in
// hwloc_bitmap_compare_first under hwloc_topology_load, found by fuzz_import), and spends seconds on
// others (a NUMANode without os_index: it takes the unknown index 2^32-1 and builds a nodeset of 2^32
// bits, 3.3 s of CPU; also found by fuzz_import). An XML is therefore loaded once in a child process
// first, with a CPU-time limit: if the library dies there or runs out of time, the user gets one line.
// The limit is CPU time, not wall time, so a busy host does not trip it; the test topologies of
// tests/data/hwloc (up to 192 CPUs and 24 nodes) take at most 0.11 s of CPU for the whole import.
constexpr rlim_t hwloc_cpu_seconds = 1;

void check_hwloc_survives(const std::string& xml, const std::string& source) {
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) return; // cannot isolate: load in-process as before
    if (pid == 0) {
        // Die by the signal itself, not through a handler inherited from the parent (a sanitizer's).
        for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU}) ::signal(sig, SIG_DFL);
        const rlimit cpu{hwloc_cpu_seconds, hwloc_cpu_seconds + 1}; // SIGXCPU (its default action ends it)
        ::setrlimit(RLIMIT_CPU, &cpu);
        const int devnull = ::open("/dev/null", O_WRONLY);
        if (devnull >= 0) ::dup2(devnull, STDERR_FILENO);
        hwloc_topology_t t = nullptr;
        int rc = 3;
        if (hwloc_topology_init(&t) == 0) {
            if (hwloc_topology_set_xmlbuffer(t, xml.c_str(), static_cast<int>(xml.size() + 1)) == 0)
                rc = hwloc_topology_load(t) == 0 ? 0 : 3;
            hwloc_topology_destroy(t);
        }
        ::_exit(rc);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
        fail(source, "libhwloc did not finish loading it within " + std::to_string(hwloc_cpu_seconds) +
                         " s of CPU time (a real machine's topology loads in well under 0.1 s; an object "
                         "without os_index is one cause): not a consistent hwloc topology");
    if (WIFSIGNALED(status))
        fail(source, "libhwloc crashed reading it (signal " + std::to_string(WTERMSIG(status)) +
                         "): not a consistent hwloc topology");
    if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3))
        fail(source, "libhwloc failed reading it (status " + std::to_string(WEXITSTATUS(status)) +
                         "): not a consistent hwloc topology");
}

} // namespace

machine_inventory read_hwloc_xml_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) fail(path, "cannot read file");
    std::stringstream ss;
    ss << in.rdbuf();
    return read_hwloc_xml_text(ss.str(), path);
}

machine_inventory read_hwloc_xml_text(const std::string& xml, const std::string& source) {
    if (xml.find("<topology") == std::string::npos) fail(source, "not an hwloc XML topology (no <topology> element)");
    check_hwloc_survives(xml, source);
    return load(source, [&](hwloc_topology_t t) {
        return hwloc_topology_set_xmlbuffer(t, xml.c_str(), static_cast<int>(xml.size() + 1));
    });
}

machine_inventory read_hwloc_this_machine() {
    return load("this machine (hwloc)", [](hwloc_topology_t) { return 0; });
}

} // namespace warmsched::platform::import
