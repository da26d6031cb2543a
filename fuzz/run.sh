#!/bin/sh
# Runs the libFuzzer harnesses (fuzz/CMakeLists.txt) of a WARMSCHED_FUZZ build over their corpora.
#   fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]     (default: every harness)
# SECONDS 0: the regression run `make test` does -- every seed input once, no mutation, so the result
# is the same on every machine (a timed run explores at random and may find something new any time).
# Each harness starts from its seed corpus (shipped configs, rt-app's examples, hwloc's XMLs, ...) and a
# working corpus kept in BUILD_DIR/fuzz-corpus/<harness> (it grows from run to run); findings go to
# BUILD_DIR/fuzz-findings/. Prints one line per harness: executions, coverage, corpus, findings.
# Exit status 1 if any harness found a crash, a leak, a sanitizer report or a timeout (> FUZZ_TIMEOUT
# seconds of wall time on one input, default 10). libFuzzer's timeout is wall time: a harness run under
# `nice` beside builds can be starved past 10 s on an input that takes 0.1 s alone, and libFuzzer stops
# at the first timeout; FUZZ_TIMEOUT=60 keeps such a run going (a real hang still ends it).
set -u
build=${1:?usage: fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]}
seconds=${2:?usage: fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]}
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
harnesses=${*:-fuzz_platform_yaml fuzz_experiment_yaml fuzz_rtapp_json fuzz_workload_cli fuzz_compare_readers fuzz_import fuzz_compare_dir fuzz_sweep_file fuzz_policy_api}

seeds_of() {
    case $1 in
    fuzz_platform_yaml) echo "$src/configs/platforms" ;;
    fuzz_experiment_yaml) echo "$src/configs/experiments" ;;
    fuzz_rtapp_json) echo "/usr/share/doc/rt-app/examples" ;;
    fuzz_workload_cli) echo "$src/fuzz/corpus/workload_cli" ;;
    fuzz_compare_readers) echo "$src/fuzz/corpus/compare_readers" ;;
    fuzz_import) echo "$src/tests/data/hwloc $src/tests/data/this-machine $src/fuzz/corpus/import" ;;
    fuzz_compare_dir) echo "$src/fuzz/corpus/compare_dir" ;;
    fuzz_sweep_file) echo "$src/configs/sweeps $src/fuzz/corpus/sweep_file" ;;
    fuzz_policy_api) echo "$src/fuzz/corpus/policy_api" ;;
    esac
}

status=0
mkdir -p "$build/fuzz-findings"
for h in $harnesses; do
    bin="$build/fuzz/$h"
    [ -x "$bin" ] || { echo "fuzz/run.sh: $bin is not built (cmake -DWARMSCHED_FUZZ=ON)" >&2; exit 2; }
    work="$build/fuzz-corpus/$h"
    mkdir -p "$work"
    # libFuzzer reads files only: the seed directories' files, flattened (rt-app's examples are nested).
    seeds="$build/fuzz-seeds/$h"
    rm -rf "$seeds"
    mkdir -p "$seeds"
    for d in $(seeds_of "$h"); do
        [ -d "$d" ] && find "$d" -type f -size -1024k -exec sh -c 'cp "$1" "$2/$(echo "$1" | tr / _)"' _ {} "$seeds" \;
    done
    log="$build/fuzz-findings/$h.log"
    if [ "$seconds" = 0 ]; then
        how="-runs=0 $seeds"
    else
        how="-max_total_time=$seconds $work $seeds"
    fi
    # shellcheck disable=SC2086
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
        LSAN_OPTIONS=suppressions="$src/fuzz/lsan.supp" \
        "$bin" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-findings/$h-" $how > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    corp=$(ls "$work" | wc -l)
    # Findings are libFuzzer's crash-, leak-, timeout- and oom- artifacts. A slow-unit- file is an input that
    # took over 10 s once, which a busy host causes too: listed apart, and timed again by hand.
    findings=$(ls "$build/fuzz-findings" | grep -cE "^$h-(crash|leak|timeout|oom)-")
    slow=$(ls "$build/fuzz-findings" | grep -c "^$h-slow-unit-")
    echo "$h: ${seconds}s, ${execs:-0} executions, ${cov:-cov: ?}, corpus $corp, findings $findings, slow units $slow, exit $rc"
    if [ $rc -ne 0 ]; then
        status=1
        grep -m1 -E "ERROR: |SUMMARY: |runtime error" "$log" | sed "s/^/  $h: /"
    fi
done
exit $status
