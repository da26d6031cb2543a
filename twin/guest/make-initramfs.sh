#!/bin/sh
# make-initramfs.sh OUT RUNNER RUNDIR [TOOL...]: packs the twin guest's initramfs (newc cpio, gzip) from
# this machine's installed Debian packages -- nothing is downloaded:
#   /init           twin/guest/init.sh
#   /bin/busybox    busybox-static (every other command of the guest is a busybox applet)
#   /bin/twin_runner  the static helper built with the project (twin/guest/twin_runner.cpp)
#   /usr/bin/TOOL   each workload tool (hackbench, cyclictest, perf, fio, rt-app, tbench, make, gcc,
#                   as, ...) with the shared libraries ldd lists for it, at the same paths; cc1 goes
#                   where the gcc driver looks for it
#   /twin/          RUNDIR: the run's setup.sh, start.sh, trace_buffer_kb and input files
set -eu
OUT=${1:?usage: make-initramfs.sh OUT RUNNER RUNDIR [TOOL...]}
RUNNER=$2
RUNDIR=$3
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
BUSYBOX=/bin/busybox
if [ ! -x "$BUSYBOX" ] || ldd "$BUSYBOX" >/dev/null 2>&1; then
    echo "make-initramfs: $BUSYBOX is not busybox-static's static binary (install busybox-static)" >&2
    exit 1
fi
command -v cpio >/dev/null || { echo "make-initramfs: no cpio (install cpio)" >&2; exit 1; }

ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/bin "$ROOT"/sbin "$ROOT"/usr/bin "$ROOT"/usr/sbin "$ROOT"/proc "$ROOT"/sys "$ROOT"/dev \
         "$ROOT"/tmp "$ROOT"/out "$ROOT"/etc
cp "$BUSYBOX" "$ROOT"/bin/busybox
cp "$RUNNER" "$ROOT"/bin/twin_runner
cp "$HERE"/init.sh "$ROOT"/init
chmod 755 "$ROOT"/init "$ROOT"/bin/twin_runner
cp -r "$RUNDIR" "$ROOT"/twin
echo "root:x:0:0:root:/:/bin/sh" > "$ROOT"/etc/passwd
echo "root:x:0:" > "$ROOT"/etc/group
echo "127.0.0.1 localhost" > "$ROOT"/etc/hosts

copy_with_libs() {
    src=$1 dst=$2
    mkdir -p "$ROOT$(dirname "$dst")"
    cp -L "$src" "$ROOT$dst"
    for lib in $(ldd "$src" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\/lib/ { print $1 }'); do
        [ -e "$ROOT$lib" ] && continue
        mkdir -p "$ROOT$(dirname "$lib")"
        cp -L "$lib" "$ROOT$lib"
    done
}
for tool in "$@"; do
    case $tool in
    cc1) # gcc's compiler proper, where the gcc driver looks for it (/usr/lib/gcc/<triplet>/<version>/)
        path=$(gcc -print-prog-name=cc1 2>/dev/null || true)
        [ -x "$path" ] || { echo "make-initramfs: no cc1 (install gcc)" >&2; exit 1; }
        copy_with_libs "$path" "$path"
        # cc1 includes it in every translation unit (the build's sources include nothing else)
        mkdir -p "$ROOT"/usr/include && cp /usr/include/stdc-predef.h "$ROOT"/usr/include/
        continue ;;
    esac
    path=$(command -v "$tool" || true)
    [ -n "$path" ] || { echo "make-initramfs: $tool is not installed (make deps installs the twin's tools)" >&2; exit 1; }
    copy_with_libs "$path" /usr/bin/"$tool"
done
# glibc loads libgcc_s at run time for pthread_exit and pthread_cancel (ldd does not list it): rt-app's
# threads abort at exit without it ("libgcc_s.so.1 must be installed for pthread_exit to work").
for lib in /lib/x86_64-linux-gnu/libgcc_s.so.1; do
    [ -e "$lib" ] && [ ! -e "$ROOT$lib" ] && mkdir -p "$ROOT$(dirname "$lib")" && cp -L "$lib" "$ROOT$lib"
done
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT"
