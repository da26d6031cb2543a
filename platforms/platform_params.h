// The platform description as plain data: what a platform YAML file says, validated, with every time
// converted to picoseconds once. Nothing here is derived (the machine tree, sharing domains and fabric
// routes are built from it by topology.h and fabric_graph.h). Field names follow the YAML keys; the
// format is documented in docs/platforms.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warmsched::platform {

// A grouping level of the machine, outermost first (socket, then e.g. quadrant, ccd, die, ..., core).
struct level_params {
    std::string name;
    unsigned count = 1; // instances per instance of the enclosing level
};

enum class inclusion_policy {
    inclusive,     // holds everything the levels above it hold; its evictions back-invalidate them
    non_inclusive, // filled by evictions from above, keeps lines on hits (Intel Skylake-SP and later L3)
    victim,        // filled only by evictions from above; a hit moves the line up (AMD Zen L3)
};
enum class replacement_policy { lru, random };

struct cache_params {
    std::string name;       // l1d, l2, l3 ...
    std::string shared_by;  // "core" (private, shared by its SMT threads) or a level name
    std::uint64_t size = 0; // bytes
    unsigned associativity = 8;
    unsigned line_size = 64; // bytes; the same at every level
    double latency_ps = 0;   // load-to-use latency of a hit at this level
    inclusion_policy inclusion = inclusion_policy::inclusive;
    replacement_policy replacement = replacement_policy::lru;
    double peer_snoop_latency_ps =
        0;                  // shared levels: extra time when another core's private cache supplies the line
    bool estimated = false; // documentation only
};

struct core_params {
    double frequency_hz = 0;
    double base_cpi = 1.0;       // cycles per instruction with no memory stalls
    double smt_throughput = 1.0; // share of single-thread throughput each thread keeps with its sibling busy
    unsigned max_outstanding_misses = 10; // demand misses in flight per core (memory-level parallelism)
    unsigned stream_outstanding_misses =
        10;                       // in flight on a sequential stream, the prefetchers running ahead
    double atomic_latency_ps = 0; // extra time of a locked read-modify-write over a plain store
};

struct memory_params {
    std::string controllers_per = "socket"; // level name or "machine"
    double latency_ps = 0;                  // controller + DRAM access, without the fabric path to it
    double bandwidth = 0;                   // bytes/s per controller
    std::uint64_t interleave = 4096; // a NUMA node's memory is spread over its controllers in these chunks
    std::uint64_t page_size = 4096;  // first-touch placement granularity
};

struct numa_params {
    std::string node_per = "socket";            // level name or "machine"
    std::vector<std::vector<double>> distances; // empty: derived from fabric latencies
};

struct stop_params {
    std::string name;
    std::string per; // level name or "machine"
};

enum class link_pattern { containment, ring, all };

struct link_params {
    std::string from, to; // stop kinds: declared stops, "llc", "memory"
    link_pattern pattern = link_pattern::containment;
    std::string within = "machine"; // ring/all: the level inside which stops are connected
    double latency_ps = 0;
    double bandwidth = 0;         // bytes/s from `from` to `to`
    double reverse_bandwidth = 0; // bytes/s from `to` to `from`
};

struct fabric_params {
    double directory_latency_ps = 0;   // lookup at the home directory
    double bandwidth_window_ps = 10e3; // granularity of link occupancy accounting
    std::vector<stop_params> stops;
    std::vector<link_params> links;
};

// Direct kernel costs charged as CPU time (reference/scheduler/07-costs.md). Cache refill after a
// switch or a migration is never one of them: it emerges from the cache model. Defaults are the
// spec's derived values, not measurements of a particular platform.
struct kernel_cost_params {
    double context_switch_ps = 1.0e6; // schedule() + switch between threads of one process
    double mm_switch_ps = 0.5e6;      // extra when the address space changes (process switch)
    double syscall_ps = 0.1e6;        // syscall entry and exit
    double pipe_write_ps = 0.3e6;     // pipe/socket write of a small buffer, without the wakeup
    double pipe_read_ps = 0.2e6;      // pipe/socket read
    // An AF_UNIX stream socket's own work per sk_buff, on top of pipe_write / pipe_read: the sender
    // allocates it (sock_alloc_send_pskb, skb_set_owner_w), the reader frees it (consume_skb, sock_wfree).
    // Derived: a one-CPU 100-byte ping-pong over socketpairs takes 1.167x the time over pipes on the
    // project's host (bench/calibration/loopback_rr.c, docs/kernel.md), applied to 07-costs' 3.74 us pipe
    // round trip: 0.31 us per message, split evenly.
    double unix_skb_alloc_ps = 0.155e6;
    double unix_skb_free_ps = 0.155e6;
    double wakeup_ps = 0.3e6;         // try_to_wake_up on the waker
    double remote_enqueue_ps = 0.3e6; // extra on the waker when the wakee is queued on another CPU
    double ipi_ps = 1.5e6;            // reschedule IPI delivery to a CPU that does not poll
    // The sender's CPU time per IPI it sends (the ICR write). Tens of ns on bare metal, left out (0) for
    // the shipped platforms; in a virtual machine without IPI virtualization it is a VM exit, microseconds
    // (measured by `warmsched calibrate`, docs/calibration.md).
    double ipi_send_ps = 0;
    double ipi_handler_ps = 0.5e6;    // interrupt entry and wake-list flush on the target
    double idle_exit_ps = 1.0e6;      // exit latency of the idle state (C1) of a platform without idle_states
    bool idle_polling = false;        // idle=poll: idle CPUs poll, woken without IPI or exit latency
    int max_cstate = -1;              // processor.max_cstate / intel_idle.max_cstate: deepest state index (-1: all)
    double acpi_dummy_wait_ps = 0;    // io_idle's inl of the ACPI PM timer after an I/O-port state (0: none)
    double fork_ps = 30e6;            // fork() of a process (estimate)
    double clone_ps = 10e6;           // clone() of a thread (estimate)
    double exit_ps = 10e6;            // exit() and reaping (estimate)
    double exec_ps = 100e6;           // execve(): drop the old mm, map the new image (estimate)
    double io_submit_ps = 1.0e6;      // block layer + NVMe driver per request submitted (estimate)
    double io_complete_ps = 1.0e6;    // completion interrupt's work per request (estimate)
    double migrate_ps = 2.0e6;        // detach/attach with remote run-queue locks
};

// One idle state as the cpuidle driver lists it (/sys/devices/system/cpu/cpuN/cpuidle/stateK): state 0 may
// be the POLL loop. exit_latency and target_residency are what the driver advertises and the governor
// decides by; exit_time is what leaving the state really takes (charged to the CPU when an interrupt wakes
// it); flushes_core: entering it when every thread of the core is in it writes back and drops the core's
// private caches (Zen's CC6, Intel's C6), so the refill after the wakeup comes out of the cache model;
// io_port: ACPI enters it with an I/O-port read, after which kernels before v6.0 (and Intel machines
// under acpi_idle) read the ACPI PM timer, "the dummy wait" (kernel_costs.acpi_dummy_wait).
struct idle_state_params {
    std::string name;
    double exit_latency_ps = 0;
    double target_residency_ps = 0;
    double exit_time_ps = 0;
    bool polling = false;
    bool flushes_core = false;
    bool io_port = false; // entered by an I/O-port read (ACPI IOPORT): acpi_dummy_wait applies on exit
};

// The machine's NVMe SSD (models/io/block_device.h). Defaults: Intel SSD DC P4500 2.0 TB, from its
// published specifications (Lenovo Press product guide "Intel P4500 Entry NVMe PCIe SSDs", table 2):
// 4 KiB random read / write 490,000 / 38,000 IOPS, sequential read / write 3.2 / 1.05 GB/s, random read
// latency 85 us, sequential read 10 us, random write 20 us, sequential write 13 us.
struct block_device_params {
    std::string name = "nvme0n1";           // as fio's disk statistics name it
    double random_read_latency_ps = 85e6;   // a 4 KiB random read alone on the device (QD 1)
    double sequential_read_latency_ps = 10e6;
    double random_write_latency_ps = 20e6;
    double sequential_write_latency_ps = 13e6;
    double read_iops = 490e3;       // 4 KiB random reads per second at a deep queue
    double write_iops = 38e3;       // 4 KiB random writes per second (steady state)
    double read_bandwidth = 3.2e9;  // bytes/s, sequential reads
    double write_bandwidth = 1.05e9; // bytes/s, sequential writes
    unsigned queue_depth = 1023;    // commands the device holds at once; more wait in the host queue
    int irq_cpu = -1;               // CPU taking completion interrupts; -1: the submitting CPU
    std::uint64_t capacity = 2'000'398'934'016; // bytes: fio's --size (and offsets) must fit in it
};

struct platform_params {
    std::string name;
    std::string description;
    std::vector<level_params> levels; // outermost (socket) first, innermost (core) last
    unsigned threads_per_core = 1;
    std::string cpu_numbering = "siblings_last";
    // Explicit Linux CPU numbers, one per hardware thread: core by core in tree order, the threads of a
    // core in order. Empty: cpu_numbering decides. Imported machines whose numbering is neither of the two
    // (a 2-socket Core 2 numbers its CPUs alternately across the sockets) state it this way.
    std::vector<unsigned> cpu_ids;
    core_params core;
    std::vector<cache_params> caches; // closest to the core first
    memory_params memory;
    numa_params numa;
    fabric_params fabric;
    kernel_cost_params kernel_costs;
    // The cpuidle driver's states, shallowest first. Empty in the file: one C1 of kernel_costs.idle_exit
    // (the loader fills it in), which is what every idle period then uses.
    std::vector<idle_state_params> idle_states;
    block_device_params block_device;
};

} // namespace warmsched::platform
