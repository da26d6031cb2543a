#!/bin/sh
# fetch-kernels.sh DIR: the Debian kernels the twin boots, unpacked into DIR/<name>/ (vmlinuz, config,
# package: the package name and version). Only Debian's own packages, through apt (`apt-get download`: nothing is
# installed into /boot and no boot loader hook runs). A kernel already unpacked is kept.
#
#   cloud-6.1   linux-image-cloud-amd64       Linux 6.1, CFS: the referee of --kernel cfs
#   rt-6.1      linux-image-rt-amd64          Linux 6.1 PREEMPT_RT: the referee of the RT class, cyclictest
#   cloud-6.12  linux-image-6.12-cloud-amd64  Linux 6.12, EEVDF: the referee of --kernel eevdf
set -eu
DIR=${1:?usage: fetch-kernels.sh DIR}
mkdir -p "$DIR"

fetch() {
    name=$1 meta=$2
    if [ -s "$DIR/$name/vmlinuz" ]; then return 0; fi
    pkg=$(apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
    if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
        apt-get update -q >/dev/null
        pkg=$(apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
    fi
    if [ -z "$pkg" ]; then
        echo "fetch-kernels: apt knows no package $meta (run apt-get update)" >&2
        exit 1
    fi
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get -q -o APT::Sandbox::User=root download "$pkg" >/dev/null)
    mkdir -p "$tmp/x" "$DIR/$name.new"
    dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp/x" ./boot
    cp "$tmp"/x/boot/vmlinuz-* "$DIR/$name.new/vmlinuz"
    cp "$tmp"/x/boot/config-* "$DIR/$name.new/config"
    echo "$(dpkg-deb -f "$tmp"/*.deb Package) $(dpkg-deb -f "$tmp"/*.deb Version)" > "$DIR/$name.new/package"
    rm -rf "$tmp" "$DIR/$name"
    mv "$DIR/$name.new" "$DIR/$name"
    echo "twin kernel $name: $(cat "$DIR/$name/package")"
}

fetch cloud-6.1 linux-image-cloud-amd64
fetch rt-6.1 linux-image-rt-amd64
fetch cloud-6.12 linux-image-6.12-cloud-amd64
