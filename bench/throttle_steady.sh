#!/bin/bash
# Runs docs/validation.md section 8's bandwidth-throttling experiments in steady state (8.1) and prints
# their counters as one table: the 2/2/2/5/5 cgroup tree of configs/experiments/throttle-hackbench-*.yaml
# (8,000 hackbench -p tasks, a 50-CPU quota on each level-1 group) for DURATION simulated seconds, with
# 5,000 loops per leaf (at 2 s a few leaves finish; the table counts them), in eight variants: genoa and emr, the per-cfs_rq (v5.15/v6.12) and
# the task-based (v6.18) throttle model, each with and without NO_CROSS_LLC_BALANCE.
#
#   bench/throttle_steady.sh [--build DIR] [--out DIR] [-j N] [--only REGEX] [--duration 2s] [--warmup 0.3s]
#                            [--force]
#
# Results go to OUT/VARIANT/ (default build/throttle-steady), one warmsched results directory each, with
# VARIANT.txt (stdout), VARIANT.err and VARIANT.time (/usr/bin/time -v: wall, CPU, maximum RSS). A
# variant whose results are there is not run again unless --force. -j runs that many at once (default:
# the host's CPUs); one run at 2 s takes about half an hour of one host core and under 1 GB.
# The counters cover the run after its warm-up (--warmup, default 0.3s: by then 93-94% of the 8,000
# forks are done, docs/validation.md 8.1.1; 0s for the whole run); the simulated-s column then says
# from when to when. The leaves-done column counts the tools' own lines, which cover their whole run.
set -u
build=build
out=
jobs=$(nproc 2> /dev/null || echo 1)
only=.
duration=2s
warmup=0.3s
force=0
# util-linux getopt: long options, values as separate words or after '='.
opts=$(getopt -n throttle_steady.sh -o j:h --long build:,out:,only:,duration:,warmup:,force,help -- "$@") ||
    { echo "throttle_steady.sh: bad options (see --help)" >&2; exit 2; }
eval set -- "$opts"
while true; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -j) jobs=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --duration) duration=$2; shift 2 ;;
        --warmup) warmup=$2; shift 2 ;;
        --force) force=1; shift ;;
        -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
        --) shift; break ;;
    esac
done
[ $# -eq 0 ] || { echo "throttle_steady.sh: unexpected argument '$1' (see --help)" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "throttle_steady.sh: -j $jobs: expected a number of runs at once >= 1" >&2; exit 2; }
[[ $duration =~ ^[0-9]+(\.[0-9]+)?(s|ms)$ ]] || { echo "throttle_steady.sh: --duration $duration: expected seconds such as 2s or 500ms" >&2; exit 2; }
[[ $warmup =~ ^[0-9]+(\.[0-9]+)?(s|ms)$ ]] || { echo "throttle_steady.sh: --warmup $warmup: expected seconds such as 0.3s, or 0s for the whole run" >&2; exit 2; }
[ -n "$out" ] || out=$build/throttle-steady
bin=$build/warmsched
[ -x "$bin" ] || { echo "throttle_steady.sh: $bin: not built (run make build)" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "throttle_steady.sh: /usr/bin/time: not installed (apt-get install time)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"

task_based="--feature TASK_BASED_THROTTLE=on --feature THROTTLED_LB_PAIR=off --feature LB_THROTTLED_DEST=on"
no_cross="--feature NO_CROSS_LLC_BALANCE=on"
variants=(
    "genoa-cfsrq genoa"
    "genoa-task genoa $task_based"
    "genoa-cfsrq-nocross genoa $no_cross"
    "genoa-task-nocross genoa $task_based $no_cross"
    "emr-cfsrq emr"
    "emr-task emr $task_based"
    "emr-cfsrq-nocross emr $no_cross"
    "emr-task-nocross emr $task_based $no_cross"
)

run_one() { # NAME PLATFORM FLAGS...
    local name=$1 plat=$2 dir=$out/$1
    shift 2
    if [ "$force" = 0 ] && [ -s "$dir.txt" ] && grep -q '^results: ' "$dir.txt"; then return 0; fi
    rm -rf "$dir" "$dir.txt"
    # shellcheck disable=SC2068
    /usr/bin/time -v -o "$dir.time" "$bin" run "$here/configs/experiments/throttle-hackbench-$plat.yaml" \
        --out "$dir" -p "duration=$duration" -p "warmup=$warmup" \
        -p "cgroup_generator.leaf_workload=hackbench -p -g 1 -l 5000" \
        $@ > "$dir.txt" 2> "$dir.err" || echo "FAILED: $(tail -1 "$dir.err")" >> "$dir.txt"
}
export -f run_one
export bin out force duration warmup here
for v in "${variants[@]}"; do [[ ${v%% *} =~ $only ]] && echo "$v"; done |
    xargs -P "$jobs" -I{} bash -c 'run_one {}'

# CPU -> package, from the machine tree.
declare -A package_map
for plat in genoa-9654-2s emr-8580-2s; do
    package_map[$plat]=$("$bin" topology "$plat" |
        awk '/^ *Package L#/ { p = substr($2, 3) } /PU L#/ { gsub(/[()P#]/, "", $3); printf "%s:%s ", $3, p }')
done

stat() { awk -v k="$2" '$1 == k { print $2; exit }' "$1/stats.txt"; }
sum_stats() { awk -v re="$2" '$1 ~ re { s += $2 } END { printf "%.0f", s }' "$1/stats.txt"; }
sum_real() { awk -v re="$2" '$1 ~ re { s += $2 } END { printf "%.1f", s * 1e3 }' "$1/stats.txt"; } # seconds -> ms
busy_by_package() { # DIR PLATFORM -> "CPU-s on package 0 / package 1"
    awk -v map="${package_map[$2]}" -v sim="$(stat "$1" simSeconds)" '
        BEGIN { n = split(map, m, " "); for (i = 1; i <= n; i++) { split(m[i], a, ":"); pkg[a[1]] = a[2] } }
        $1 ~ /^system\.cpu[0-9]+\.idleSeconds$/ { c = $1; sub(/^system\.cpu/, "", c); sub(/\..*/, "", c); busy[pkg[c]] += sim - $2 }
        END { printf "%.1f / %.1f", busy[0], busy[1] }' "$1/stats.txt"
}
time_v() { # DIR KEY -> a /usr/bin/time -v field
    awk -F': ' -v k="$2" 'index($0, k) { print $2; exit }' "$1.time"
}

printf '| variant | simulated s | nr_throttled / nr_periods (tenant0, tenant1) | usage s (tenant0, tenant1) | throttled s (both) | CPU-s busy, package 0 / 1 | migrations | SMT / same LLC / other LLC / other node | refill stall ms | stacking misses: same CPU / SMT / other core | leaves done | memory accesses | wall, CPU s, max RSS | simulated s per wall s |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for v in "${variants[@]}"; do
    read -r name plat _ <<< "$v"
    [[ $name =~ $only ]] || continue
    d=$out/$name
    case $plat in genoa) platform=genoa-9654-2s ;; emr) platform=emr-8580-2s ;; esac
    if ! [ -s "$d.txt" ] || ! grep -q '^results: ' "$d.txt"; then
        printf '| %s | (no results: %s) |\n' "$name" "$(tail -1 "$d.txt" 2> /dev/null)"
        continue
    fi
    sim=$(stat "$d" simSeconds)
    warm=$(stat "$d" warmupSeconds)
    window=$sim
    [ -z "$warm" ] || window=$(awk -v w="$warm" -v s="$sim" 'BEGIN { printf "%g-%g", w, w + s }')
    c=kernel.cgroup./tenant
    throttled=$(awk -v a="$(stat "$d" ${c}0.throttled_usec)" -v b="$(stat "$d" ${c}1.throttled_usec)" 'BEGIN { printf "%.1f", (a + b) / 1e6 }')
    usage=$(awk -v a="$(stat "$d" ${c}0.usage_usec)" -v b="$(stat "$d" ${c}1.usage_usec)" 'BEGIN { printf "%.2f, %.2f", a / 1e6, b / 1e6 }')
    dist=""
    for k in smtSibling sameLLC otherLLC otherNode; do
        dist+="$(sum_stats "$d" "^kernel\\.migrationCost\\.[a-zA-Z]+\\.$k\\.migrations$") / "
    done
    stall=$(sum_real "$d" '^kernel\.migrationCost\.[a-zA-Z]+\.[a-zA-Z]+\.refill\.stallSeconds$')
    stacking="$(stat "$d" kernel.stacking.evictedBy::sameCpu) / $(stat "$d" kernel.stacking.evictedBy::smtSibling) / $(stat "$d" kernel.stacking.evictedBy::otherCore)"
    done_leaves=$(grep -c '^Time: [0-9]' "$d.txt")
    accesses=$(awk '$1 == "memory" && $2 == "accesses" { print $3; exit }' "$d.txt")
    wall=$(time_v "$d" "Elapsed (wall clock)")
    cpu=$(awk -v u="$(time_v "$d" "User time")" -v s="$(time_v "$d" "System time")" 'BEGIN { printf "%.0f", u + s }')
    rss=$(awk -v k="$(time_v "$d" "Maximum resident")" 'BEGIN { printf "%.0f MB", k / 1024 }')
    rate=$(awk '/^warmsched: .* simulated s in .* s wall/ { sim = $2; for (i = 1; i <= NF; i++) if ($i == "wall" && w == "") w = $(i - 2) }
        END { if (w > 0) printf "%.5f", sim / w }' "$d.err")
    printf '| %s | %s | %s / %s, %s / %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, %s | %s |\n' \
        "$name" "$window" "$(stat "$d" ${c}0.nr_throttled)" "$(stat "$d" ${c}0.nr_periods)" \
        "$(stat "$d" ${c}1.nr_throttled)" "$(stat "$d" ${c}1.nr_periods)" "$usage" "$throttled" \
        "$(busy_by_package "$d" "$platform")" "$(stat "$d" kernel.migrations)" "${dist% / }" "$stall" "$stacking" \
        "$done_leaves" "$accesses" "$wall" "$cpu" "$rss" "$rate"
done
