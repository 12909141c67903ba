#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Quick demo on a fresh Debian 12 machine (as root): installs what is needed,
# builds, wires two hosts to pfcswitch with veth pairs in network namespaces
# (net_af_packet ports, embedded config configs/demo.yaml), sends real
# traffic through it and prints what the switch did: the DSCP rewrite seen
# on the far side, the lossy fallback, pause frames decoded by tshark, and
# the switch's counters.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
tools/install-deps.sh >/dev/null
BUILD=${PFC_BUILD_DIR:-build}
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" --buildtype=release >/dev/null
ninja -C "$BUILD" dataplane/pfcswitch/pfcswitch dataplane/pfcctl/pfcctl >/dev/null
SW=$BUILD/dataplane/pfcswitch/pfcswitch CTL="$BUILD/dataplane/pfcctl/pfcctl --file-prefix demo"
OUT=$(mktemp -d /tmp/pfcswitch-demo.XXXXXX)
PY=/usr/bin/python3

cleanup() {
  if [ -n "${SWPID:-}" ] && kill -INT "$SWPID" 2>/dev/null; then
    for _ in $(seq 50); do kill -0 "$SWPID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SWPID" 2>/dev/null || true
  fi
  tools/netns-topo.sh down 2 demo
}
trap cleanup EXIT
echo "== topology: demoh0 (10.0.1.2) <-veth-> [pfcswitch in netns demosw] <-veth-> demoh1 (10.0.2.2)"
tools/netns-topo.sh up 2 demo
ip netns exec demosw "$SW" -l 0,1 --no-huge --no-pci --no-shconf -m 256 --file-prefix demo \
  --log-level=lib.eal:error --vdev net_af_packet0,iface=demop0,framecnt=4096 --vdev net_af_packet1,iface=demop1,framecnt=4096 \
  -- --config configs/demo.yaml > "$OUT/switch.log" 2>&1 &
SWPID=$!
for _ in $(seq 100); do grep -q "pfcswitch: forwarding" "$OUT/switch.log" && break; sleep 0.1; done
grep "pfcswitch:" "$OUT/switch.log" | head -1
kill -0 $SWPID 2>/dev/null || { echo "pfcswitch failed to start:"; cat "$OUT/switch.log"; exit 1; }

# Hosts resolve their gateway first (the switch answers ARP and learns them).
ip netns exec demoh0 ping -c 1 -W 2 10.0.1.1 >/dev/null; ip netns exec demoh1 ping -c 1 -W 2 10.0.2.1 >/dev/null
echo "== ping through the switch (host 0 -> host 1, routed, TTL 63)"
ip netns exec demoh0 ping -c 3 -i 0.2 10.0.2.2 | grep -E "ttl=|packet loss" || true

echo "== 1,000 packets of DSCP 24 (rule: 24 -> 26 on p0->p1) and 200 of DSCP 10 (no mapping: lossy)"
ip netns exec demoh1 tcpdump -i eth0 -Q in -n -U -w "$OUT/h1.pcap" udp port 9 2>/dev/null & T1=$!
ip netns exec demoh0 tcpdump -i eth0 -Q in -n -U -w "$OUT/pfc.pcap" ether proto 0x8808 2>/dev/null & T2=$!
sleep 1
ip netns exec demoh0 $PY - <<'PYEOF'
from scapy.all import Ether, IP, UDP, Raw, sendp, get_if_hwaddr
src = get_if_hwaddr("eth0")
import subprocess
gw = subprocess.run(["ip", "neigh", "show", "10.0.1.1"], capture_output=True, text=True).stdout.split()[4]
p = [Ether(src=src, dst=gw) / IP(src="10.0.1.2", dst="10.0.2.2", tos=tos) / UDP(sport=9, dport=9) / Raw(bytes(1000))
     for tos in [0x60] * 1000 + [0x28] * 200]
sendp(p, iface="eth0", verbose=0)
PYEOF
sleep 2; kill $T1 $T2; wait $T1 $T2 2>/dev/null || true
echo "-- DSCP values seen by host 1:"
tshark -r "$OUT/h1.pcap" -T fields -e ip.dsfield.dscp 2>/dev/null | sort -n | uniq -c | awk '{printf "   %5d packets with DSCP %s\n", $1, $2}'
echo "-- PFC frames host 0 received from the switch (tshark decode, first and last):"
tshark -r "$OUT/pfc.pcap" -T fields -e frame.time_relative -e macc.opcode -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 2>/dev/null \
  | sed -n '1p;$p' | awk '{printf "   t=%ss opcode=%s class-enable=%s quanta[3]=%s\n", $1, $2, $3, $4}'
echo "   ($(tshark -r "$OUT/pfc.pcap" 2>/dev/null | wc -l) frames: XOFF, refreshes, XON; host veths do not honour pause, so the switch's headroom absorbs the rest)"
echo "== switch counters (pfcctl show)"
$CTL show
echo "== full counters: $CTL stats | telemetry: dpdk-telemetry.py -f demo | logs in $OUT"
