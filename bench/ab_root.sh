#!/bin/sh
# A/B bit-identity check of root-only (no cgroups) runs between two builds: for a refactoring that must
# not change behaviour (e.g. the per-queue plumbing of the hierarchical group scheduling plan), run the
# same fixed-seed experiments with both binaries and diff everything they write.
#
#   bench/ab_root.sh BASE_BUILD_DIR NEW_BUILD_DIR
#
# Runs (all --seed 1, each under --kernel cfs and --kernel eevdf):
#   default experiment (configs/experiments/default.yaml: hackbench -p -g 10 -l 100 on zen3-5950x)
#   zen3-5950x:  -- perf bench sched pipe -l 2000
#   zen3-5950x:  --trace -- hackbench -p -g 4 -l 50
#   clovertown-e5335-2s:  -- cyclictest -n -p 90 -t 8 -i 100 -d 100 -D 0.01
#   hardware probes (no scheduler): `probe c2c --sample 40` and `probe latency --max-footprint 64MiB` on
#   zen3-5950x and genoa-9654-2s, `probe migrate` on zen3-5950x (their lines sit at high addresses)
#   genoa-9654-2s: -- hackbench -p -g 24 -l 10; emr-8580-2s-snc2: -- hackbench -p -g 12 -l 20 (EEVDF: the
#   cross-socket, quadrant and mesh paths, and Intel's non-inclusive LLC)
#   grouped (zen3-5950x): a 2/2 cgroup tree, each level-1 group limited to 2 CPUs ("2000 1000": both
#   are throttled in nearly every 1 ms period), hackbench -p -g 1 -l 60 per leaf, under the per-cfs_rq
#   and (EEVDF) the task-based throttle models
# Compared: stdout and stderr minus the wall-time line ("... s wall ..."), and the whole results
# directory (report.txt/json, stats.txt/json, migration_report.json, config.yaml, schedstat/, trace.txt).
# Path-only differences are normalised: the results directory in the "results:" line and in the
# recorded command line (config.yaml's header, the JSON files' "run"), and the source tree of the
# default experiment named in config.yaml's header.
# Takes about 45 s on a quiet 2-core host. Prints one line per run; exits 1 on any difference
# (the first 40 lines of each diff are printed), 2 on a bad invocation or a failed run.
# Scratch files go to ${AB_OUT:-/tmp/ab_root.$$} (kept on a difference, removed otherwise).
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 BASE_BUILD_DIR NEW_BUILD_DIR" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
base=$(cd "$1" && pwd)/warmsched
new=$(cd "$2" && pwd)/warmsched
# The sides' directories are base/ and test/: names of one length, so that the sizes in manifest.txt of
# files that record the --out path agree.
test=$new
for b in "$base" "$new"; do
    [ -x "$b" ] || { echo "ab_root: no executable $b" >&2; exit 2; }
done
work=${AB_OUT:-/tmp/ab_root.$$}
rm -rf "$work"
mkdir -p "$work"
status=0

# run NAME ARGS...: one experiment with both binaries, then the diff
run() {
    name=$1
    shift
    for side in base test; do
        eval "bin=\$$side"
        dir="$work/$side"
        mkdir -p "$dir"
        rm -rf "${dir:?}/$name" # a run refuses a non-empty --out
        (cd "$repo" && "$bin" run --seed 1 --out "$dir/$name" "$@") > "$dir/$name.stdout" 2> "$dir/$name.stderr.raw"
        rc=$?
        grep -v ' s wall ' "$dir/$name.stderr.raw" > "$dir/$name.stderr"
        rm -f "$dir/$name.stderr.raw"
        # the results line names the directory: make it relative so both sides match; config.yaml names
        # the default experiment by the binary's source tree (runs after --): keep only configs/...
        sed -i "s|$dir/||g" "$dir/$name.stdout" "$dir/$name.stderr"
        # the recorded command line (config.yaml, the JSON files' "run") names the --out directory too
        [ -d "$dir/$name" ] && grep -rlF "$dir/" "$dir/$name" | xargs -r sed -i "s|$dir/||g"
        [ -f "$dir/$name/config.yaml" ] && sed -i 's|^# Experiment: .*/configs/|# Experiment: configs/|' "$dir/$name/config.yaml"
        if [ $rc -ne 0 ]; then
            echo "FAILED   $name ($side exit $rc): $(head -1 "$dir/$name.stderr")"
            status=2
            return
        fi
    done
    d=$(diff -r "$work/base/$name" "$work/test/$name" 2>&1;
        diff "$work/base/$name.stdout" "$work/test/$name.stdout";
        diff "$work/base/$name.stderr" "$work/test/$name.stderr")
    if [ -z "$d" ]; then
        echo "same     $name"
    else
        echo "DIFFERS  $name"
        printf '%s\n' "$d" | head -40 | sed 's/^/    /'
        [ $status -eq 0 ] && status=1
    fi
}

grouped="$work/grouped.yaml"
cat > "$grouped" <<'YAML'
description: ab_root grouped variant
platform: zen3-5950x
cgroup_generator:
  name: g
  fanout: [2, 2]
  level_1: {cpu.max: "2000 1000"}
  leaf_workload: hackbench -p -g 1 -l 60
YAML
for k in cfs eevdf; do
    run "default-$k" --kernel "$k" configs/experiments/default.yaml
    run "pipe-$k" --kernel "$k" --platform zen3-5950x -- perf bench sched pipe -l 2000
    run "hackbench-trace-$k" --kernel "$k" --platform zen3-5950x --trace -- hackbench -p -g 4 -l 50
    run "cyclictest-$k" --kernel "$k" --platform clovertown-e5335-2s -- cyclictest -n -p 90 -t 8 -i 100 -d 100 -D 0.01
    run "grouped-$k" --kernel "$k" "$grouped"
done
run "grouped-task-based-eevdf" --kernel eevdf "$grouped" --feature TASK_BASED_THROTTLE=on
# cross-socket and mesh paths: 24 LLCs and 8 homes over two sockets; Intel's non-inclusive LLC, SNC-2
run "hackbench-genoa-eevdf" --kernel eevdf --platform genoa-9654-2s -- hackbench -p -g 24 -l 10
run "hackbench-emr-snc2-eevdf" --kernel eevdf --platform emr-8580-2s-snc2 -- hackbench -p -g 12 -l 20

# probe NAME ARGS...: a hardware probe with both binaries; its stdout compared
probe() {
    name=$1
    shift
    for side in base test; do
        eval "bin=\$$side"
        mkdir -p "$work/$side"
        if ! "$bin" probe "$@" > "$work/$side/$name.stdout" 2> "$work/$side/$name.stderr"; then
            echo "FAILED   $name ($side): $(cat "$work/$side/$name.stderr" "$work/$side/$name.stdout" | grep -m1 -i error)"
            status=2
            return
        fi
    done
    if cmp -s "$work/base/$name.stdout" "$work/test/$name.stdout"; then
        echo "same     $name"
    else
        echo "DIFFERS  $name"
        diff "$work/base/$name.stdout" "$work/test/$name.stdout" | head -40 | sed 's/^/    /'
        [ $status -eq 0 ] && status=1
    fi
}
for p in zen3-5950x genoa-9654-2s; do
    probe "c2c-$p" c2c --platform "$p" --sample 40 --seed 1
    probe "latency-$p" latency --platform "$p" --max-footprint 64MiB
done
probe "migrate-zen3-5950x" migrate --platform zen3-5950x

if [ $status -eq 0 ]; then
    rm -rf "$work"
    echo "ab_root: identical"
else
    echo "ab_root: outputs differ or a run failed (kept in $work)"
fi
exit $status
