#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vhost-user-repro.sh [OUTDIR] : the smallest vhost-user setup under qemu/TCG (docs/howto/vms.md "vhost-user
# under TCG"). dpdk-testpmd serves one net_vhost port (under gdb, so a crash leaves a backtrace);
# the rocev2-vm guest (its kernel, memory-backend-memfd share=on) gets one virtio-net NIC on
# -netdev vhost-user, brings it up and pings through it (testpmd swaps MACs and sends every frame
# back). Extra device options for the NIC: VHU_DEVICE_OPTS (e.g. ",packed=off,mrg_rxbuf=off");
# extra qemu in front: VHU_QEMU_PREFIX (e.g. "gdb -batch -ex run -ex bt --args").
# Prints testpmd's backtrace or port counters and the guest's view of the NIC; exit 0 when frames
# crossed both ways.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$(mktemp -d /tmp/vhost-user.XXXXXX)}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
SOCK=$OUT/vhu.sock MEM=${ROCEV2_VM_MEM:-1024}
rm -f "$SOCK"
gdb -q -batch -ex 'set pagination off' -ex run -ex bt -ex 'info threads' -ex 'thread apply all bt 8' \
  --args dpdk-testpmd -l 0,1 --no-huge -m 512 --no-pci --no-shconf --log-level=lib.vhost:debug \
  --vdev "net_vhost0,iface=$SOCK,queues=1" -- --no-mlockall --total-num-mbufs 8192 \
  --port-topology=loop --forward-mode=macswap -a --stats-period 5 > "$OUT/testpmd.log" 2>&1 &
TP=$!
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.2; done
[ -S "$SOCK" ] || { echo "testpmd did not create $SOCK:"; tail -20 "$OUT/testpmd.log"; kill $TP; exit 1; }
export ROCEV2_VM_QEMU_PREFIX=${VHU_QEMU_PREFIX:-}
export ROCEV2_VM_QEMU_ARGS="-object memory-backend-memfd,id=mem,size=${MEM}M,share=on -machine memory-backend=mem
  -chardev socket,id=vhu0,path=$SOCK -netdev vhost-user,id=net0,chardev=vhu0
  -device virtio-net-pci,netdev=net0,mac=52:54:00:12:34:56${VHU_DEVICE_OPTS:-}"
# One line: rocev2-vm.sh quotes the command with printf %q, which writes newlines as $'\n' and
# the guest runs it with dash.
GUEST='modprobe virtio_net; sleep 1; ip -br link; dev=$(ls /sys/bus/virtio/drivers/virtio_net/*/net 2>/dev/null | head -n 1); echo "virtio-net device: ${dev:-none}"; [ -n "$dev" ] || exit 1; ip link set "$dev" up; ip addr add 10.9.0.2/24 dev "$dev"; ip neigh add 10.9.0.1 lladdr 02:00:00:00:00:01 dev "$dev"; ping -c 3 -W 2 10.9.0.1; ip -s link show "$dev"; echo "features: $(cat /sys/class/net/$dev/device/features)"'
"$HERE/rocev2-vm.sh" -q -t 400 -b 300 -o "$OUT/vm" -- sh -c "$GUEST"
rc=$?
kill -INT $TP 2>/dev/null; sleep 2; kill $TP 2>/dev/null; wait $TP 2>/dev/null
echo "---- guest console (end) ----"; tail -n 30 "$OUT/vm/console.log"
echo "---- testpmd (end) ----"; grep -v '^$' "$OUT/testpmd.log" | tail -n 40
exit $rc
