#!/bin/sh
# The hackbench sweep of issue 4's acceptance (docs/validation.md, "Scheduler: hackbench"): hackbench -p
# on zen3-5950x at 1, 4, 12 and 30 groups under CFS (v5.15), CFS with the WAKEE_FLIPS_COUPLE patch,
# CFS with SCALE_WAKEUP_GRAN, and EEVDF (v6.12); then the same 4-group run restricted to one CCD
# (taskset) and free on both. Prints one line per run with the time and the counters that explain it.
#
#   bench/hackbench_sweep.sh [BUILD_DIR] [LOOPS]        (defaults: build, 100)
set -e
build=${1:-build}
loops=${2:-100}
out=${OUT:-$build/sweep-results}
mkdir -p "$out"
row() { # name, then warmsched run arguments
    name=$1
    shift
    rm -rf "${out:?}/$name" # a run refuses a non-empty --out
    "$build/warmsched" run --out "$out/$name" "$@" > "$out/$name.txt" 2> /dev/null
    awk -v n="$name" '
        /^Time:/ { t = $2 }
        /^migrations/ { mig = $2 }
        /^wake placement/ { aff = $3; att = $8 }
        /^wakeups/ { wk = $2; gsub(/[(,]/, "", $6); remote = $6 }
        /^load balancing/ { gsub(/,/, "", $5); gsub(/,/, "", $8); split($5, r, "/"); split($8, g, "/"); lb = r[3] "/" g[3] }
        /^memory accesses/ { gsub(/[(,]/, "", $13); other = $13 }
        /^all / { refill = $3; stall = $(NF - 1) }
        END { printf "%-24s time %6s s  migrations %7s  wakeups %7s (remote %6s)  affine %6s/%-6s  newidle runs/pulls %s  other-L3 %6s  refill misses %s (%s us)\n",
                     n, t, mig, wk, remote, aff, att, lb, other, refill, stall }' "$out/$name.txt"
}
for g in 1 4 12 30; do
    row "cfs-g$g" --kernel cfs -- hackbench -p -g "$g" -l "$loops"
    row "cfs-flips-g$g" --kernel cfs --feature WAKEE_FLIPS_COUPLE=on -- hackbench -p -g "$g" -l "$loops"
    row "cfs-gran-g$g" --kernel cfs --feature SCALE_WAKEUP_GRAN=on -- hackbench -p -g "$g" -l "$loops"
    row "eevdf-g$g" --kernel eevdf -- hackbench -p -g "$g" -l "$loops"
done
# One CCD (CPUs 0-7 and their SMT siblings 16-23) against both CCDs.
row "one-ccd-g4" -- taskset -c 0-7,16-23 hackbench -p -g 4 -l "$loops"
row "two-ccds-g4" -- hackbench -p -g 4 -l "$loops"
