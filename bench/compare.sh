#!/bin/sh
# Interleaved A/B speed comparison of two builds, for a change that touches a hot path. This host's
# wall-clock figures swing 2-3x with its neighbours (issue 16), so absolute figures from different
# sittings cannot be compared; this runs the benchmark set on both builds in one sitting, alternating
# which build goes first in each round, and prints each benchmark's median per build and the ratio.
#
#   bench/compare.sh [--rounds N] [--full] BASE_BUILD_DIR NEW_BUILD_DIR
#
# The set (each one run per build per round):
#   cache L1/L2/LLC/DRAM   bench/cache_throughput zen3-5950x 20: accesses per second of each stream
#   hackbench zen3 g10 l100   warmsched run --platform zen3-5950x -- hackbench -p -g 10 -l 100 (EEVDF)
#   hackbench zen3 g10 l1000  the same with -l 1000 (issue 16's first target)
#   --full adds: hackbench genoa g200 l100  (--platform genoa-9654-2s, about 2-5 min per run)
#                schbench zen3 m2 t8 r0.1   (--platform zen3-5950x -- schbench -m 2 -t 8 -r 0.1: compute)
# After the table, the host work per simulated access of each run and stream (the structures the
# hardware model visited, models/common/host_visits.h), from the first round, for builds that print it.
# Wall seconds and peak memory (GNU time's %e and %M) for the runs, accesses/s for the cache streams.
# Ratios are NEW/BASE for throughput (above 1: NEW is faster) and BASE/NEW for wall time (the same
# sense: above 1, NEW is faster). Rounds default to 3 (the median of 3). Exit status 2 for a bad
# invocation or a benchmark that failed; scratch output in ${AB_OUT:-/tmp/compare.$$}, removed at the end.
set -u
rounds=3
full=0
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) [ $# -ge 2 ] || { echo "compare: --rounds needs a number" >&2; exit 2; }
              rounds=$2; shift 2 ;;
    --full) full=1; shift ;;
    --) shift; break ;;
    -*) echo "compare: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
case $rounds in ''|*[!0-9]*|0) echo "compare: --rounds must be a positive integer (it is '$rounds')" >&2; exit 2 ;; esac
if [ $# -ne 2 ]; then
    echo "usage: $0 [--rounds N] [--full] BASE_BUILD_DIR NEW_BUILD_DIR" >&2
    exit 2
fi
[ -x /usr/bin/time ] || { echo "compare: needs GNU time (/usr/bin/time, Debian package time)" >&2; exit 2; }
for d in "$1" "$2"; do
    [ -x "$d/warmsched" ] || { echo "compare: no executable $d/warmsched" >&2; exit 2; }
    [ -x "$d/bench/cache_throughput" ] || { echo "compare: no executable $d/bench/cache_throughput" >&2; exit 2; }
done
base=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
out=${AB_OUT:-/tmp/compare.$$}
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT

runs="hackbench_zen3_g10_l100|--platform zen3-5950x -- hackbench -p -g 10 -l 100
hackbench_zen3_g10_l1000|--platform zen3-5950x -- hackbench -p -g 10 -l 1000"
[ $full = 1 ] && runs="$runs
hackbench_genoa_g200_l100|--platform genoa-9654-2s -- hackbench -p -g 200 -l 100
schbench_zen3_m2_t8_r0.1|--platform zen3-5950x -- schbench -m 2 -t 8 -r 0.1"

# one_build SIDE DIR ROUND: every benchmark once with the build in DIR; appends "name side value" lines.
one_build() {
    side=$1 dir=$2 round=$3
    if ! "$dir/bench/cache_throughput" zen3-5950x 20 > "$out/cache.$side.$round" 2>&1; then
        echo "compare: cache_throughput failed with $dir (see $out/cache.$side.$round)" >&2; trap - EXIT; exit 2
    fi
    awk -v s="$side" '/ hits | misses /{ print "cache_" $1 "_accesses/s", s, $NF }' \
        "$out/cache.$side.$round" >> "$out/values"
    echo "$runs" | while IFS='|' read -r name args; do
        # shellcheck disable=SC2086
        rm -rf "${out:?}/r.$side" # a run refuses a non-empty --out
        if ! /usr/bin/time -f "%e %M" -o "$out/time.$side" "$dir/warmsched" run --out "$out/r.$side" $args \
            > "$out/$name.$side.$round" 2>&1; then
            echo "compare: $name failed with $dir (see $out/$name.$side.$round)" >&2; exit 2
        fi
        read -r wall kb < "$out/time.$side"
        echo "${name}_wall_s $side $wall" >> "$out/values"
        echo "${name}_peak_MB $side $(awk -v k="$kb" 'BEGIN { printf "%.0f", k / 1024 }')" >> "$out/values"
        rm -rf "$out/r.$side"
    done || { trap - EXIT; exit 2; }
}

: > "$out/values"
r=1
while [ $r -le "$rounds" ]; do
    echo "round $r of $rounds ..." >&2
    if [ $((r % 2)) = 1 ]; then one_build base "$base" $r; one_build new "$new" $r
    else one_build new "$new" $r; one_build base "$base" $r; fi
    r=$((r + 1))
done

echo "# bench/compare.sh: median of $rounds interleaved rounds; base $base, new $new"
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "# ratio: above 1, NEW is faster (accesses/s new/base, wall base/new); for peak_MB, new/base (above 1: NEW uses more)"
printf '%-40s %14s %14s %8s\n' benchmark base new ratio
sort -k1,1 -s "$out/values" | awk '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { v[$1, $2] = v[$1, $2] " " $3; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
    END {
        for (i = 1; i <= k; i++) {
            b = median(v[order[i], "base"]); n = median(v[order[i], "new"])
            # Throughput: new/base. Wall time: base/new. Memory: new/base (below 1: NEW uses less).
            if (order[i] ~ /_wall_s$/) s = n > 0 ? b / n : 0
            else s = b > 0 ? n / b : 0
            printf "%-40s %14.4g %14.4g %8.2f\n", order[i], b, n, s
        }
    }'
for side in base new; do
    grep -q 'host work' "$out/cache.$side.1" 2>/dev/null || continue
    echo "# host work of $side, per simulated access:"
    awk '/ hits | misses /{ name = $1 " " $2 } /host work/{ sub(/.*per simulated access: /, ""); printf "#   cache %-10s %s\n", name, $0 }' "$out/cache.$side.1"
    echo "$runs" | while IFS='|' read -r name args; do
        sed -n 's/.*host work per simulated access: /#   '"$name"' /p' "$out/$name.$side.1"
    done
done
