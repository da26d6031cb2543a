#!/bin/bash
# Runs the model against the published tables of ../shared/reference/published-benchmarks.md
# (docs/validation.md, "Against published measurements") and prints, per table row, the published
# figure, the model's figure in the posting's units, and model / published.
#
#   bench/published/validate.sh [--build DIR] [--out DIR] [-j N] [--only REGEX] [--force] [--rows FILE] [--markdown]
#
# The rows are in bench/published/rows.txt: one line per published figure, with the warmsched run
# command that reproduces it (on the nearest platform, with the posting's kernel, loop counts scaled
# down). Results go to OUT/TABLE-ROW/ (default build/published); a row whose results are there is not
# run again unless --force. -j runs that many rows at once (default: the host's CPUs). --markdown prints the
# tables as docs/validation.md has them.
#
# How a model figure is made from a run:
#   s (hackbench, perf bench sched messaging): the posting ran POSTING_LOOPS loops, the model runs L
#     and S loops (MODEL_LOOPS is L, with S = L/2, or L:S). The per-loop time is the difference of the
#     two runs' simulated seconds (stats.txt simSeconds, to 0.1 us; the tools print milliseconds), over
#     L - S, so the start (the fork, the first messages) and the exit cancel; it is scaled to
#     POSTING_LOOPS. A run whose start-up lasts longer than L/2 loops takes S past it. "settled" is the L run's own printed
#     time per loop over that difference: near 1 when the run is past its start-up.
#   MB/s (tbench): the Throughput line.
#   pNN-us (schbench): the NN-th percentile of the wakeup latencies.
# Shape lines compare two rows' ratio (published A/B against model A/B): the same direction (a published
# ratio within 10% of 1 is a plateau, and the model's must be too), and the model's within 2x of it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=build
out=
jobs=$(nproc 2> /dev/null || echo 1)
only=.
force=0
md=0
rows=$here/rows.txt
while [ $# -gt 0 ]; do
    case $1 in
        --build | --out | -j | --only | --rows)
            [ $# -ge 2 ] || { echo "validate.sh: $1 needs a value (see --help)" >&2; exit 2; } ;;
    esac
    case $1 in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -j) jobs=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --force) force=1; shift ;;
        --rows) rows=$2; shift 2 ;;
        --markdown) md=1; shift ;;
        -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "validate.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "validate.sh: -j $jobs: expected a number of runs at once >= 1" >&2; exit 2; }
[ -n "$out" ] || out=$build/published
bin=$build/warmsched
[ -x "$bin" ] || { echo "validate.sh: $bin: not built (run make build)" >&2; exit 2; }
[ -r "$rows" ] || { echo "validate.sh: $rows: cannot read the rows file" >&2; exit 2; }
mkdir -p "$out"

# The row lines, checked once: TABLE ROW PUBLISHED UNIT POSTING_LOOPS MODEL_LOOPS ARGS...
mapfile -t lines < <(grep -v '^[[:space:]]*#' "$rows" | grep -v '^[[:space:]]*$' | grep -v '^shape ')
mapfile -t shapes < <(grep '^shape ' "$rows")
for l in "${lines[@]}"; do
    read -r t r p u pl ml args <<< "$l"
    case $u in s | MB/s | p[0-9]*-us) ;; *) echo "validate.sh: $rows: row $t/$r: unknown unit '$u'" >&2; exit 2 ;; esac
    [ -n "$args" ] || { echo "validate.sh: $rows: row $t/$r: no warmsched run arguments" >&2; exit 2; }
    if [ "$u" = s ] && { ! [[ $pl =~ ^[0-9]+$ ]] || ! [[ $ml =~ ^[0-9]+(:[0-9]+)?$ ]] ||
                             [ "${ml%%:*}" -lt 2 ] || { [[ $ml == *:* ]] && [ "${ml#*:}" -ge "${ml%%:*}" ]; }; }; then
        echo "validate.sh: $rows: row $t/$r: a time row needs posting and model loop counts, L or L:S with S < L (got '$pl' '$ml')" >&2
        exit 2
    fi
done

# A time row's two loop counts: MODEL_LOOPS is L (the shorter run L/2) or L:S.
loop_counts() { # MODEL_LOOPS -> sets $long $short
    long=${1%%:*}
    if [[ $1 == *:* ]]; then short=${1#*:}; else short=$((long / 2)); fi
}

# One warmsched run into DIR, unless it is there already (its report.txt ends with the results line).
run_one() { # DIR ARGS...
    local dir=$1
    shift
    if [ "$force" = 0 ] && [ -s "$dir.txt" ] && grep -q '^results: ' "$dir.txt"; then return 0; fi
    rm -rf "$dir" "$dir.txt"
    local start
    start=$(date +%s.%N)
    # shellcheck disable=SC2068
    "$bin" run --out "$dir" $@ > "$dir.txt" 2> "$dir.err" ||
        echo "FAILED: warmsched run $*: $(tail -1 "$dir.err")" >> "$dir.txt"
    awk -v a="$start" -v b="$(date +%s.%N)" -v c="$*" 'BEGIN { printf "wall %.1f s: warmsched run %s\n", b - a, c }' > "$dir.time"
}

# Each row's results directory: OUT/TABLE-ROW (time rows: -lL and -lL/2), or that of an earlier row with
# the same arguments, so a figure two tables share is simulated once.
declare -A dir_of_args
row_dir() { # TABLE ROW ARGS -> sets $dir
    if [ -n "${dir_of_args[$3]:-}" ]; then dir=${dir_of_args[$3]}; else dir=$out/$1-$2 && dir_of_args[$3]=$dir; fi
}
declare -a runs
for l in "${lines[@]}"; do
    read -r t r p u pl ml args <<< "$l"
    [[ "$t/$r" =~ $only ]] || continue
    if [ "$u" = s ]; then
        loop_counts "$ml"
        for k in "$long" "$short"; do
            row_dir "$t" "$r-l$k" "${args//@L/$k}"
            runs+=("$dir ${args//@L/$k}")
        done
    else
        row_dir "$t" "$r" "$args"
        runs+=("$dir $args")
    fi
done
export -f run_one
export bin force
printf '%s\n' "${runs[@]}" | sort -u | xargs -P "$jobs" -I{} bash -c 'run_one {}'

# The figures.
hb_time() { # FILE -> seconds, from rt-tests' "Time: X" or perf's "Total time: X [sec]"
    awk '/^Time: [0-9.]+$/ { t = $2 } /Total time: [0-9.]+ \[sec\]/ { t = $3 } END { if (t != "") print t }' "$1"
}
sim_seconds() { awk '$1 == "simSeconds" { print $2; exit }' "$1/stats.txt" 2> /dev/null; }
tb_rate() { awk '/^Throughput [0-9.]+ MB\/sec/ { v = $2 } END { if (v != "") print v }' "$1"; }
sb_pct() { # FILE PCT -> the wakeup latency percentile of schbench's last (final) report
    local want=$2.0th:
    case $2 in *.*) want=$2th: ;; esac # 99.9th, but 99.0th
    # "Wakeup Latencies percentiles" (schbench since 2023), "Latency percentiles" (--release 2021)
    awk -v want="$want" '/^(Wakeup Latencies|Latency) percentiles/ { w = 1; next } /^[^\t]/ { w = 0 }
        w { for (i = 1; i <= NF; i++) if ($i == want) v = $(i + 1) } END { if (v != "") print v }' "$1"
}
declare -A model published
row_fmt='%-5s %-26s %12s %12s %8s %9s  %s\n' shape_fmt='%-60s %10s %10s  %s\n'
[ "$md" = 1 ] && row_fmt='| %s | %s | %s | %s | %s | %s | %s |\n' shape_fmt='| %s | %s | %s | %s |\n'
# shellcheck disable=SC2059
printf "$row_fmt" table row published model ratio settled "within 2x"
[ "$md" = 1 ] && echo '|---|---|---|---|---|---|---|'
for l in "${lines[@]}"; do
    read -r t r p u pl ml args <<< "$l"
    [[ "$t/$r" =~ $only ]] || continue
    m= settled=-
    case $u in
        s)
            loop_counts "$ml"
            row_dir "$t" "$r-l$long" "${args//@L/$long}" && a=$(sim_seconds "$dir") && ta=$(hb_time "$dir.txt")
            row_dir "$t" "$r-l$short" "${args//@L/$short}" && b=$(sim_seconds "$dir")
            if [ -n "$a" ] && [ -n "$b" ] && [ -n "$ta" ]; then
                read -r m settled < <(awk -v a="$a" -v b="$b" -v ta="$ta" -v l="$long" -v h="$short" -v pl="$pl" 'BEGIN {
                    per = (a - b) / (l - h)
                    if (per <= 0) { print "-", "-"; exit }
                    printf "%.4g %.2f\n", per * pl, (ta / l) / per }')
            fi
            ;;
        MB/s) row_dir "$t" "$r" "$args" && m=$(tb_rate "$dir.txt") ;;
        p*-us) row_dir "$t" "$r" "$args" && pct=${u#p} && m=$(sb_pct "$dir.txt" "${pct%-us}") ;;
    esac
    if [ -z "$m" ] || [ "$m" = - ]; then
        # shellcheck disable=SC2059
        printf "$row_fmt" "$t" "$r" "$p" "(no result)" - - "see $out/$t-$r*.txt"
        continue
    fi
    model[$t/$r]=$m published[$t/$r]=$p
    awk -v f="$row_fmt" -v t="$t" -v r="$r" -v p="$p" -v m="$m" -v s="$settled" 'BEGIN {
        q = m / p; ok = (q >= 0.5 && q <= 2) ? "yes" : "no"
        printf f, t, r, p, m, sprintf("%.2f", q), s, ok }'
done
if [ ${#shapes[@]} -gt 0 ]; then
    echo
    # shellcheck disable=SC2059
    printf "$shape_fmt" shape published model "same direction, within 2x"
    [ "$md" = 1 ] && echo '|---|---|---|---|'
fi
for s in "${shapes[@]}"; do
    read -r _ a b name <<< "$s"
    [ -n "${model[$a]:-}" ] && [ -n "${model[$b]:-}" ] || continue
    awk -v f="$shape_fmt" -v n="$name ($a / $b)" -v pa="${published[$a]}" -v pb="${published[$b]}" -v ma="${model[$a]}" -v mb="${model[$b]}" 'BEGIN {
        p = pa / pb; m = ma / mb
        # A published ratio within 10% of 1 is a plateau: the model must be flat too (within 10%).
        if (p >= 0.9 && p <= 1.1) dir = (m >= 0.9 && m <= 1.1) ? "yes (flat)" : "no (published flat)"
        else dir = ((p - 1) * (m - 1) > 0) ? "yes" : "no"
        q = m / p; near = (q >= 0.5 && q <= 2) ? "yes" : "no"
        printf f, n, sprintf("%.3f", p), sprintf("%.3f", m), dir ", " near }'
done
exit 0
