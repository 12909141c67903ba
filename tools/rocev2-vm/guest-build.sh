#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest-build.sh BUILD_DIR : prints a build directory whose pfcswitch, pfcctl and pfcfabric the
# rocev2-vm guest can run (qemu TCG: no AVX-512, AVX2 gathers mis-emulated; see tcg-check.sh).
# That is BUILD_DIR itself when its binaries pass tcg-check (a build made with -Dcpu=baseline,
# or on a machine without AVX2), else BUILD_DIR-guest, configured here with -Dcpu=baseline and
# built for those three programs only (a few minutes the first time, then incremental).
# Messages go to stderr; exit 1 if the guest build fails.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "$1" && pwd)
TARGETS=(dataplane/pfcswitch/pfcswitch dataplane/pfcctl/pfcctl dataplane/emulator/pfcfabric)
if [ -x "$B/dataplane/pfcswitch/pfcswitch" ] && "$ROOT/tools/rocev2-vm/tcg-check.sh" "$B/dataplane/pfcswitch/pfcswitch" >/dev/null 2>&1; then
  echo "$B"
  exit 0
fi
G=$B-guest
if [ ! -f "$G/build.ninja" ]; then
  echo "guest-build: configuring $G (-Dcpu=baseline) for the TCG guest" >&2
  meson setup "$G" "$ROOT" --buildtype=release -Dcpu=baseline >&2
fi
ninja -C "$G" "${TARGETS[@]}" >&2
"$ROOT/tools/rocev2-vm/tcg-check.sh" "$G/dataplane/pfcswitch/pfcswitch" "$G/dataplane/emulator/pfcfabric" >&2
echo "$G"
