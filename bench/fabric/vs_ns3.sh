#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# pfcfabric against ns-3 on the same work: Tagger's Fig. 2 Clos testbed (10
# switches, 16 hosts, 40 Gb/s links of 1 us), eight 10 Gb/s flows of
# 1000-byte frames from one pod to the other, in pfcfabric (virtual clock,
# PFC and the lossless switch config) and in an ns-3 scenario built here
# against Debian's libns3-dev (bench/fabric/vs_ns3.cc: the same
# topology file, point-to-point links, global routing, UDP; no PFC).
#  * instructions per link-hop (a frame received over any link), callgrind,
#    each simulator's run only (VirtualClock::Run, Simulator::Run), on
#    CG_MS of traffic (default 1; pfcfabric's -Dcpu=baseline twin, as
#    valgrind has no AVX-512);
#  * wall seconds for WALL_MS of traffic (default 10), medians of RUNS
#    alternating runs (default 3).
# Installs libns3-dev and valgrind when missing (apt, as root).
#   bench/fabric/vs_ns3.sh [BUILD_DIR] [OUT_DIR]
# Figure OUT/fabric_vs_ns3.png; last line
#   RESULT pfcfabric_instr_per_hop=<n> ns3_instr_per_hop=<n> instr_ratio=<x>
#          pfcfabric_wall_s=<x> ns3_wall_s=<x> wall_ratio=<x>
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
B=${1:-$PFC_BUILD_DEFAULT}
OUT=$(realpath -m "${2:-fabric-vs-ns3}")
mkdir -p "$OUT"
if [[ ! -e /usr/include/ns3/core-module.h ]] ||
   ! command -v valgrind > /dev/null; then
  [[ $(id -u) == 0 ]] || { echo "fabric_vs_ns3: install libns3-dev and valgrind (needs root)" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q libns3-dev valgrind > "$OUT/apt.log" 2>&1 ||
    { echo "fabric_vs_ns3: apt-get install libns3-dev valgrind failed (see $OUT/apt.log)" >&2; exit 1; }
fi
pfc_build_target "$B" dataplane/emulator/pfcfabric
COST=$(tools/rocev2-vm/guest-build.sh "$B")
ninja -C "$COST" dataplane/emulator/pfcfabric > /dev/null
# ns-3's libraries by name: Debian's ns3-*.pc also name libgsl.so, which
# only libgsl-dev ships, and the shared libraries bring their own needs.
NS3_LIBS=$(printf -- '-lns3-%s ' core network internet point-to-point applications)
g++ -std=c++17 -O2 -o "$OUT/ns3_fabric" bench/fabric/vs_ns3.cc $NS3_LIBS
/usr/bin/python3 bench/fabric/vs_ns3.py "$(pfc_bin "$B" pfcfabric)" "$(pfc_bin "$COST" pfcfabric)" \
  "$OUT/ns3_fabric" "$OUT"
