#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pfcswitch vs dpdk-testpmd (--forward-mode=mac) on the same virtual ports,
# in the same run, alternating, several times; prints the medians and, as
# its LAST line:
#   RESULT switch_mpps=<x> testpmd_mpps=<y> ratio=<x/y>
#
# Usage: bench/switch_vs_testpmd.sh [BUILD_DIR]      (default /tmp/build-stage)
#   env: RUNS=3 (runs per app, alternating)   WARMUP=1 (s)
#        MIN_CPU=1.0 (s of forwarding-core CPU time to measure over; the
#          window grows until the thread got that much, at most MAX_WALL=15 s)
#        LCORES=0,1 (main lcore, forwarding lcore)  HUGE=0|1 (1: hugepages,
#          --in-memory; needs free 2 MB pages: echo 512 > /proc/sys/vm/nr_hugepages)
#        RATE=cpu|wall (which rate the RESULT line reports; default cpu)
#        PORTS=ring|pcap (default ring, see below)
#
# Why this setup (the alternatives were measured, see the report):
#  * Ports: four net_ring vdevs (--vdev net_ringN). A net_ring port is a
#    self-loop: what an app transmits on port N it receives again on port N.
#    Pointer passing, no copy, no generator competing for the 2 shared cores:
#    what is compared is the apps, not a traffic source. (net_pcap with
#    infinite_rx copies every packet and caps even testpmd at ~20 Mpps on
#    this machine; a separate generator process would need a third core.)
#  * Each app keeps a fixed population of 128 64-byte packets circulating
#    (32 per port): testpmd seeds it with --tx-first (--txpkts=60 +4 FCS);
#    pfcswitch reads the same count once from a fifth port, net_pcap0 with a
#    finite rx_pcap (testpmd gets that port too, masked off with --portmask).
#  * pfcswitch runs in static-L2 mode (bench/switch_vs_testpmd.yaml): a
#    router decrements the TTL, so routed packets die in any closed loop.
#    L2 mode still runs parse, tag classification, lookup, buffer admission
#    and release, the Tagger rewrite (tags 24<->26 swap on every pass, so
#    half the packets get a DSCP + checksum rewrite each time), egress queue
#    by the new tag, scheduling and tx. The L3 extras (LPM, neighbour, TTL,
#    MAC rewrite) are measured by bench/dataplane/pipeline_bench, and by:
#  * PORTS=pcap, the second variant: four net_pcap ports replaying a pcap
#    forever (infinite_rx=1, tx dropped), so every packet is new and the
#    switch runs its full L3 pipeline (bench/switch_vs_testpmd_l3.yaml). The
#    pcap PMD copies each packet on rx, which dominates both apps' cost.
#  * Both apps: same EAL memory settings, main lcore idle, one forwarding
#    lcore; the rate is the sum of opackets of ports 0-3 read through DPDK's
#    own telemetry socket (/ethdev/stats), identical for both apps.
#  * The machine is shared: a wall-clock rate also measures whoever else runs
#    on the forwarding core. The script therefore reads the forwarding
#    thread's CPU time (/proc/PID/task/TID/schedstat) over the same window
#    and reports packets per CPU-second of the forwarding core (= Mpps on a
#    dedicated core); wall-clock Mpps and the core share are printed too.
set -euo pipefail

BUILD=${1:-/tmp/build-stage}
SRC=$(cd "$(dirname "$0")/.." && pwd)
PFCSWITCH=$BUILD/dataplane/app/pfcswitch
TESTPMD=${TESTPMD:-$(command -v dpdk-testpmd || true)}
PY=/usr/bin/python3
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-1}
MIN_CPU=${MIN_CPU:-1.0}
MAX_WALL=${MAX_WALL:-15}
LCORES=${LCORES:-0,1}
HUGE=${HUGE:-0}
RATE=${RATE:-cpu}
PORTS=${PORTS:-ring}

die() { echo "switch_vs_testpmd: $*" >&2; exit 1; }
[[ -x $PFCSWITCH ]] || die "no pfcswitch at $PFCSWITCH (build first: ninja -C $BUILD)"
[[ -n $TESTPMD && -x $TESTPMD ]] || die "dpdk-testpmd not found (Debian package dpdk)"
[[ -x $PY ]] || die "$PY not found"
[[ $RATE == cpu || $RATE == wall ]] || die "RATE must be cpu or wall"
[[ $PORTS == ring || $PORTS == pcap ]] || die "PORTS must be ring or pcap"

WORK=$(mktemp -d /tmp/switch_vs_testpmd.XXXXXX)
APP_PID=""
cleanup() {
  if [[ -n $APP_PID ]] && kill -0 "$APP_PID" 2>/dev/null; then
    kill -INT "$APP_PID" 2>/dev/null || true
    sleep 1
    kill -KILL "$APP_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

if [[ $HUGE == 1 ]]; then
  MEM=(--in-memory)
else
  MEM=(--no-huge -m 512 --no-shconf)
fi

if [[ $PORTS == ring ]]; then
  CONFIG=$SRC/bench/switch_vs_testpmd.yaml
  VDEVS=(--vdev net_ring0 --vdev net_ring1 --vdev net_ring2 --vdev net_ring3
         --vdev "net_pcap0,rx_pcap=$WORK/seed.pcap")
  TP_ARGS=(--portmask=0xf --tx-first --txpkts=60)
  PORT_PREFIX=net_ring
else
  CONFIG=$SRC/bench/switch_vs_testpmd_l3.yaml
  VDEVS=()
  for i in 0 1 2 3; do VDEVS+=(--vdev "net_pcap$i,rx_pcap=$WORK/seed$i.pcap,infinite_rx=1"); done
  TP_ARGS=()
  PORT_PREFIX=net_pcap
fi

# Seed frames (64 bytes on the wire). ring: 128 frames in seed.pcap, 32 per
# ring port, dst MAC = the host the L2 table puts on that port. pcap: 64
# frames per port in seedN.pcap, from host N to the switch's port-N MAC,
# addressed to 10.<10+(N+1)%4>.k.1 (routed out of port N+1). Tags cycle 24,
# 26, 10, 0.
"$PY" - "$WORK" "$PORTS" <<'PYEOF'
import struct, sys
work, mode = sys.argv[1], sys.argv[2]
def csum(b):
    s = sum(struct.unpack('!10H', b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff
def frame(dmac, port, k, dip):
    tos = (24, 26, 10, 0)[k % 4] << 2
    ip = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, tos, 46, k, 0x4000, 64, 17, 0,
                               bytes([10, 0, port, 2]), bytes(dip)))
    ip[10:12] = struct.pack('!H', csum(bytes(ip)))
    fr = (bytes(dmac) + bytes([2, 0, 0, 0, port, 2]) + b'\x08\x00' + bytes(ip)
          + struct.pack('!HHHH', 1000 + k, 2000, 26, 0) + bytes(18))
    assert len(fr) == 60
    return fr
def write(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack('<IIII', 0, 0, len(fr), len(fr)) + fr)
if mode == 'ring':
    write(f'{work}/seed.pcap', [frame([2, 0, 0, 0, p, 2], p, k, [10, 1, p, 2 + k])
                                for p in range(4) for k in range(32)])
else:
    for p in range(4):
        write(f'{work}/seed{p}.pcap', [frame([2, 0, 0, 0, 0, 0x10 + p], p, k, [10, 10 + (p + 1) % 4, k, 1])
                                       for k in range(64)])
PYEOF

# Results of the last run_switch / run_testpmd: "wall_mpps cpu_mpps share".
R=""

# measure SOCKET PID: after WARMUP, counts opackets of ports 0-3 and the
# forwarding thread's CPU time until the thread has run MIN_CPU seconds (or
# MAX_WALL passed). Prints "wall_mpps cpu_mpps core_share".
measure() {
  "$PY" - "$1" "$2" "$WARMUP" "$MIN_CPU" "$MAX_WALL" "$PORT_PREFIX" <<'PYEOF'
import json, os, socket, sys, time
sock, pid = sys.argv[1], int(sys.argv[2])
warmup, min_cpu, max_wall, prefix = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
deadline = time.monotonic() + 20
while not os.path.exists(sock):
    if time.monotonic() > deadline or not os.path.exists(f'/proc/{pid}'):
        sys.exit(f'telemetry socket {sock} did not appear')
    time.sleep(0.1)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sock)
s.recv(1 << 16)
def q(cmd):
    s.send(cmd.encode())
    return json.loads(s.recv(1 << 20).decode())[cmd.split(',')[0]]
for p in range(4):
    name = q(f'/ethdev/info,{p}')['name']
    if name != f'{prefix}{p}':
        sys.exit(f'port {p} is {name}, expected {prefix}{p}')
# The forwarding lcore's thread (DPDK names it rte-worker-<lcore>).
tids = [t for t in os.listdir(f'/proc/{pid}/task')
        if open(f'/proc/{pid}/task/{t}/comm').read().startswith('rte-worker')]
if len(tids) != 1:
    sys.exit(f'expected one rte-worker thread in {pid}, found {len(tids)}')
stat = f'/proc/{pid}/task/{tids[0]}/schedstat'
def sample():
    pk = sum(q(f'/ethdev/stats,{p}')['opackets'] for p in range(4))
    return time.monotonic_ns(), int(open(stat).read().split()[0]), pk
time.sleep(warmup)
t0, c0, p0 = sample()
while True:
    time.sleep(0.5)
    t1, c1, p1 = sample()
    if c1 - c0 >= min_cpu * 1e9 or t1 - t0 >= max_wall * 1e9:
        break
if p1 == p0:
    sys.exit('no packets forwarded during the measurement')
print(f'{(p1 - p0) / (t1 - t0) * 1e3:.3f} {(p1 - p0) / max(c1 - c0, 1) * 1e3:.3f} {(c1 - c0) / (t1 - t0):.3f}')
PYEOF
}

stop_app() {
  kill -INT "$APP_PID" 2>/dev/null || true
  local i
  for i in $(seq 50); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$APP_PID" 2>/dev/null && kill -KILL "$APP_PID" 2>/dev/null || true
  wait "$APP_PID" 2>/dev/null || true
  APP_PID=""
}

run_switch() {
  local prefix=svt_sw_$$_$1 log=$WORK/switch_$1.log
  "$PFCSWITCH" -l "$LCORES" --no-pci "${MEM[@]}" --file-prefix "$prefix" --log-level=lib.eal:error \
    "${VDEVS[@]}" -- --config "$CONFIG" --stats-json "$WORK/switch_$1.json" > "$log" 2>&1 &
  APP_PID=$!
  local r
  if ! r=$(measure "/var/run/dpdk/$prefix/dpdk_telemetry.v2" "$APP_PID"); then
    stop_app; cat "$log" >&2; die "pfcswitch run $1 failed"
  fi
  stop_app
  # Every packet that entered must have been forwarded: a drop would mean
  # the switch is not doing the work being timed.
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["drops_total"]==0 else "pfcswitch dropped %d packets" % d["drops_total"])' \
    "$WORK/switch_$1.json" || die "pfcswitch run $1: drops (see $log)"
  R=$r
}

run_testpmd() {
  local prefix=svt_tp_$$_$1 log=$WORK/testpmd_$1.log
  # --stats-period keeps testpmd running without stdin until SIGINT.
  "$TESTPMD" -l "$LCORES" --no-pci "${MEM[@]}" --file-prefix "$prefix" --log-level=lib.eal:error \
    "${VDEVS[@]}" -- --forward-mode=mac --nb-cores=1 "${TP_ARGS[@]}" \
    --burst=32 --total-num-mbufs=16384 --stats-period=100 > "$log" 2>&1 &
  APP_PID=$!
  local r
  if ! r=$(measure "/var/run/dpdk/$prefix/dpdk_telemetry.v2" "$APP_PID"); then
    stop_app; cat "$log" >&2; die "testpmd run $1 failed"
  fi
  stop_app
  R=$r
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "switch_vs_testpmd: ports $PORTS, $RUNS alternating runs per app, ${WARMUP}s warm-up, then until" \
     "${MIN_CPU}s of forwarding CPU (max ${MAX_WALL}s); lcores $LCORES; memory: ${MEM[*]}"
sw_wall=() sw_cpu=() tp_wall=() tp_cpu=()
for run in $(seq "$RUNS"); do
  run_switch "$run"
  read -r w c s <<< "$R"
  echo "run $run pfcswitch: wall ${w} Mpps, ${c} Mpps per forwarding-core CPU-second (core share ${s})"
  sw_wall+=("$w"); sw_cpu+=("$c")
  run_testpmd "$run"
  read -r w c s <<< "$R"
  echo "run $run testpmd  : wall ${w} Mpps, ${c} Mpps per forwarding-core CPU-second (core share ${s})"
  tp_wall+=("$w"); tp_cpu+=("$c")
done

sw_w=$(median "${sw_wall[@]}"); tp_w=$(median "${tp_wall[@]}")
sw_c=$(median "${sw_cpu[@]}"); tp_c=$(median "${tp_cpu[@]}")
echo "median wall-clock:     switch ${sw_w} Mpps, testpmd ${tp_w} Mpps, ratio $(awk -v a="$sw_w" -v b="$tp_w" 'BEGIN {printf "%.3f", a/b}')"
echo "median per CPU-second: switch ${sw_c} Mpps, testpmd ${tp_c} Mpps, ratio $(awk -v a="$sw_c" -v b="$tp_c" 'BEGIN {printf "%.3f", a/b}')"
if [[ $RATE == cpu ]]; then x=$sw_c y=$tp_c; else x=$sw_w y=$tp_w; fi
awk -v x="$x" -v y="$y" 'BEGIN {printf "RESULT switch_mpps=%.2f testpmd_mpps=%.2f ratio=%.3f\n", x, y, x/y}'
