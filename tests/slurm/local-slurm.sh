#!/bin/sh
# A one-node Slurm cluster on this host for the sweep tests: munged, slurmctld and slurmd from Debian's
# munge and slurm-wlm, every file under DIR. `start DIR` writes DIR/slurm.conf, starts the daemons and
# waits until the node is idle; `stop DIR` stops them (by the pids they wrote into DIR). Clients find
# the cluster with SLURM_CONF=DIR/slurm.conf (printed by start). Runs as root (SlurmUser=root), needs no
# systemd. Why this configuration:
#   - NodeName=localhost and SlurmctldHost=localhost (NodeAddr 127.0.0.1): the cluster stays off the
#     network; slurmd accepts the name although the host is called otherwise (tried with host `vm`).
#   - proctrack/linuxproc and task/none: no cgroup file system is mounted in the sandbox (/sys/fs/cgroup
#     is empty), so the cgroup plugins cannot work; linuxproc tracks a job's processes by parent pid.
#   - munged runs as user munge with its socket, pid and log under DIR/munge (no /run/munge here); the
#     key is /etc/munge/munge.key, created with mungekey when the package did not make one.
# Left out: accounting (slurmdbd); sacct is not available, squeue is what the sweep polls.
set -eu
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
node=localhost

stop_pidfile() {
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    if kill "$pid" 2>/dev/null; then
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$1"
}

case "$cmd" in
start)
    for tool in munged slurmctld slurmd sinfo; do
        command -v $tool >/dev/null || { echo "local-slurm: $tool not found (apt-get install slurm-wlm munge)" >&2; exit 3; }
    done
    mkdir -p "$dir/munge" "$dir/spool" "$dir/state" "$dir/log"
    chown munge:munge "$dir/munge"
    chmod 700 "$dir/munge"
    if [ ! -s /etc/munge/munge.key ]; then
        mkdir -p /etc/munge
        mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null ||
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null
        chown munge:munge /etc/munge/munge.key
        chmod 400 /etc/munge/munge.key
    fi
    runuser -u munge -- munged --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" --force
    cpus=$(nproc)
    cat > "$conf" <<CONF
ClusterName=warmsched
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmdSpoolDir=$dir/spool
StateSaveLocation=$dir/state
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
MinJobAge=30
SchedulerParameters=sched_interval=1
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$conf"
    slurmctld -f "$conf"
    slurmd -f "$conf"
    i=0
    while :; do
        state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
        [ "$state" = idle ] && break
        i=$((i + 1))
        if [ $i -ge 300 ]; then
            echo "local-slurm: the node did not become idle in 30 s (state '$state'); see $dir/log" >&2
            exit 1
        fi
        sleep 0.1
    done
    echo "SLURM_CONF=$conf"
    ;;
stop)
    stop_pidfile "$dir/slurmd.pid"
    stop_pidfile "$dir/slurmctld.pid"
    stop_pidfile "$dir/munge/munged.pid"
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
