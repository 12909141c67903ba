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
  /usr/bin/python3 - "$OUT/$name" "$P" "$N" "$RATE" <<'PY'
import json, subprocess, sys, time
out, pre, n, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
hosts = {h["name"]: h for h in json.load(open(f"{out}/hosts.json"))["hosts"]}
names = ["H5", "H9", "H13", "H1"]
def ns(i, *cmd, **kw):
    return subprocess.run(["ip", "netns", "exec", f"{pre}h{i}", *cmd], **kw)
for i, h in enumerate(names):
    ns(i, "ip", "addr", "flush", "dev", "eth0", check=True)
    ns(i, "ip", "addr", "add", hosts[h]["ip"], "dev", "eth0", check=True)
    ns(i, "ip", "route", "add", "default", "via", hosts[h]["gateway"], check=True)
    ns(i, "ping", "-c", "1", "-W", "2", hosts[h]["gateway"], capture_output=True)  # the ToR learns it
ip = {h: hosts[h]["ip"].split("/")[0] for h in names}
recv = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", 9)); s.settimeout(0.2)
got, end = 0, time.time() + float(sys.argv[1])
while time.time() < end:
    try: s.recv(2048); got += 1
    except socket.timeout: pass
print(got)
"""
send = """
import socket, sys, time
dst, n, bps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 1 << 2)   # DSCP 1: the lossless tag
gap, t0 = 1014 * 8 / bps, time.perf_counter()
for i in range(n):
    d = t0 + i * gap - time.perf_counter()
    if d > 0: time.sleep(d)
    s.sendto(i.to_bytes(4, "big") + bytes(968), (dst, 9))
"""
bps = float(rate[:-1]) * {"K": 1e3, "M": 1e6, "G": 1e9}[rate[-1]]
rx = {h: subprocess.Popen(["ip", "netns", "exec", f"{pre}h{i}", "/usr/bin/python3", "-c", recv, "3"],
                          stdout=subprocess.PIPE, text=True) for i, h in ((2, "H13"), (3, "H1"))}
time.sleep(0.2)
blue = subprocess.Popen(["ip", "netns", "exec", f"{pre}h0", "/usr/bin/python3", "-c", send, ip["H13"], str(n), str(bps)])
time.sleep(0.02)  # green 20 ms after blue, as the paper's flows start apart
green = subprocess.Popen(["ip", "netns", "exec", f"{pre}h1", "/usr/bin/python3", "-c", send, ip["H1"], str(n), str(bps)])
blue.wait(); green.wait()
counts = {h: int(p.communicate()[0]) for h, p in rx.items()}
json.dump({"sent": n, "blue_rx": counts["H13"], "green_rx": counts["H1"]}, open(f"{out}/rx.json", "w"))
PY
  wait $pid
  grep -E '^pfcfabric: ran' "$log"
}
run without
run with --rules "$OUT/rules"

/usr/bin/python3 - "$OUT" <<'PY'
import csv, json, sys
out = sys.argv[1]
# Real receivers have no flow counters in the fabric: a flow's rate is its
# receiver's ToR egress on the lossless priority (ports.csv).
# (Tagger's rules may move a flow to another lossless priority on its way:
# every priority of the port is summed.)
edge = {("T4", "H13"): "blue", ("T1", "H1"): "green"}
res = {}
for run in ("without", "with"):
    rate = {}
    for r in csv.DictReader(open(f"{out}/{run}/ports.csv")):
        if (r["switch"], r["port"]) in edge:
            key = (float(r["t_ms"]), edge[(r["switch"], r["port"])])
            rate[key] = rate.get(key, 0.0) + float(r["tx_gbps"])
    with open(f"{out}/{run}/flows.csv", "w") as f:
        f.write("t_ms,flow,gbps\n")
        for (t, flow), g in sorted(rate.items()):
            f.write(f"{t:.6f},{flow},{g:.6f}\n")
    rx = json.load(open(f"{out}/{run}/rx.json"))
    drops = json.load(open(f"{out}/{run}/results.json"))["lossless_drops"]
    res[run] = (rx, drops)
    print(f"{run:8s} tagger: blue {rx['blue_rx']}/{rx['sent']}, green {rx['green_rx']}/{rx['sent']} frames "
          f"received; lossless drops {drops}")
w, t = res["without"], res["with"]
stall = lambda rx: int(rx["blue_rx"] < rx["sent"] and rx["green_rx"] < rx["sent"])
print(f"RESULT without_blue={w[0]['blue_rx']} without_green={w[0]['green_rx']} with_blue={t[0]['blue_rx']} "
      f"with_green={t[0]['green_rx']} sent={w[0]['sent']} deadlock_without={stall(w[0])} "
      f"deadlock_with={stall(t[0])} lossless_drops={w[1] + t[1]}", file=open(f"{out}/result.txt", "w"))
PY
/usr/bin/python3 tools/fabric_plot.py "$OUT/without" "$OUT/with" -o "$OUT/fig10_real.png" \
  --labels "Without Tagger (real hosts),With Tagger (real hosts)" \
  --title "Tagger Fig. 10 with Linux hosts: 10 emulated switches, real clock, $RATE links"
cat "$OUT/result.txt"
