#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Fabric emulator throughput on the virtual clock (one core): switch-hops per
# second of wall time for leaf-spine fabrics of 4 to 64 switches (2 spines,
# 2 hosts per ToR, 40 Gb/s links, every host sending 1000-byte frames at 10
# Gb/s to a host under the next ToR, 2 ms of virtual time), and how much
# slower than real time the Tagger Fig. 10 run is.
#   bench/fabric_scale.sh [BUILD_DIR] [SIZES]      (SIZES default "2 4 8 16 32 62" ToRs:
#   4 to 64 switches; rings come from DPDK's heap, not one memzone each, so
#   DPDK 22.11's 2560 memzones no longer bound the fabric)
# Instructions per switch-hop, load-independent: bench/fabric_cost.sh.
# Last line: RESULT switches=<largest> hops_mpps_per_core=<at the largest>
#            virtual_over_real=<Fig. 10>
set -euo pipefail
. "$(dirname "$0")/fabric_leafspine.sh"
cd "$(dirname "$0")/.."
B=${1:-build}
SIZES=${2:-"2 4 8 16 32 62"}
TMP=$(mktemp -d /tmp/fabric-scale-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
leafspine_switch "$TMP/switch.yaml"
printf "%-9s %-7s %-12s %-12s %-10s\n" switches hosts switch_hops wall_s hops_Mpps
last=""
for T in $SIZES; do
  {
    echo "fabric: { clock: virtual, duration: 2ms, bin: 1ms }"
    leafspine_body "$T" "$TMP/switch.yaml"
  } > "$TMP/ls$T.yaml"
  "$B/dataplane/emulator/pfcfabric" --fabric "$TMP/ls$T.yaml" --out "$TMP/ls$T" > "$TMP/ls$T.log" 2>&1 ||
    { cat "$TMP/ls$T.log"; exit 1; }
  last=$(/usr/bin/python3 - "$TMP/ls$T" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/results.json"))
wall = json.load(open(d + "/timing.json"))["wall_seconds"]
hops = sum(p["rx_packets"] for s in r["switches"].values() for p in s["ports"])
print(f"{len(r['switches']):<9} {len(r['hosts']):<7} {hops:<12} {wall:<12.3f} {hops / wall / 1e6:<10.3f}")
PY
)
  echo "$last"
done
"$B/dataplane/emulator/pfcfabric" --fabric configs/fabric/fig10-1bounce.yaml --out "$TMP/fig10" > /dev/null 2>&1
v=$(/usr/bin/python3 -c "import json; print(round(json.load(open('$TMP/fig10/timing.json'))['virtual_over_real'], 5))")
set -- $last
echo "RESULT switches=$1 hops_mpps_per_core=$5 virtual_over_real=$v"
