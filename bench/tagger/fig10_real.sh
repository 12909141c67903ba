#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Tagger (ToN 2019) Fig. 10 with real hosts: the 1-bounce deadlock of Fig. 3
# in the Fig. 2 Clos testbed (10 emulated switches, real clock, 100 Mb/s
# links), with the two flows sent and received by Linux hosts in network
# namespaces (H5 -> H13 blue, H9 -> H1 green, UDP in DSCP 1, the lossless
# tag) on af_packet ports of the edge switches. Without Tagger, then with
# the rules pfc-tagger computes for ELP = shortest + 1-bounce paths.
#   bench/tagger/fig10_real.sh [BUILD_DIR] [OUT_DIR]
# Linux hosts do not honour PFC, so each sends a bounded burst (N frames of
# 1014 B at 100 Mb/s) and the edge ports' headroom holds it: a deadlock is a
# stall, packets stay in the buffers and none is dropped; with Tagger every
# frame arrives. Writes OUT_DIR/fig10_real.png (rate at each receiver's
# ToR egress, pause periods, buffers) and ends with a RESULT line. Root.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib.sh
ROOT=$PWD
B=$(realpath "${1:-build}")
OUT=$(realpath -m "${2:-fabric-fig10-real}")
N=${FIG10_REAL_FRAMES:-2000}
RATE=${FIG10_REAL_RATE:-100M}
P=f10r
mkdir -p "$OUT"
trap 'tools/netns-topo.sh down 4 $P' EXIT
tools/netns-topo.sh up 4 $P
# Host i on port p<i>: H5, H9 send; H13, H1 receive.
HOSTS=(H5 H9 H13 H1)
# The shipped templates with headroom for all a host sends after a pause (a
# cell a frame); Tagger's rules use two lossless priorities: twice as much.
HR=$(( (N + 64) * 1024 ))
real_template() {  # real_template TEMPLATE LOSSLESS_PRIOS OUT
  sed -e "s/total_bytes: 2M/total_bytes: $(( 6 * $2 * HR + 2 * 1024 * 1024 ))/" \
    -e 's/cell_bytes: 128/cell_bytes: 1024/' -e "s/headroom: auto/headroom: $HR/" \
    -e 's/idle_sleep_us: 0/idle_sleep_us: 20/' "$1" > "$3"
}
real_template configs/fabric/switch-lossless.yaml 1 "$OUT/switch-lossless-real.yaml"
real_template configs/fabric/switch-tagger.yaml 2 "$OUT/switch-tagger-real.yaml"
fabric() {  # fabric TEMPLATE FILE
  {
    echo "fabric: { clock: real, bin: 5ms, duration: 4s }"
    echo "include: [$ROOT/configs/fabric/clos-fig2.topo.yaml, $ROOT/configs/fabric/fig10-paths.yaml]"
    echo "links: { rate: $RATE, delay: 1us }"
    echo "switch: { config: $1 }"
    echo "hosts:"
    for i in 0 1 2 3; do echo "  - { name: ${HOSTS[$i]}, device: \"net_af_packet$i,iface=${P}p$i,framecnt=4096\" }"; done
  } > "$2"
}
fabric "$OUT/switch-lossless-real.yaml" "$OUT/without.yaml"
fabric "$OUT/switch-tagger-real.yaml" "$OUT/with.yaml"
"$B/dataplane/emulator/pfcfabric" --fabric "$OUT/without.yaml" --out "$OUT/without" --check > /dev/null
"$B/ctrl/tagger/pfc-tagger" tag --topo "$OUT/without/topology.json" --elp-gen clos --bounces 1 --algo clos \
  -o "$OUT/rules" | tail -1

run() {  # run NAME [pfcfabric args]: one run; receivers' counts in $OUT/NAME/rx.txt
  local name=$1 log=$OUT/$1.log pid
  shift
  ip netns exec ${P}sw "$B/dataplane/emulator/pfcfabric" --fabric "$OUT/$name.yaml" --out "$OUT/$name" "$@" \
    > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do grep -q '^pfcfabric: running' "$log" && break; sleep 0.1; done
  grep -q '^pfcfabric: running' "$log" || { cat "$log"; exit 1; }
  /usr/bin/python3 -m tagger.real_hosts drive "$OUT/$name" "$P" "$N" "$RATE"
  wait $pid
  grep -E '^pfcfabric: ran' "$log"
}
run without
run with --rules "$OUT/rules"

/usr/bin/python3 -m tagger.figures fig10_real "$OUT"
/usr/bin/python3 tools/fabric_plot.py "$OUT/without" "$OUT/with" -o "$OUT/fig10_real.png" \
  --labels "Without Tagger (real hosts),With Tagger (real hosts)" \
  --title "Tagger Fig. 10 with Linux hosts: 10 emulated switches, real clock, $RATE links"
cat "$OUT/result.txt"
