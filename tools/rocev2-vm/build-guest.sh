#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# build-guest.sh [--cache DIR]: prepare, once, what rocev2-vm.sh boots: Debian's stock kernel
# (it has rdma_rxe as a module; the host kernel may have no RDMA at all), its module tree and a
# small initramfs that mounts the host's / over 9p. The kernel package is fetched with
# `apt-get download` and unpacked with dpkg-deb: it is never installed on the host.
#
# Cache layout ($ROCEV2_VM_CACHE, default ~/.cache/pfcswitch/rocev2-vm, about 200 MB):
#   vmlinuz  initrd.img  modules/lib/modules/<kver>/  kver  pkg  stamp
# The guest reads its modules from modules/ through the 9p root, so the cache must live on the
# host's root file system (any normal directory does). Rebuilt when this script, the initramfs
# init or the pinned package ($ROCEV2_VM_KPKG, e.g. linux-image-6.1.0-56-amd64) changes.
# Concurrent callers serialise on a lock file. Exit: 0 ready, 1 build failed (reason printed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${ROCEV2_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pfcswitch/rocev2-vm}
[ "${1:-}" = "--cache" ] && CACHE=$2

die() { echo "build-guest: $*" >&2; exit 1; }
for tool in apt-get apt-cache dpkg-deb depmod modprobe cpio gzip busybox; do
  command -v "$tool" >/dev/null || die "'$tool' not found (tools/install-deps.sh installs kmod, cpio, busybox-static)"
done
# The initramfs has no libc: busybox must be the static build.
BUSYBOX=$(command -v busybox)
if file -L "$BUSYBOX" 2>/dev/null | grep -q 'dynamically linked'; then
  die "$BUSYBOX is dynamically linked; install busybox-static"
fi

mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
exec 9>"$CACHE/.lock"
flock 9

STAMP=$(cat "$HERE/build-guest.sh" "$HERE/initramfs-init.sh" | sha256sum | cut -c1-16)
STAMP="$STAMP ${ROCEV2_VM_KPKG:-any}"
if [ -s "$CACHE/vmlinuz" ] && [ -s "$CACHE/initrd.img" ] && [ "$(cat "$CACHE/stamp" 2>/dev/null)" = "$STAMP" ]; then
  exit 0
fi

T0=$(date +%s)
PKG=${ROCEV2_VM_KPKG:-}
if [ -z "$PKG" ]; then
  # linux-image-amd64 is a metapackage; its first versioned dependency is the real image.
  PKG=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  [ -n "$PKG" ] || die "apt-cache cannot resolve linux-image-amd64 (run 'apt-get update' once, or pin ROCEV2_VM_KPKG)"
fi
echo "build-guest: preparing $PKG in $CACHE" >&2

WORK=$(mktemp -d "$CACHE/.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# apt-get download drops privileges to _apt when it can; give it a directory it may write.
chmod 777 "$WORK"
(cd "$WORK" && apt-get download -q "$PKG" >&2) || die "apt-get download $PKG failed (is the Debian archive reachable?)"
DEB=$(ls "$WORK"/*.deb 2>/dev/null | head -n 1)
[ -n "$DEB" ] || die "apt-get download produced no .deb for $PKG"
mkdir "$WORK/root"
dpkg-deb -x "$DEB" "$WORK/root"
KVER=$(ls "$WORK/root/lib/modules" | head -n 1)
[ -n "$KVER" ] && [ -f "$WORK/root/boot/vmlinuz-$KVER" ] || die "$PKG has no kernel image or module tree"
MODS="$WORK/root/lib/modules/$KVER"
[ -n "$(find "$MODS" -name 'rdma_rxe.ko*' | head -n 1)" ] || die "$PKG has no rdma_rxe module"

# Hardware driver trees the guest never loads: removing them cuts the cache by about 60 %.
for d in drivers/gpu drivers/media drivers/net/wireless drivers/net/ethernet drivers/staging \
         drivers/bluetooth drivers/iio drivers/usb drivers/scsi drivers/input drivers/hid \
         drivers/infiniband/hw sound net/wireless net/bluetooth net/mac80211; do
  rm -rf "$MODS/kernel/$d"
done
depmod -b "$WORK/root" "$KVER"

# Initramfs: static busybox, the modules needed to reach the 9p root (with their dependencies,
# in load order) and the stage-1 init.
IR="$WORK/initramfs"
mkdir -p "$IR"/{bin,dev,proc,sys,lower,rw,newroot,mods}
cp "$BUSYBOX" "$IR/bin/busybox"
cp "$HERE/initramfs-init.sh" "$IR/init"
chmod 755 "$IR/init"
for m in virtio_pci 9pnet_virtio 9p overlay; do
  modprobe -d "$WORK/root" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
  case "$ko" in
    *.ko) cp "$ko" "$IR/mods/" ;;
    *.ko.xz) xz -dc "$ko" > "$IR/mods/$(basename "${ko%.xz}")" ;;
    *.ko.zst) zstd -qdc "$ko" > "$IR/mods/$(basename "${ko%.zst}")" ;;
    *) die "unexpected module file $ko" ;;
  esac
  basename "${ko%.ko*}.ko" >> "$IR/mods/order"
done
[ -s "$IR/mods/order" ] || die "could not resolve the initramfs modules"
(cd "$IR" && find . | cpio -o -H newc --quiet | gzip -1) > "$WORK/initrd.img"

# Swap the new build in; a half-built cache never carries a valid stamp.
rm -f "$CACHE/stamp"
rm -rf "$CACHE/modules"
mkdir -p "$CACHE/modules/lib"
mv "$WORK/root/lib/modules" "$CACHE/modules/lib/modules"
mv "$WORK/root/boot/vmlinuz-$KVER" "$CACHE/vmlinuz"
mv "$WORK/initrd.img" "$CACHE/initrd.img"
echo "$KVER" > "$CACHE/kver"
echo "$PKG" > "$CACHE/pkg"
echo "$STAMP" > "$CACHE/stamp"
echo "build-guest: kernel $KVER ready in $CACHE ($(du -sm "$CACHE" | cut -f1) MB, $(( $(date +%s) - T0 )) s)" >&2
