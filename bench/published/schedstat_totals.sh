#!/bin/sh
# The schedstat figures of published-benchmarks.md table D as `perf sched stats report` prints them in its
# "CPU <ALL CPUS SUMMARY>" block, which the posting quotes: every /proc/schedstat cpu field summed over the
# CPUs and divided by their count (tools/perf/builtin-sched.c summarize_schedstat_cpu: `+=`, then `/= cnt`
# on the last CPU), so per-CPU averages, not machine totals. The posting's own run time shows it: 9.07e9
# ns of rq_cpu_time in an 11.4 s run is one CPU's 79%, not 256 CPUs' 0.3%.
# Printed: schedule() calls (sched_count), the share that went idle (sched_goidle), ttwu (ttwu_count) and
# the ttwu-local share, timeslices (pcount), run-queue wait (run_delay) as a share of run time
# (rq_cpu_time), and the run time as a share of the run's simulated seconds (how busy a CPU was).
# From a run's schedstat/v15-start.txt and v15-end.txt; with a second run directory of the same workload
# at half the loops, the counts are the difference of the two (the start-up cancels) times
# SCALE / (LOOPS - LOOPS/2), and the busy share is over the difference of the two runs' simulated time.
#
#   bench/published/schedstat_totals.sh RUN_DIR [HALF_RUN_DIR LOOPS SCALE]
set -eu
per_cpu() { # DIR -> "sched_count sched_goidle ttwu ttwu_local rq_cpu_time run_delay pcount simulated_ns"
    for f in "$1/schedstat/v15-start.txt" "$1/schedstat/v15-end.txt" "$1/report.txt"; do
        [ -r "$f" ] || { echo "schedstat_totals.sh: $f: cannot read" >&2; exit 2; }
    done
    sim=$(sed -n 's/^simulated time *\([0-9.]*\) s$/\1/p' "$1/report.txt" | head -1)
    [ -n "$sim" ] || { echo "schedstat_totals.sh: $1/report.txt: no 'simulated time' line" >&2; exit 2; }
    awk -v sim="$sim" '$1 ~ /^cpu[0-9]+$/ { s = (FILENAME ~ /end/) ? 1 : -1
             if (s > 0) n++
             for (i = 4; i <= 10; i++) t[i] += s * $i }
         END { for (i = 4; i <= 10; i++) printf "%.3f ", t[i] / n; printf "%.0f\n", sim * 1e9 }' \
        "$1/schedstat/v15-start.txt" "$1/schedstat/v15-end.txt"
}
a=$(per_cpu "$1")
if [ $# -ge 4 ]; then
    b=$(per_cpu "$2")
    scale=$(awk -v l="$3" -v s="$4" 'BEGIN { print s / (l - int(l / 2)) }')
else
    b="0 0 0 0 0 0 0 0" scale=1
fi
echo "$a $b $scale" | awk '{ for (i = 1; i <= 8; i++) d[i] = $i - $(i + 8)
    printf "per CPU: schedule() %.0f; idle %.2f%%; ttwu %.0f, ttwu-local %.2f%%; timeslices %.0f; wait time %.2f%% of run time; run time %.1f%% of the run\n",
        d[1] * $17, 100 * d[2] / d[1], d[3] * $17, 100 * d[4] / d[3], d[7] * $17, 100 * d[6] / d[5], 100 * d[5] / d[8] }'
