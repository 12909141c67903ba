#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Stage 2 (PID 1 on the overlay root, started by initramfs-init.sh). Prepares a usable system
# (fresh /run for netns and DPDK runtime dirs, devpts, shm, bpffs), points /lib/modules at the
# cached module tree, loads what RoCEv2 over veth needs, mounts the extra read-write shares, then
# runs the command rocev2-vm.sh stored in /rocev2-out/cmd from the caller's working directory.
# Its exit status goes to /rocev2-out/rc; then the guest powers off at once (never by init exiting).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb LANG=C.UTF-8
export ROCEV2_OUT=/rocev2-out ROCEV2_IN_GUEST=1
O=$ROCEV2_OUT
up() { cut -d' ' -f1 /proc/uptime; }
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /dev/pts /dev/shm /run/netns
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# The host's own /lib/modules (for the host kernel) is useless here; the cache has the guest's.
rm -rf /lib/modules 2>/dev/null
ln -sfn "$(cat $O/.modules-dir)/lib/modules" /lib/modules
hostname rocev2-vm
ip link set lo up
if [ -f $O/.rw-mounts ]; then
  while read -r tag dir; do
    mkdir -p "$dir" && mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 "$tag" "$dir" \
      || echo "rocev2-vm: cannot mount read-write share $dir"
  done < $O/.rw-mounts
fi
echo "rocev2-vm: stage2 up at $(up)s, kernel $(uname -r)"
for m in ${ROCEV2_VM_MODULES:-rdma_rxe virtio_net veth bridge 8021q af_packet sch_ingress cls_flower act_skbedit}; do
  modprobe "$m" 2>/dev/null || echo "rocev2-vm: modprobe $m failed"
done
echo "rocev2-vm: modules loaded at $(up)s; running the command"
cd "$(cat $O/.cwd)" 2>/dev/null || cd /
sh $O/cmd </dev/null
rc=$?
echo "rocev2-vm: command exited rc=$rc at $(up)s"
dmesg > $O/dmesg.txt 2>/dev/null
echo $rc > $O/rc
# A clean end: nothing the command left running (captures, samplers, servers) still writes to
# the shares, then power off. PID 1 must never exit: the kernel panics when init dies
# ("Attempted to kill init!") and prints its stack trace over the user's terminal. So if
# systemctl's immediate power-off returns, the kernel is asked directly (sysrq o), and init waits.
kill -TERM -1 2>/dev/null; sleep 0.5; kill -KILL -1 2>/dev/null
sync
umount $O 2>/dev/null
poweroff -f
echo 1 > /proc/sys/kernel/sysrq 2>/dev/null; echo o > /proc/sysrq-trigger 2>/dev/null
while :; do sleep 1; done
