#!/bin/sh
# The schedstat totals of published-benchmarks.md table D, from a run's /proc/schedstat snapshots
# (schedstat/v15-start.txt and v15-end.txt, every CPU summed): schedule() calls, the share of them that
# went idle, ttwu and the ttwu-local share, timeslices (pcount), and run-queue wait (run_delay) as a
# share of run time (rq_cpu_time). With a second run directory of the same workload at half the loops,
# the counts are the difference of the two (the start-up cancels) times SCALE / (LOOPS - LOOPS/2).
#
#   bench/published/schedstat_totals.sh RUN_DIR [HALF_RUN_DIR LOOPS SCALE]
set -eu
totals() { # DIR -> "sched_count sched_goidle ttwu ttwu_local rq_cpu_time run_delay pcount"
    for f in "$1/schedstat/v15-start.txt" "$1/schedstat/v15-end.txt"; do
        [ -r "$f" ] || { echo "schedstat_totals.sh: $f: cannot read" >&2; exit 2; }
    done
    awk '$1 ~ /^cpu[0-9]+$/ { s = (FILENAME ~ /end/) ? 1 : -1
             for (i = 4; i <= 10; i++) t[i] += s * $i }
         END { print t[4], t[5], t[6], t[7], t[8], t[9], t[10] }' "$1/schedstat/v15-start.txt" "$1/schedstat/v15-end.txt"
}
a=$(totals "$1")
if [ $# -ge 4 ]; then
    b=$(totals "$2")
    scale=$(awk -v l="$3" -v s="$4" 'BEGIN { print s / (l - int(l / 2)) }')
else
    b="0 0 0 0 0 0 0" scale=1
fi
echo "$a $b $scale" | awk '{ for (i = 1; i <= 7; i++) d[i] = ($i - $(i + 7)) * $15
    printf "schedule() %.0f; idle %.2f%%; ttwu %.0f, ttwu-local %.2f%%; timeslices %.0f; wait time %.2f%% of run time\n",
        d[1], 100 * d[2] / d[1], d[3], 100 * d[4] / d[3], d[7], 100 * d[6] / d[5] }'
