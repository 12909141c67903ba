#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The test command (README "Quick start"): installs what is needed on a fresh
# Debian 12 machine, builds into build/ and runs every meson test suite:
# unit, stage, fuzz, ctrl, system, rocev2. Run as root (namespaces, raw
# sockets, qemu). Extra arguments go to `meson test` (e.g. --suite unit).
# With CI=true a skipped test (exit 77: not root, a tool missing) counts as
# failed: CI must not pass without testing (the configure step also requires
# every test library then, see meson.build).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
BUILD=${PFC_BUILD_DIR:-build}
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" --buildtype=release
ninja -C "$BUILD"
# The rocev2 suite's qemu TCG guest cannot run this machine's AVX2/AVX-512 build: the switch
# programs are built once more for it (-Dcpu=baseline, in $BUILD-guest; see guest-build.sh).
tools/rocev2-vm/guest-build.sh "$BUILD" > /dev/null
rc=0
meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@" || rc=$?
# One plain closing line, counted from meson's own log (run by its path: no PYTHONPATH).
/usr/bin/python3 tools/testlog_summary.py "$BUILD/meson-logs/testlog.json" "${CI:-}" || rc=1
exit $rc
