// fio (the flexible I/O tester), a subset: one job description from the command line --
// `fio --name=NAME --rw=read|write|randread|randwrite --bs=4k --iodepth=N --numjobs=M --runtime=S
// [--time_based] [--size=BYTES] [--ioengine=libaio|psync|sync|pvsync] [--direct=0|1] [--thread]
// [--group_reporting] [--filename=DEV]` (parsed with glibc getopt_long_only over fio 3.33's whole option
// table, as fio parses it: fio_option_names.h) -- run against the machine's block device (models/io).
//
//   fio (main) --fork x numjobs--> job: [user work per I/O] -> submit
//                                   libaio: io_submit one request while fewer than iodepth are in
//                                           flight, else io_getevents(min 1, max iodepth)
//                                   psync/sync: pread/pwrite, sleeping until its completion interrupt
//   device completion -> interrupt on the submitting CPU (or the fixed irq_cpu) -> the waiting job
//   is woken through try_to_wake_up (placement, IPIs)
//
// Each job measures what fio measures -- slat (submission), clat (issue to reap), lat, their
// percentiles over fio's log-linear histogram, bandwidth and IOPS samples every 500 ms, the I/O depth
// and submit/complete batch distributions, CPU usage and context switches -- and the report prints
// fio's normal output: per job (or per group with --group_reporting) the "read: IOPS=..., BW=..." block,
// then "Run status group 0 (all jobs):" and "Disk stats (read/write):". Left out: the page cache
// (--direct=0 is run as direct I/O), file systems and offsets (the device sees only random vs
// sequential), mixed read/write jobs, rate limits, and fio's startup barrier and helper thread.
// Parameters beyond the command line (workload_params, docs/workloads.md): instructions_per_io,
// fio_working_set_kib, fio_accesses_per_kilo_instruction.
#pragma once

#include "workloads/cli/workload_params.h"
#include "workloads/kernel/memory_profile.h"
#include "workloads/workload.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace warmsched::workloads {

class sim_kernel;

struct fio_options {
    std::string name;
    std::string rw = "read"; // read | write | randread | randwrite
    std::uint64_t bs = 4096;
    unsigned iodepth = 1;
    unsigned numjobs = 1;
    std::uint64_t runtime_ms = 0; // 0: until size is done
    bool time_based = false;
    std::uint64_t size = 0; // bytes per job (0: the device, i.e. until runtime)
    std::string ioengine = "psync";
    bool direct = false;
    bool thread = false;
    bool group_reporting = false;
    std::string filename;
    bool json = false; // --output-format=json: fio's JSON document instead of the normal output
    // The job's options as given (key, value; "" for a flag), for the JSON's "job options".
    std::vector<std::pair<std::string, std::string>> given;
    bool write() const { return rw == "write" || rw == "randwrite"; }
    bool sequential() const { return rw == "read" || rw == "write"; }
    bool async() const { return ioengine == "libaio"; }
};

struct fio_params {
    double instructions_per_io = 5000; // fio's own user-space work per I/O
    double working_set_kib = 256;      // its io_u structures, buffers and statistics
    double accesses_per_kilo_instruction = 10;
};

class fio final : public workload {
public:
    fio(const fio_options& o, const fio_params& p, std::string command);
    // `fio --name=... [options]`; throws usage_error.
    static std::unique_ptr<fio> from_command_line(const std::vector<std::string>& args,
                                                  const std::string& command, workload_params& params);

    std::string command() const override { return command_; }
    void start(sim_kernel& k, const std::vector<bool>& allowed) override;
    bool finished() const override;
    void report(std::ostream& out) const override;
    // --output-format=json: the document fio 3.33 prints (show_run_stats_json), the keys in its order.
    void report_json(std::ostream& out) const;

    // fio's io_stat: Welford mean and variance with min and max.
    struct io_stat {
        std::uint64_t samples = 0;
        std::uint64_t min = ~0ull, max = 0;
        double mean = 0, s = 0;
        void add(std::uint64_t v);
        void merge(const io_stat& o);
    };
    // One job's thread_stat.
    struct job_stat {
        int pid = 0;
        bool started = false, done = false;
        std::uint64_t start_ns = 0, stop_ns = 0;
        std::uint64_t ios = 0, bytes = 0;
        io_stat slat, clat, lat, bw, iops;
        std::vector<std::uint64_t> clat_hist; // fio's io_u_plat buckets (ns)
        std::array<std::uint64_t, 10> lat_n{}, lat_u{};
        std::array<std::uint64_t, 12> lat_m{};
        std::array<std::uint64_t, 7> depth{}, submit{}, complete{};
        std::uint64_t total_submit = 0, total_complete = 0;
        double usr_s = 0, sys_s = 0;
        std::uint64_t ctx = 0;
        void merge(const job_stat& o);
        std::uint64_t runtime_ms() const { return (stop_ns - start_ns) / 1'000'000; }
    };
    struct result {
        std::vector<job_stat> jobs;
        bool done = false;
        std::uint64_t start_ns = 0, stop_ns = 0;
        std::uint64_t device_ios[2] = {0, 0}, device_sectors[2] = {0, 0}, device_ticks_ms[2] = {0, 0};
        std::uint64_t device_in_queue_ms = 0, device_busy_ns = 0;
        std::string device_name;
    };
    const result& outcome() const { return *result_; }
    // The reported units: every job, or the group as one with --group_reporting.
    std::vector<job_stat> reported_units() const;
    const fio_options& options() const { return o_; }

private:
    fio_options o_;
    fio_params p_;
    std::string command_;
    std::shared_ptr<result> result_ = std::make_shared<result>();
    std::shared_ptr<memory_profile> profile_ = std::make_shared<memory_profile>();
    sim_kernel* k_ = nullptr;
};

// fio's num2str(): `num` with at most `maxlen` digits (counting the point), an SI or IEC prefix, units
// 0 none, 1 "/s", 2 "B", 4 "B/s" -- "123k", "480MiB/s", "4096B".
std::string fio_num2str(std::uint64_t num, int maxlen, int base, bool pow2, int units);

} // namespace warmsched::workloads
