#!/bin/busybox sh
# SPDX-License-Identifier: BSD-3-Clause
# Stage 1 (PID 1 in the initramfs built by build-guest.sh). Builds the guest's root as an overlay:
# the host's / shared read-only over 9p below, a tmpfs above (so the guest may write anywhere and
# the host is never modified), mounts the host's output directory read-write at /rocev2-out and
# hands over to stage 2 (guest-init.sh, copied there by rocev2-vm.sh). Any failure powers off
# without an exit status, which rocev2-vm.sh reports together with the console tail.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fatal() { echo "rocev2-vm: FATAL in stage 1: $*"; sync; poweroff -f; }
for m in $(cat /mods/order); do insmod "/mods/$m" || echo "rocev2-vm: insmod $m failed"; done
P9="trans=virtio,version=9p2000.L,msize=262144"
mount -t 9p -o "$P9,ro,cache=loose" hostroot /lower || fatal "cannot mount the host root (9p tag hostroot)"
# rv_tmpfs comes from the kernel command line (unknown key=value parameters become init's env).
mount -t tmpfs -o "size=${rv_tmpfs:-1g},mode=755" tmpfs /rw || fatal "cannot mount the tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot \
  || fatal "cannot mount the overlay root"
mkdir -p /newroot/rocev2-out
mount -t 9p -o "$P9" out /newroot/rocev2-out || fatal "cannot mount the output share (9p tag out)"
[ -f /newroot/rocev2-out/.guest-init.sh ] || fatal "no .guest-init.sh in the output share"
for d in proc sys dev; do mount --move "/$d" "/newroot/$d"; done
exec switch_root /newroot /bin/sh /rocev2-out/.guest-init.sh
