#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Chaos runs of the fabric emulator, Jepsen-style (issue 29): every run a
# random fabric from its seed (leaf-spine, k=4 fat-tree or a small
# Jellyfish, random link rates and delays, lossless and lossy flows, sized,
# rate-limited, RC and DCQCN, stopping well before the end) and a random
# fault schedule (links down and up, flapping faster than a pause lasts;
# routes bounced and looped and set back; Tagger rules and invalid rules
# files reloaded; hosts turned into pause storms and back), with Tagger
# rules, DCFIT recovery and the pause-storm watchdog on in some runs. After
# each run the invariants are checked from its results alone
# (bench/chaos/invariants.py): frames conserved per switch, per link and
# per flow; no lossless loss but the recovery drops and TTL expiry; every
# mbuf back; buffers and queues empty once drained; a rerun byte-identical;
# invalid rules changing nothing. A failing run prints its seed and leaves
# a shrunk fabric under OUT_DIR/repro/seed-N/ with the command to rerun it.
# bench/chaos/runs.py has the driver.
#   bench/chaos/runs.sh [RUNS] [BUILD_DIR] [OUT_DIR]     (env SEED=first seed, default 1)
# Writes OUT_DIR/runs.json and OUT_DIR/chaos.png; last line:
#   RESULT runs=<n> faults=<n> violations=<n> lossless_drops=<n> leaked_mbufs=<n>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
RUNS=${1:-30}
B=${2:-build}
OUT=$(realpath -m "${3:-fabric-chaos}")
FABRIC=$(pfc_bin "$B" pfcfabric)
TAGGER=$(pfc_bin "$B" pfc-tagger)
for p in "$FABRIC" "$TAGGER"; do
  [[ -x $p ]] || { echo "build first: ninja -C $B dataplane/emulator/pfcfabric ctrl/tagger/pfc-tagger" >&2; exit 1; }
done
mkdir -p "$OUT"
/usr/bin/python3 bench/chaos/runs.py "$RUNS" "$(realpath "$FABRIC")" "$(realpath "$TAGGER")" "$OUT" \
  --seed "${SEED:-1}" | tee "$OUT/summary.txt"
