#!/bin/busybox sh
# /init of the twin's guest: a busybox initramfs on a Debian kernel (twin/guest/make-initramfs.sh packs
# it). It records the topology the kernel built, applies the run's scheduler settings and cgroups
# (/twin/setup.sh, written by `warmsched twin`), runs the workloads (/twin/start.sh) with ftrace on,
# and sends everything it collected in /out as a gzipped tar over the second serial port (ttyS1), where
# the host's QEMU writes it to a file. Progress lines on the console start with "TWIN:"; the host reads
# them to tell a guest that did not boot from one that failed later.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/usr/sbin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs tmpfs /tmp
ip link set lo up 2>/dev/null
echo "TWIN: booted $(cut -d' ' -f1 /proc/uptime)"
# A heartbeat for the host: a guest whose timer interrupts are lost under TCG goes silent (the host
# boots it again after 120 s without a console line). One wakeup of a shell every 10 s.
(while sleep 10; do echo "TWIN: alive $(cut -d' ' -f1 /proc/uptime)"; done) &
HEARTBEAT=$!

O=/out
mkdir -p $O
uname -r > $O/uname
cat /proc/cmdline > $O/cmdline
cat /sys/kernel/debug/sched/preempt > $O/preempt 2>/dev/null

# Topology as the guest kernel sees it: per CPU its package, die, core, L2 and LLC sharing, NUMA node.
for c in /sys/devices/system/cpu/cpu[0-9]*; do
    n=${c##*/cpu}
    node=$(ls -d $c/node* 2>/dev/null | head -n1)
    llc=$(ls -d $c/cache/index* | tail -n1)
    echo "cpu $n package $(cat $c/topology/physical_package_id) die $(cat $c/topology/die_id) core $(cat $c/topology/core_id) l2 $(cat $c/cache/index2/shared_cpu_list) llc $(cat $llc/shared_cpu_list) node ${node##*/node}"
done > $O/cpus.txt
for d in /sys/devices/system/node/node[0-9]*; do echo "${d##*/node} $(cat $d/distance)"; done > $O/node_distance.txt
for d in /sys/kernel/debug/sched/domains/cpu*/domain*; do
    cpu=${d%/domain*}
    echo "${cpu##*/cpu} ${d##*/domain} $(cat $d/name) $(cat $d/flags)"
done > $O/domains.txt

# The scheduler's tunables and features before the run's settings, then the settings.
for f in /sys/kernel/debug/sched/*; do [ -f "$f" ] && echo "${f##*/} $(head -c 4096 $f | tr '\n' ' ')"; done \
    > $O/sched_debug_before.txt 2>/dev/null
if [ -f /twin/setup.sh ]; then
    sh /twin/setup.sh > $O/setup.log 2>&1
    echo $? > $O/setup.exit
fi
for f in /sys/kernel/debug/sched/*; do [ -f "$f" ] && echo "${f##*/} $(head -c 4096 $f | tr '\n' ' ')"; done \
    > $O/sched_debug.txt 2>/dev/null

T=/sys/kernel/tracing
echo 0 > $T/tracing_on
cat /twin/trace_buffer_kb > $T/buffer_size_kb
echo > $T/trace
for e in sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task sched_process_fork \
         sched_process_exec sched_process_exit; do
    echo 1 > $T/events/sched/$e/enable
done
# --guest-kprobes: each event line is added and enabled; a line the kernel refuses is reported, with
# tracefs' error_log, and the host fails the run.
if [ -f /twin/kprobe_events ]; then
    while IFS= read -r l; do
        echo "$l" >> $T/kprobe_events 2>/dev/null || echo "$l" >> $O/kprobes_refused.txt
    done < /twin/kprobe_events
    [ -f $O/kprobes_refused.txt ] && cat $T/error_log > $O/kprobes_error_log.txt 2>/dev/null
    sed -n 's/^[pr][^:]*:\([^ ]*\) .*/\1/p' $T/kprobe_events | while read -r e; do
        echo 1 > $T/events/$e/enable
    done
fi
echo "TWIN: run start $(cut -d' ' -f1 /proc/uptime)"
cut -d' ' -f1 /proc/uptime > $O/uptime.start
cat /proc/schedstat > $O/schedstat.start
cat /proc/stat > $O/stat.start
echo 1 > $T/tracing_on
sh /twin/start.sh
echo 0 > $T/tracing_on
cat /proc/schedstat > $O/schedstat.end
cat /proc/stat > $O/stat.end
cut -d' ' -f1 /proc/uptime > $O/uptime.end
echo "TWIN: run end $(cut -d' ' -f1 /proc/uptime)"

for c in $T/per_cpu/cpu*; do echo "${c##*/cpu} $(grep -E '^(entries|overrun|dropped events):' $c/stats | tr '\n' ' ')"; done \
    > $O/trace_stats.txt
cat $T/trace > $O/trace.txt
dmesg > $O/dmesg.txt
for g in $(find /sys/fs/cgroup -mindepth 1 -type d); do
    p=${g#/sys/fs/cgroup}
    mkdir -p $O/cgroups$p
    for f in cpu.stat cpu.max cpu.weight cgroup.procs; do [ -f $g/$f ] && cat $g/$f > $O/cgroups$p/$f; done
done

kill $HEARTBEAT
stty -F /dev/ttyS1 raw -echo
(cd $O && tar -c . | gzip -1) > /dev/ttyS1
echo "TWIN: results sent"
poweroff -f
