#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rocev2-vm.sh [options] -- COMMAND [ARGS...]
# Runs COMMAND as root inside a throw-away qemu guest whose kernel has soft-RoCE (rdma_rxe), in
# the caller's working directory. The guest's root is this host's own / (read-only 9p with a
# tmpfs overlay), so installed packages (rdma-core, perftest, DPDK) and any build tree are at the
# same paths; writes are discarded at poweroff except in OUTDIR and the -w directories.
#
# Options:
#   -o OUTDIR   host directory for results, mounted read-write as $ROCEV2_OUT in the guest
#               (default: a new /tmp/rocev2-vm.XXXXXX). Holds console.log, dmesg.txt, rc.
#   -t SEC      overall time limit (default $ROCEV2_VM_TIMEOUT or 600)
#   -b SEC      time limit for the guest to reach stage 2 (default $ROCEV2_VM_BOOT_TIMEOUT or 120)
#   -m MB, -c N guest memory (default 1024) and vCPUs (default 2)
#   -w DIR      share DIR read-write at the same path (repeatable)
#   -n SOCK=MAC a virtio-net NIC with MAC on vhost-user socket SOCK (repeatable): qemu is the
#               client and reconnects every second, so the switch serving SOCK (DPDK net_vhost,
#               the server) may start after qemu and may be restarted while the guest runs.
#               Guest memory is then a shared memfd (the switch maps it).
#   -q          do not copy the guest console to stdout (it is still in OUTDIR/console.log)
#   --cache DIR guest kernel cache (default $ROCEV2_VM_CACHE or ~/.cache/pfcswitch/rocev2-vm)
# Exit status: COMMAND's status; 77 a host prerequisite is missing (message says which);
# 97 the guest kernel could not be prepared; 99 the guest gave no status (boot hang, kernel
# panic, time limit), reported with the tail of the console.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="" TMO=${ROCEV2_VM_TIMEOUT:-600} BOOT_TMO=${ROCEV2_VM_BOOT_TIMEOUT:-120}
MEM=${ROCEV2_VM_MEM:-1024} CPUS=${ROCEV2_VM_CPUS:-2} QUIET=0 RW=() NICS=()
# KVM is not used by default: on the project's machines /dev/kvm is a PVM flavour that cannot
# run a stock kernel (the boot hangs). Multi-threaded TCG works everywhere.
ACCEL=${ROCEV2_VM_ACCEL:-tcg,thread=multi,tb-size=256}
export ROCEV2_VM_CACHE=${ROCEV2_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pfcswitch/rocev2-vm}
usage() { sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -o) OUT=$2; shift 2 ;;
    -t) TMO=$2; shift 2 ;;
    -b) BOOT_TMO=$2; shift 2 ;;
    -m) MEM=$2; shift 2 ;;
    -c) CPUS=$2; shift 2 ;;
    -w) [ -d "$2" ] || { echo "rocev2-vm: -w $2: not a directory" >&2; exit 2; }
        RW+=("$(cd "$2" && pwd)"); shift 2 ;;
    -n) [[ "$2" =~ ^[^=]+=([0-9a-f]{2}:){5}[0-9a-f]{2}$ ]] ||
          { echo "rocev2-vm: -n $2: expected SOCKET=MAC (MAC as 52:54:00:00:00:0a)" >&2; exit 2; }
        NICS+=("$2"); shift 2 ;;
    -q) QUIET=1; shift ;;
    --cache) ROCEV2_VM_CACHE=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    -*) echo "rocev2-vm: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage
say() { echo "rocev2-vm: $*" >&2; }

# Nothing is installed here: a missing prerequisite is a skip (77) with the package to install.
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=("qemu-system-x86_64 (package qemu-system-x86)")
for t in busybox cpio depmod dpkg-deb apt-get bc; do command -v $t >/dev/null || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "missing host prerequisites: ${missing[*]}; run tools/install-deps.sh (as root)"
  exit 77
fi
"$HERE/build-guest.sh" || { say "could not prepare the guest kernel (see above)"; exit 97; }
CACHE=$(cd "$ROCEV2_VM_CACHE" && pwd)

[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/rocev2-vm.XXXXXX)
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
rm -f "$OUT/rc" "$OUT/.rw-mounts" "$OUT/console.log" "$OUT/dmesg.txt"
cp "$HERE/guest-init.sh" "$OUT/.guest-init.sh"
echo "$CACHE/modules" > "$OUT/.modules-dir"
pwd > "$OUT/.cwd"
printf '%q ' "$@" > "$OUT/cmd"; echo >> "$OUT/cmd"

SHARES=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
        -virtfs "local,path=$OUT,mount_tag=out,security_model=none,multidevs=remap")
i=0
for d in "${RW[@]}"; do
  SHARES+=(-virtfs "local,path=$d,mount_tag=rw$i,security_model=none,multidevs=remap")
  echo "rw$i $d" >> "$OUT/.rw-mounts"; i=$((i + 1))
done

# vhost-user NICs (docs/howto/vms.md). vectors=0: qemu 7.2 under TCG crashes
# in its MSI-X vector notifier when a vhost backend starts on an MSI-X virtio-pci device (a
# KVM-only irqfd path); with INTx it works. The memory backend must be shared and as big as -m.
# No checksum or segmentation offloads: when qemu reconnects to another backend it must offer
# every feature the guest already acknowledged ("vhost lacks feature mask 0x4001 for backend":
# DPDK's vhost library offers CSUM and HOST_UFO, Open vSwitch does not), so the NIC offers only
# what any switch can take; frames leave the guest complete, as the switches need them anyway.
NOOFF=csum=off,guest_csum=off,host_tso4=off,host_tso6=off,host_ecn=off,host_ufo=off
NOOFF+=,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off
# ROCEV2_VM_NIC_OPTS appends options to every vhost-user NIC (",opt=val,..."), for experiments.
NOOFF+=${ROCEV2_VM_NIC_OPTS:-}
VHU=()
i=0
for n in "${NICS[@]}"; do
  VHU+=(-chardev "socket,id=vhu$i,path=${n%%=*},reconnect=1" -netdev "vhost-user,id=vhn$i,chardev=vhu$i"
        -device "virtio-net-pci,netdev=vhn$i,mac=${n#*=},vectors=0,$NOOFF")
  i=$((i + 1))
done
[ $i -gt 0 ] && VHU=(-object "memory-backend-memfd,id=mem,size=${MEM}M,share=on" -machine memory-backend=mem "${VHU[@]}")

# tsc=reliable clocksource=tsc: under TCG the kernel otherwise falls back to HPET, and perftest's
# cycle-counter calibration then fails now and then ("Correlation coefficient r^2 < 0.9").
# panic=-1 with -no-reboot turns a panic into a qemu exit instead of a reboot loop.
# no_timer_check: on a busy host TCG delivers the boot-time timer interrupts too late for the
# kernel's IO-APIC check, which then panics ("IO-APIC + timer doesn't work!"; seen here with the
# load average at 12 on 2 cores); virtual machines skip that check.
APPEND="console=ttyS0 panic=-1 oops=panic quiet loglevel=3 no_timer_check tsc=reliable clocksource=tsc rv_tmpfs=${ROCEV2_VM_TMPFS:-1g} ${ROCEV2_VM_APPEND:-}"
say "booting $(cat "$CACHE/kver") (accel=$ACCEL, $CPUS vCPU, $MEM MiB, limit ${TMO}s), output in $OUT"
T0=$(date +%s.%N)
: > "$OUT/console.log"
# ROCEV2_VM_QEMU_PREFIX (e.g. "gdb -batch -ex run -ex bt --args") and ROCEV2_VM_QEMU_ARGS (extra
# devices, e.g. a vhost-user NIC: docs/howto/vms.md, "vhost-user under TCG") are for investigations.
${ROCEV2_VM_QEMU_PREFIX:-} qemu-system-x86_64 -accel "$ACCEL" -cpu max -smp "$CPUS" -m "$MEM" \
  "${VHU[@]}" ${ROCEV2_VM_QEMU_ARGS:-} \
  -nodefaults -no-user-config -display none -monitor none -no-reboot \
  -serial "file:$OUT/console.log" \
  -kernel "$CACHE/vmlinuz" -initrd "$CACHE/initrd.img" -append "$APPEND" \
  "${SHARES[@]}" </dev/null >"$OUT/qemu.log" 2>&1 &
QPID=$!
TAILPID=""
if [ $QUIET = 0 ]; then tail -n +1 -F --pid=$QPID "$OUT/console.log" 2>/dev/null & TAILPID=$!; fi
cleanup() { kill $QPID 2>/dev/null; }
trap 'cleanup; exit 130' INT TERM

# Watchdog: the guest must reach stage 2 within BOOT_TMO and finish within TMO.
elapsed() { echo "$(date +%s.%N) - $T0" | bc | cut -d. -f1; }
REASON=""
while kill -0 $QPID 2>/dev/null; do
  sleep 0.5
  e=$(elapsed); e=${e:-0}
  if [ "$e" -ge "$BOOT_TMO" ] && ! grep -q 'rocev2-vm: stage2 up' "$OUT/console.log"; then
    REASON="the guest did not finish booting within ${BOOT_TMO}s (hang?)"; break
  fi
  if [ "$e" -ge "$TMO" ]; then REASON="time limit of ${TMO}s reached"; break; fi
done
if [ -n "$REASON" ]; then
  kill $QPID 2>/dev/null; sleep 2; kill -9 $QPID 2>/dev/null
fi
wait $QPID 2>/dev/null; qrc=$?
[ -n "$TAILPID" ] && { sleep 0.3; kill $TAILPID 2>/dev/null; wait $TAILPID 2>/dev/null; }
say "qemu exited ($qrc) after $(elapsed) s"

if [ -s "$OUT/rc" ]; then exit "$(cat "$OUT/rc")"; fi
# No exit status: work out why and show the end of the console.
if [ -z "$REASON" ]; then
  if grep -q 'Kernel panic' "$OUT/console.log"; then REASON="the guest kernel panicked"
  elif grep -q 'rocev2-vm: FATAL' "$OUT/console.log"; then REASON="the guest could not build its root file system"
  elif [ -s "$OUT/qemu.log" ]; then REASON="qemu failed: $(head -c 300 "$OUT/qemu.log")"
  else REASON="the guest stopped without reporting an exit status"; fi
fi
say "FAILED: $REASON"
say "---- last 40 console lines ($OUT/console.log) ----"
tail -n 40 "$OUT/console.log" | sed 's/^/  | /' >&2
exit 99
