#!/bin/bash
# Measures the loopback network path on this host and runs the same transactions in the model, for the
# calibration of the loopback stack's instruction budgets (docs/workloads.md, "The loopback stack").
#
#   bench/calibration/loopback.sh [--build DIR] [--runs N] [--seconds S] [--cpu C] [--platform NAME]
#
# Host side, everything pinned to CPU C (default 0), so that no IPI, idle exit or virtualisation exit
# is in the figure (on a VM a cross-CPU wakeup exits to the hypervisor; a same-CPU one does not):
#   - the core's clock under load (core_clock.c: a dependent imul chain);
#   - TCP_RR and UDP_RR, 1-byte request and response, and TCP_RR with tbench's ReadX reply size
#     (loopback_rr.c: netperf's request/response loop; netperf is not packaged for Debian);
#   - the same loop over two pipes with 4-byte messages (perf bench sched pipe's ping-pong): a
#     transaction's wakeups, switches and system calls without the network stack;
#   - real tbench with 1 client and its tbench_srv (Debian's dbench package), when installed.
# Each is the median of N runs (default 5) of S seconds (default 3). The second CPU must be idle: SMT
# siblings share the core, so a build next door halves the figures.
# Model side: the same commands on PLATFORM (default emr-8580-2s, the host's microarchitecture when it
# is a family 6 model 207 Xeon; any other host needs its own platform) at the measured clock, netperf -T
# C,C and taskset -c C tbench.
# Prints one line per measurement: host, model, model / host; then the scale of the stack budgets
# (tcp_*_instructions, udp_*_instructions) that makes the model's RR time beyond its pipe time equal the
# host's, from one more model run with the budgets at 0:
#   scale = (host_rr - host_pipe + model_pipe - model_rr0) / (model_rr - model_rr0), times per transaction.
# 1.00 means the shipped budgets are calibrated to this host.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=build
runs=5
seconds=3
cpu=0
platform=emr-8580-2s
while [ $# -gt 0 ]; do
    case $1 in
        --build | --runs | --seconds | --cpu | --platform)
            [ $# -ge 2 ] || { echo "loopback.sh: $1 needs a value" >&2; exit 2; } ;;
    esac
    case $1 in
        --build) build=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --cpu) cpu=$2; shift 2 ;;
        --platform) platform=$2; shift 2 ;;
        -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "loopback.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "loopback.sh: --runs $runs: expected a count >= 1" >&2; exit 2; }
[[ $seconds =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "loopback.sh: --seconds $seconds: expected seconds" >&2; exit 2; }
[[ $cpu =~ ^[0-9]+$ ]] || { echo "loopback.sh: --cpu $cpu: expected a CPU number" >&2; exit 2; }
bin=$build/warmsched
[ -x "$bin" ] || { echo "loopback.sh: $bin: not built (run make build)" >&2; exit 2; }
tools=$build/calibration
mkdir -p "$tools"
cc -O2 -o "$tools/core_clock" "$here/core_clock.c" || exit 1
cc -O2 -o "$tools/loopback_rr" "$here/loopback_rr.c" || exit 1

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
pin() { taskset -c "$cpu" "$@"; }
repeat() { for _ in $(seq "$runs"); do "$@"; done | awk '{ print $1 }' | median; }

echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), family $(grep -m1 'cpu family' /proc/cpuinfo | awk '{print $NF}') model $(grep -m1 '^model' /proc/cpuinfo | awk '{print $NF}'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
ghz=$(repeat pin "$tools/core_clock")
echo "clock under load: $ghz GHz (median of $runs)"

host_pipe=$(repeat pin "$tools/loopback_rr" pipe "$seconds" 4 4)
host_tcp=$(repeat pin "$tools/loopback_rr" tcp "$seconds" 1 1)
host_udp=$(repeat pin "$tools/loopback_rr" udp "$seconds" 1 1)
host_tcp_big=$(repeat pin "$tools/loopback_rr" tcp "$seconds" 1 15309)
host_tbench=
if command -v tbench > /dev/null && command -v tbench_srv > /dev/null; then
    pin tbench_srv > /dev/null 2>&1 &
    srv=$!
    sleep 1
    tb() { pin tbench -t "${seconds%.*}" 1 127.0.0.1 2> /dev/null | sed -n 's/^Throughput \([0-9.]*\) MB\/sec.*/\1/p'; }
    host_tbench=$(repeat tb)
    kill "$srv" 2> /dev/null
    wait "$srv" 2> /dev/null
fi

model() { # prints the model's figure of one run: $1 = what to extract, $2 = budgets (default|zero),
    local what=$1 budgets=$2 # rest = the workload command
    shift 2
    local dir
    dir=$(mktemp -d)
    if [ "$budgets" = zero ]; then # an experiment file: the stack's keys are per workload entry
        printf 'platform: %s\nworkloads:\n  - command: %s\n' "$platform" "$*" > "$dir/zero.yaml"
        for k in tcp_send tcp_recv udp_send udp_recv; do echo "    ${k}_instructions: 0" >> "$dir/zero.yaml"; done
        set -- "$dir/zero.yaml"
    else
        set -- --platform "$platform" -- "$@"
    fi
    "$bin" run -p "platform.core.frequency=${ghz}GHz" --out "$dir/out" "$@" > /dev/null 2>&1 ||
        { echo "loopback.sh: the model run '$*' failed" >&2; rm -rf "$dir"; echo nan; return; }
    case $what in
        rr) awk 'NF == 6 && $1 ~ /^[0-9]+$/ { print $6; exit }' "$dir/out/report.txt" ;;
        pipe) awk '$2 == "usecs/op" { print 1e6 / $1; exit }' "$dir/out/report.txt" ;;
        tbench) sed -n 's/^Throughput \([0-9.e+]*\) MB\/sec.*/\1/p' "$dir/out/report.txt" ;;
    esac
    rm -rf "$dir"
}
model_pipe=$(model pipe default taskset -c "$cpu" perf bench sched pipe -l 20000)
model_tcp=$(model rr default netperf -t TCP_RR -l 0.02 -T "$cpu,$cpu")
model_udp=$(model rr default netperf -t UDP_RR -l 0.02 -T "$cpu,$cpu")
model_tcp0=$(model rr zero netperf -t TCP_RR -l 0.02 -T "$cpu,$cpu")
model_udp0=$(model rr zero netperf -t UDP_RR -l 0.02 -T "$cpu,$cpu")
model_tcp_big=$(model rr default netperf -t TCP_RR -l 0.02 -T "$cpu,$cpu" -- -r 1,15309)
model_tbench=$(model tbench default taskset -c "$cpu" tbench -t 0.05 1)

row() { awk -v n="$1" -v h="$2" -v m="$3" -v u="$4" 'BEGIN {
    if (h == "") { printf "%-34s %12s %12s %8s\n", n, "-", m, "-"; exit }
    printf "%-34s %12.0f %12.0f %8.2f  %s\n", n, h, m, m / h, u }'; }
printf "%-34s %12s %12s %8s\n" "one CPU, $platform at $ghz GHz" host model model/host
row "pipe RR 4/4" "$host_pipe" "$model_pipe" trans/s
row "TCP_RR 1/1" "$host_tcp" "$model_tcp" trans/s
row "UDP_RR 1/1" "$host_udp" "$model_udp" trans/s
row "TCP_RR 1/15309" "$host_tcp_big" "$model_tcp_big" trans/s
row "tbench 1 client" "$host_tbench" "$model_tbench" MB/s
scale() { awk -v h="$1" -v hp="$host_pipe" -v m="$2" -v mp="$model_pipe" -v m0="$3" 'BEGIN {
    printf "%.3f (host %.2f us beyond the pipe, model %.2f us, of which the budgets %.2f us)\n",
        (1e6 / h - 1e6 / hp + 1e6 / mp - 1e6 / m0) / (1e6 / m - 1e6 / m0), 1e6 / h - 1e6 / hp, 1e6 / m - 1e6 / mp, 1e6 / m - 1e6 / m0 }'; }
echo "tcp budget scale: $(scale "$host_tcp" "$model_tcp" "$model_tcp0")"
echo "udp budget scale: $(scale "$host_udp" "$model_udp" "$model_udp0")"
