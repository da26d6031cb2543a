#!/bin/bash
# The model against the machine it runs on (docs/validation.md section 12): calibrate once, then each
# workload of the issue's list with `warmsched twin --native` (3 native runs and the model), and print per
# workload the figures the bar judges: the tool's own figure, the switches, the involuntary share and the
# CPU time, real (median and min-max over the native runs) beside the model.
#
#   bench/native/validate.sh [--build DIR] [--out DIR] [--platform FILE] [--repeat N] [--only REGEX]
#
# Results go to OUT/NAME/ (default build/native); OUT/platform.yaml is the calibration (reused when
# there, unless --platform names another). Run it on an idle host: a neighbour distorts native runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=build
out=
platform=
repeat=3
only=.
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --platform) platform=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        *) echo "validate.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$out" ] || out=$build/native
ws=$root/$build/warmsched
[ -x "$ws" ] || ws=$build/warmsched
mkdir -p "$out"
if [ -z "$platform" ]; then
    platform=$out/platform.yaml
    [ -f "$platform" ] || "$ws" calibrate -o "$platform" > "$out/calibrate.txt" || exit 1
fi

# NAME|ARGS (a command after --, or an experiment file)
rows=(
"pipe-1cpu|-- taskset -c 1 perf bench sched pipe -l 50000"
"pipe-2cpu|-- perf bench sched pipe -l 50000"
"pipe-threads|-- perf bench sched pipe -T -l 50000"
"hb-pipe-proc-g1|-- hackbench -p -g 1 -l 1000"
"hb-pipe-proc-g2|-- hackbench -p -g 2 -l 1000"
"hb-pipe-proc-g4|-- hackbench -p -g 4 -l 1000"
"hb-sock-proc-g1|-- hackbench -g 1 -l 1000"
"hb-sock-proc-g2|-- hackbench -g 2 -l 1000"
"hb-sock-proc-g4|-- hackbench -g 4 -l 1000"
"hb-pipe-thr-g1|-- hackbench -p -T -g 1 -l 1000"
"hb-pipe-thr-g2|-- hackbench -p -T -g 2 -l 1000"
"hb-pipe-thr-g4|-- hackbench -p -T -g 4 -l 1000"
"hb-sock-thr-g1|-- hackbench -T -g 1 -l 1000"
"hb-sock-thr-g2|-- hackbench -T -g 2 -l 1000"
"hb-sock-thr-g4|-- hackbench -T -g 4 -l 1000"
"tbench-1|-- tbench -t 3 1"
"tbench-2|-- tbench -t 3 2"
"tbench-4|-- tbench -t 3 4"
"cyclictest-hog|$here/cyclictest-hog.yaml"
"rt-app-periodic|-- rt-app $here/periodic.json"
)

# A row of comparison.txt: the name is 44 columns, then median, min - max, model, model/real.
field() { # FILE ROWNAME -> "median min max model ratio"
    grep -F -- "$2" "$1" | while IFS= read -r line; do
        [ "$(printf '%s' "${line:0:44}" | sed 's/ *$//')" = "$2" ] || continue
        set -- ${line:44}
        echo "$1 $2 $4 $5 $6"
        break
    done
}
printf '%-18s %-34s %-30s %-26s %-22s\n' row "tool figure: real [min-max] | model" "switches: real | model" "invol. share %: real | model" "CPU s: real | model"
for r in "${rows[@]}"; do
    name=${r%%|*}
    args=${r#*|}
    echo "$name" | grep -Eq -- "$only" || continue
    dir=$out/$name
    if [ ! -f "$dir/comparison.txt" ]; then
        rm -rf "$dir"
        (cd "$root" && "$ws" twin --native --platform "$platform" --repeat "$repeat" --out "$dir" $args) \
            > "$out/$name.log" 2>&1 || { echo "$name: failed ($(tail -1 "$out/$name.log"))"; continue; }
    fi
    c=$dir/comparison.txt
    tool=$(grep -E '^(perf bench sched pipe usecs/op|hackbench Time s|tbench Throughput MB/s|cyclictest max latency us) ' "$c" | head -1)
    tname=$(printf '%s' "${tool:0:44}" | sed 's/ *$//')
    t=$(field "$c" "$tname")
    s=$(field "$c" "context switches")
    i=$(field "$c" "  involuntary share %")
    u=$(field "$c" "workload CPU time s")
    fmt() { set -- $1; [ $# -ge 4 ] && printf '%s [%s-%s] | %s' "$1" "$2" "$3" "$4"; }
    printf '%-18s %-34s %-30s %-26s %-22s\n' "$name" "$(fmt "$t")" "$(set -- $s; echo "$1 | $4")" \
        "$(set -- $i; echo "$1 | $4")" "$(set -- $u; echo "$1 | $4")"
done
