#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Behaviour unchanged? Runs the same fabric experiments with two builds (the
# commit before a change and after it) on the virtual clock and compares
# every output file byte for byte: flows.csv, ports.csv, hosts.json,
# topology.json, the pcapng captures, the generated per-switch configs, and
# results.json less its one wall-clock-dependent key (none: only timing.json
# holds wall time, and it is left out). Both builds read this tree's configs,
# so only the binaries differ.
#   bench/fabric/identical.sh BUILD_BEFORE BUILD_AFTER [OUT_DIR]
#   env: IGNORE_KEYS=a,b,c  keys (at any depth) a change added to results.json,
#        dropped from both sides' results.json before comparing, so a run
#        that only reports more still counts as identical
#        (e.g. IGNORE_KEYS=ecn_marked,ecn_not_ect,ecn_queued_bytes,tx_discards,tx_discard_bytes,ce_frames,cnps_received,cnps_sent,cnp_tx,cnp_rx,cnp_unknown,rx_malformed)
#   env: THREADS_B=N    the after side runs with --threads N (the DCFIT cases,
#        which --threads refuses, with one): the same build on both sides
#        checks that the partitions change nothing
# Cases: Fig. 10 (1-bounce, and with pfc-tagger's rules), Fig. 11 and 12,
# HotNets loop and CBD, the mixed runs (lossless, storm, lossless with the
# watchdog), Fig. 10 with DCFIT (detection only, and break) and DCFIT's
# trigger handling on a fat-tree (a host and a switch trigger). Ends with
#   RESULT cases=<n> identical=<n> differ=<n>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
A=$(realpath "$1") B=$(realpath "$2")
OUT=$(realpath -m "${3:-fabric-identical}")
SRC=$(pwd)
FAB=configs/fabric
for b in "$A" "$B"; do
  [[ -x $b/dataplane/emulator/pfcfabric && -x $b/ctrl/tagger/pfc-tagger ]] ||
    { echo "fabric_identical: build $b first (ninja -C $b)" >&2; exit 1; }
done
rm -rf "$OUT" && mkdir -p "$OUT/files" "$OUT/A" "$OUT/B"

# Fabric files made here (bench/fabric/identical.py): HotNets cases with
# their flows, DCFIT overlays.
/usr/bin/python3 -m fabric.identical files "$SRC/$FAB" "$OUT/files"

# name fabric-file [rules-from-case]: the case runs with pfc-tagger's rules
# computed from the topology the named case wrote (as bench/fabric/common.sh).
CASES=(
  "fig10 $FAB/fig10-1bounce.yaml"
  "fig10-tagger $FAB/fig10-tagger.yaml fig10"
  "fig11 $FAB/fig11-scenario.yaml"
  "fig12 $FAB/fig12-scenario.yaml"
  "hotnets-loop $OUT/files/hotnets-loop.yaml"
  "hotnets-cbd $OUT/files/hotnets-cbd.yaml"
  "mixed-lossless $FAB/mixed-lossless.yaml"
  "mixed-storm $FAB/mixed-storm.yaml"
  "mixed-lossless-pfcwd $FAB/mixed-lossless-pfcwd.yaml"
  "dcfit-detect $OUT/files/fabric-fig10-detect.yaml"
  "dcfit-break $OUT/files/fabric-fig10-break.yaml"
  "dcfit-trigger-host $OUT/files/fabric-trigger-host.yaml"
  "dcfit-trigger-switch $OUT/files/fabric-trigger-switch.yaml"
)
same=0 differ=0
for c in "${CASES[@]}"; do
  read -r name file rules_from <<< "$c"
  for side in A B; do
    b=$A; [[ $side == B ]] && b=$B
    args=()
    if [[ -n ${rules_from:-} ]]; then
      # The same path on both sides (the generated switch configs name it),
      # kept beside the side's outputs afterwards to be compared too.
      rm -rf "$OUT/rules"
      "$b/ctrl/tagger/pfc-tagger" tag --topo "$OUT/$side/$rules_from/topology.json" --elp-gen clos \
        --bounces 1 --algo clos -o "$OUT/rules" > /dev/null
      args=(--rules "$OUT/rules")
    fi
    [[ $side == B && -n ${THREADS_B:-} && $name != dcfit-* ]] && args+=(--threads "$THREADS_B")
    "$b/dataplane/emulator/pfcfabric" --fabric "$file" --out "$OUT/$side/$name" "${args[@]}" \
      > "$OUT/$side/$name.log" 2>&1 || { echo "fabric_identical: $name failed with $b" >&2; exit 1; }
    [[ -z ${rules_from:-} ]] || mv "$OUT/rules" "$OUT/$side/$name/rules"
  done
  # Keys the later build adds (IGNORE_KEYS) leave results.json on both sides.
  if [[ -n ${IGNORE_KEYS:-} ]]; then
    for side in A B; do
      /usr/bin/python3 -m fabric.identical strip "$OUT/$side/$name/results.json" "$IGNORE_KEYS"
    done
  fi
  if diff -r -q -x timing.json "$OUT/A/$name" "$OUT/B/$name" > "$OUT/$name.diff"; then
    same=$((same + 1)); echo "$name: identical"
  else
    differ=$((differ + 1)); echo "$name: DIFFERS"; cat "$OUT/$name.diff"
  fi
done
echo "RESULT cases=${#CASES[@]} identical=$same differ=$differ"
