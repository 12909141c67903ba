#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rocev2_test.sh BUILDDIR [--forwarder testpmd] : the meson test of suite 'rocev2' (host side).
# Boots the rocev2-vm guest ONCE and runs guest_suite.sh in it against BUILDDIR's pfcswitch
# (and pfcctl, when built). The guest's console, which carries the suite's output, is copied to
# stdout; everything else (perftest outputs, pcaps, switch logs and counters, dmesg) is kept in
# $ROCEV2_OUT_DIR (default BUILDDIR/meson-logs/rocev2).
# Exit: 0 pass, 1 fail, 77 skip (qemu or another host prerequisite is missing; nothing is
# installed here: run tools/install-deps.sh), 99 the guest hung or panicked (console tail shown).
# Environment: ROCEV2_PFC=0 skips the PFC phase (two switches, shaped egress, pause frames),
# ROCEV2_FABRIC=0 the fabric phase (three emulated switches in pfcfabric);
# ROCEV2_ITERS (-n of each perftest, 200);
# ROCEV2_VM_CACHE (guest kernel cache); ROCEV2_VM_TIMEOUT (seconds, default 480).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
[ $# -ge 1 ] || { sed -n '3,12p' "$0"; exit 2; }
BUILD=$(cd "$1" && pwd) || exit 2
shift
OUT=${ROCEV2_OUT_DIR:-$BUILD/meson-logs/rocev2}
if [ "${1:-}" != "--forwarder" ] && [ ! -x "$BUILD/dataplane/app/pfcswitch" ]; then
  echo "rocev2: no pfcswitch at $BUILD (build it first: ninja -C $BUILD)"; exit 1
fi
# The guest (qemu TCG) runs the -Dcpu=baseline build of the same sources (tools/test.sh makes it
# before the suites run; guest-build.sh only checks it then).
GBUILD=$("$ROOT/tools/rocev2-vm/guest-build.sh" "$BUILD") ||
  { echo "rocev2: FAIL before booting: no build the TCG guest can run (see above)"; exit 1; }
SW=$GBUILD/dataplane/app/pfcswitch CTL=$GBUILD/dataplane/ctl/pfcctl
FAB=$GBUILD/dataplane/emulator/pfcfabric
ARGS=(--pfcswitch "$SW" --config "$HERE/rocev2.yaml")
[ -x "$CTL" ] && ARGS+=(--pfcctl "$CTL")
[ -x "$FAB" ] && ARGS+=(--pfcfabric "$FAB")
rm -rf "$OUT"; mkdir -p "$OUT"
T0=$(date +%s)
# Environment variables do not cross into the guest: pass the suite's knobs explicitly.
"$ROOT/tools/rocev2-vm/rocev2-vm.sh" -t "${ROCEV2_VM_TIMEOUT:-480}" -o "$OUT" -- \
  env ROCEV2_PFC="${ROCEV2_PFC:-1}" ROCEV2_FABRIC="${ROCEV2_FABRIC:-1}" ROCEV2_ITERS="${ROCEV2_ITERS:-200}" \
  "$HERE/guest_suite.sh" "${ARGS[@]}" "$@"
rc=$?
echo "rocev2: exit $rc after $(( $(date +%s) - T0 )) s; artifacts in $OUT"
exit $rc
