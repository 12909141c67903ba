#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A profile-guided (PGO) build of pfcfabric, for long emulator runs: GCC
# lays out and inlines the hot loops (switch rounds, host rounds, links) by
# where a training run spent its time. Two passes in one build directory:
#   1. meson -Db_pgo=generate: an instrumented pfcfabric, run on the training
#      fabrics of tools/pgo_train.py (a k=8 fat-tree under WebSearch flows
#      with DCQCN and with HPCC, and a leaf-spine in the HPCC simulator's
#      files through tools/hpcc_import.py: none of the experiments it is
#      measured on);
#   2. meson -Db_pgo=use: pfcfabric rebuilt from those profiles.
# The result gives the release build's outputs byte for byte (a profile
# changes code layout, not what the code computes: bench/fabric/identical.sh
# checks it). Only pfcfabric is built; the other programs gain nothing
# measurable from it.
#   tools/build-pgo.sh [BUILD_DIR]      (default build-pgo; ~2x one build)
# Then: BUILD_DIR/dataplane/emulator/pfcfabric, e.g.
#   NO_BUILD=1 bench/hpcc/vs_hpcc_simulator.sh fat320-websearch30-5ms BUILD_DIR OUT
set -euo pipefail
cd "$(dirname "$0")/.."
B=$(realpath -m "${1:-build-pgo}")
say() { echo "build-pgo: $*"; }
if [ -e "$B" ] && [ ! -f "$B/build.ninja" ]; then
  echo "build-pgo: $B exists and is not a meson build directory; give another BUILD_DIR" >&2
  exit 2
fi
if [ -f "$B/build.ninja" ]; then
  meson configure "$B" -Db_pgo=generate > /dev/null
else
  meson setup "$B" --buildtype=release -Db_pgo=generate > /dev/null
fi
# Profiles from an earlier pass would be merged into this one's.
find "$B" -name '*.gcda' -delete
say "pass 1: instrumented pfcfabric"
ninja -C "$B" dataplane/emulator/pfcfabric > "$B/pgo-generate.log" 2>&1 ||
  { tail -30 "$B/pgo-generate.log" >&2; exit 1; }
T="$B/pgo-train"
rm -rf "$T"
mapfile -t RUNS < <(/usr/bin/python3 tools/pgo_train.py "$T")
i=0
for f in "${RUNS[@]}"; do
  i=$((i + 1))
  say "training run $i: $f"
  # A training run's verdict (flows left unfinished by its short duration)
  # does not matter; a failure to run does.
  "$B/dataplane/emulator/pfcfabric" --fabric "$f" --out "$T/run$i" > "$T/run$i.log" 2>&1 ||
    grep -q "verdict:" "$T/run$i.log" || { tail -20 "$T/run$i.log" >&2; exit 1; }
done
n=$(find "$B" -name '*.gcda' | wc -l)
[ "$n" -gt 0 ] || { echo "build-pgo: the training left no profiles (*.gcda) in $B" >&2; exit 1; }
say "pass 2: pfcfabric from $n profiles"
meson configure "$B" -Db_pgo=use > /dev/null
ninja -C "$B" dataplane/emulator/pfcfabric > "$B/pgo-use.log" 2>&1 ||
  { tail -30 "$B/pgo-use.log" >&2; exit 1; }
say "done: $B/dataplane/emulator/pfcfabric"
