#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The test command (README "Quick start"): installs what is needed on a fresh
# Debian 12 machine, builds into build/ and runs every meson test suite:
# unit, stage, fuzz, ctrl, system, rocev2. Run as root (namespaces, raw
# sockets, qemu). Extra arguments go to `meson test` (e.g. --suite unit).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
BUILD=${PFC_BUILD_DIR:-build}
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" --buildtype=release
ninja -C "$BUILD"
rc=0
meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@" || rc=$?
# One plain closing line, counted from meson's own log.
/usr/bin/python3 - "$BUILD/meson-logs/testlog.json" <<'PY'
import json, sys
res = [json.loads(l)["result"] for l in open(sys.argv[1]) if l.strip()]
ok = sum(r in ("OK", "EXPECTEDFAIL") for r in res)
skip = sum(r == "SKIP" for r in res)
print(f"{ok} passed, {len(res) - ok - skip} failed, {skip} skipped")
PY
exit $rc
