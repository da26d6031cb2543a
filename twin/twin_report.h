// The side-by-side table of `warmsched twin`: the same counters of the model and of the real kernel in
// the guest, each row "real | model | model/real", and the same for the model with time_dilation K (the
// machine K times slower, as slow as the guest: platforms/time_dilation.h). Counts show the ratio;
// shares (percent) show the difference in points; times are printed but marked: the guest runs under
// TCG up to 300x slower than the platform, so its seconds are not the platform's (docs/twin.md).
//
// Rows: context switches (voluntary, involuntary, the involuntary share, and the involuntary ones split
// into wakeup preemptions and the rest), migrations, wakeups (those onto another CPU than the waker's,
// onto an idle CPU, and those preempting the running task), the same per class when RT tasks ran, ttwu_count / ttwu_local, ttwu_wake_remote and ttwu_move_affine per
// domain level, load-balance runs and tasks pulled per level and idle type, active balance pushes,
// per-task CPU-time shares, and the tool's headline figure.
#pragma once

#include "twin/kernel_counters.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace warmsched::twin {

enum class row_kind { count, share, time };

struct twin_row {
    std::string name;
    double real = 0, model = 0;
    row_kind kind = row_kind::count;
    double dilated = 0; // the model with time_dilation (if there is a dilated run)
    // A native twin's repeats: `real` is their median, these their extremes (repeats 0: one real run).
    double real_min = 0, real_max = 0;
    unsigned repeats = 0;
};

// One side of the comparison.
struct side_counters {
    schedstat_counters sched; // end - start
    trace_counters trace;
    std::string tool_output;  // what the workloads printed
    std::vector<long> roots;  // each workload's root task, in the experiment's order (empty: unknown)
    std::vector<std::string> workload_names; // "0 /capped", ... (the real side's are used)
    bool has_schedstat = true; // false: a kernel without /proc/schedstat (CONFIG_SCHEDSTATS off): no such rows
    // User and system CPU time of the workload (s): the tools' rusage on the real side, the model's run
    // summary; < 0 when unknown.
    double user_s = -1, system_s = -1;
};

// `dilated`: the model's run with time_dilation, or nullptr.
std::vector<twin_row> make_rows(const side_counters& real, const side_counters& model,
                                const side_counters* dilated);

// A native twin's rows: one comparison per real repeat, each row's real value the median over the repeats,
// with their min and max. Rows that only some repeats have (a per-task row when the task count differs)
// take the repeats that have them.
std::vector<twin_row> make_repeat_rows(const std::vector<side_counters>& real_runs, const side_counters& model);

// The workload's headline figure from its output: hackbench/perf bench messaging "Time", perf bench
// sched pipe "usecs/op", cyclictest's largest "Max", fio's read/write bandwidth, tbench "Throughput".
struct headline {
    std::string name;
    double value = 0;
    row_kind kind = row_kind::time;
};
std::optional<headline> find_headline(const std::string& tool_output);

// `dilation`: the dilated run's factor (0: no dilated column).
void print_rows(std::ostream& out, const std::vector<twin_row>& rows, double dilation);
// comparison.json: {"rows": [{"name", "real", "model", "kind", "ratio"|"difference"}], "notes": [...]}
void write_rows_json(const std::string& path, const std::vector<twin_row>& rows, double dilation,
                     const std::vector<std::string>& notes);

} // namespace warmsched::twin
