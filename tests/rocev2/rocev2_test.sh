#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rocev2_test.sh BUILDDIR [--forwarder testpmd] : the meson test of suite 'rocev2' (host side).
# Boots the rocev2-vm guest ONCE and runs guest_suite.sh in it. By default (ROCEV2_NET=vhost)
# BUILDDIR's pfcswitch runs natively on this host with net_vhost ports and the guest's soft-RoCE
# hosts reach it through their virtio-net NICs (tools/rocev2-vm/rocev2-vhost.sh); the fabric
# phase runs pfcfabric inside the guest (the -Dcpu=baseline build). ROCEV2_NET=veth runs every
# switch inside the guest on af_packet ports, as before. The guest's console, which carries the suite's output, is copied to
# stdout; everything else (perftest outputs, pcaps, switch logs and counters, dmesg) is kept in
# $ROCEV2_OUT_DIR (default BUILDDIR/meson-logs/rocev2).
# Exit: 0 pass, 1 fail, 77 skip (qemu or another host prerequisite is missing; nothing is
# installed here: run tools/install-deps.sh), 99 the guest hung or panicked (console tail shown).
# Environment: ROCEV2_PFC=0 skips the PFC phase (two switches, shaped egress, pause frames),
# ROCEV2_FABRIC=0 the fabric phase (three emulated switches in pfcfabric); ROCEV2_NET (vhost);
# ROCEV2_ITERS (-n of each perftest, 200);
# ROCEV2_VM_CACHE (guest kernel cache); ROCEV2_VM_TIMEOUT (seconds, default 600).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
[ $# -ge 1 ] || { sed -n '3,12p' "$0"; exit 2; }
BUILD=$(cd "$1" && pwd) || exit 2
shift
OUT=${ROCEV2_OUT_DIR:-$BUILD/meson-logs/rocev2}
if [ "${1:-}" != "--forwarder" ] && [ ! -x "$BUILD/dataplane/pfcswitch/pfcswitch" ]; then
  echo "rocev2: no pfcswitch at $BUILD (build it first: ninja -C $BUILD)"; exit 1
fi
# What runs in the guest (qemu TCG) is the -Dcpu=baseline build of the same sources
# (tools/test.sh makes it before the suites run; guest-build.sh only checks it then).
GBUILD=$("$ROOT/tools/rocev2-vm/guest-build.sh" "$BUILD") ||
  { echo "rocev2: FAIL before booting: no build the TCG guest can run (see above)"; exit 1; }
SW=$GBUILD/dataplane/pfcswitch/pfcswitch CTL=$GBUILD/dataplane/pfcctl/pfcctl
FAB=$GBUILD/dataplane/emulator/pfcfabric
ARGS=(--pfcswitch "$SW" --config "$HERE/rocev2.yaml")
[ -x "$CTL" ] && ARGS+=(--pfcctl "$CTL")
[ -x "$FAB" ] && ARGS+=(--pfcfabric "$FAB")
NET=${ROCEV2_NET:-vhost}
[ "${1:-}" = "--forwarder" ] && NET=veth   # testpmd runs in the guest
VM=("$ROOT/tools/rocev2-vm/rocev2-vm.sh")
if [ "$NET" = vhost ]; then
  VM=("$ROOT/tools/rocev2-vm/rocev2-vhost.sh" --pfcswitch "$BUILD/dataplane/pfcswitch/pfcswitch"
      --config "$HERE/rocev2.yaml")
  [ -x "$BUILD/dataplane/pfcctl/pfcctl" ] && VM+=(--pfcctl "$BUILD/dataplane/pfcctl/pfcctl")
fi
rm -rf "$OUT"; mkdir -p "$OUT"
T0=$(date +%s)
# Environment variables do not cross into the guest: pass the suite's knobs explicitly.
"${VM[@]}" -t "${ROCEV2_VM_TIMEOUT:-600}" -o "$OUT" -- \
  env RV_NET="$NET" ROCEV2_PFC="${ROCEV2_PFC:-1}" ROCEV2_FABRIC="${ROCEV2_FABRIC:-1}" \
  ROCEV2_ITERS="${ROCEV2_ITERS:-200}" "$HERE/guest_suite.sh" "${ARGS[@]}" "$@"
rc=$?
echo "rocev2: exit $rc after $(( $(date +%s) - T0 )) s; artifacts in $OUT"
exit $rc
