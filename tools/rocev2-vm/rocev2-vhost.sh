#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rocev2-vhost.sh --pfcswitch BIN --config YAML [--pfcctl BIN] [rocev2-vm.sh options] -- COMMAND...
# Runs COMMAND in the rocev2-vm guest with pfcswitch OUTSIDE it, natively on this host, as
# testbeds attach VMs to a DPDK switch: the guest gets two virtio-net NICs on vhost-user
# (MACs 52:54:00:00:00:0a and :0b; guest-lib.sh with RV_NET=vhost names them a0 and b0 and puts
# soft-RoCE on them), served by pfcswitch's net_vhost0/1 ports (sockets OUTDIR/vhu/vhua, vhub).
# Before the guest boots, switch "main" starts with YAML on those two ports (qemu waits for the
# sockets); from then on the guest starts, stops and reads switches through the host agent
# (host-agent.sh: guest-lib.sh's rv_host), which stops everything when the guest is done.
# Options other than the three above go to rocev2-vm.sh (-o OUTDIR is required here).
# Exit status: COMMAND's (rocev2-vm.sh's conventions), or 1 when the first switch does not start.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
HV_PFCSWITCH="" HV_PFCCTL="" CFG="" OUT="" VMARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --pfcswitch) HV_PFCSWITCH=$(realpath "$2"); shift 2 ;;
    --pfcctl) HV_PFCCTL=$(realpath "$2"); shift 2 ;;
    --config) CFG=$(realpath "$2"); shift 2 ;;
    -o) OUT=$2; shift 2 ;;
    --) VMARGS+=("$1"); shift; break ;;
    -q) VMARGS+=("$1"); shift ;;
    *) VMARGS+=("$1" "$2"); shift 2 ;;
  esac
done
[ -x "$HV_PFCSWITCH" ] && [ -f "$CFG" ] && [ -n "$OUT" ] && [ $# -gt 0 ] ||
  { sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
# The sockets' paths go into DPDK device arguments, where a comma starts the next argument.
case $OUT in *,*) echo "rocev2-vhost: the output directory may not contain a comma: $OUT"; exit 2 ;; esac
export HV_OUT=$OUT HV_PFCSWITCH HV_PFCCTL
rm -rf "$OUT/hostq" "$OUT/vhu" "$OUT/host-agent.log"
mkdir -p "$OUT/hostq" "$OUT/vhu"
# shellcheck source=tools/rocev2-vm/host-agent.sh
. "$HERE/host-agent.sh"
[ -f "$HERE/host-ovs.sh" ] && . "$HERE/host-ovs.sh"
# The first switch starts in this shell's child (the agent), so the agent owns it.
echo "hv_sw_launch main $CFG vhost:vhua vhost:vhub" > "$OUT/hostq/boot.req"
hv_serve &
AGENT=$!
trap 'touch "$OUT/hostq/.stop"; wait $AGENT; exit 130' INT TERM
for _ in $(seq 600); do [ -e "$OUT/hostq/boot.rc" ] && break; sleep 0.1; done
if [ "$(cat "$OUT/hostq/boot.rc" 2>/dev/null)" != 0 ]; then
  echo "rocev2-vhost: the native pfcswitch did not start:"; cat "$OUT/hostq/boot.out" 2>/dev/null
  touch "$OUT/hostq/.stop"; wait $AGENT; exit 1
fi
echo "rocev2-vhost: $(cat "$OUT/hostq/boot.out") on $OUT/vhu/vhua, vhub"
"$HERE/rocev2-vm.sh" -o "$OUT" -n "$OUT/vhu/vhua=52:54:00:00:00:0a" -n "$OUT/vhu/vhub=52:54:00:00:00:0b" \
  "${VMARGS[@]}" "$@"
rc=$?
touch "$OUT/hostq/.stop"
wait $AGENT
exit $rc
