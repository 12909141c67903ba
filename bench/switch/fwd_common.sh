# SPDX-License-Identifier: BSD-3-Clause
# Shared by bench/switch/vs_testpmd.sh, vs_ovs.sh and workers_scaling.sh (sourced
# as `source "$SRC/bench/switch/fwd_common.sh" BUILD_DIR`, after they set SRC and define die()):
# the common settings, the virtual ports, the seed frames, running an app on
# them and measuring its forwarding thread's rate per CPU-second.

BUILD=$1
PFCSWITCH=$BUILD/dataplane/pfcswitch/pfcswitch
PY=/usr/bin/python3
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-1}
MIN_CPU=${MIN_CPU:-1.0}
MAX_WALL=${MAX_WALL:-15}
LCORES=${LCORES:-0,1}
HUGE=${HUGE:-0}
[[ -x $PFCSWITCH ]] || die "no pfcswitch at $PFCSWITCH (build first: ninja -C $BUILD)"
[[ -x $PY ]] || die "$PY not found"

# EAL memory options, the same for every app of a comparison.
if [[ $HUGE == 1 ]]; then
  MEM=(--in-memory)
else
  MEM=(--no-huge -m "${MEM_MB:-512}" --no-shconf)
fi

# fwd_ports ring|pcap: sets CONFIG (pfcswitch's config), VDEVS (the EAL
# --vdev options of ports 0-3), SEED_VDEV (a fifth port pfcswitch and
# testpmd take the ring population from; empty for pcap), PORT_PREFIX (the
# driver name of ports 0-3) and writes the seed frames into $WORK.
#  ring: four self-looped net_ring ports (what is sent on port N comes back
#    on port N), static-L2 config. 128 frames in seed.pcap (32 per port, dst
#    MAC = the host the L2 table puts on that port), read once by the fifth
#    port net_pcap0, and the same frames as "PORT HEX" lines in seed.hex;
#    SEED_ORDER=interleaved (default: the ports' frames alternate in the
#    file) or block (32 of port 0 first, then port 1, ...), see below.
#  pcap: four net_pcap ports replaying seedN.pcap forever (infinite_rx=1,
#    tx dropped): 64 frames per port from host N to the switch's port-N MAC,
#    addressed to 10.<10+(N+1)%4>.k.1 (routed out of port N+1); L3 config.
# Tags cycle 24, 26, 10, 0 in both.
fwd_ports() {
  local mode=$1
  if [[ $mode == ring ]]; then
    CONFIG=$SRC/bench/switch/vs_testpmd.yaml
    VDEVS=(--vdev net_ring0 --vdev net_ring1 --vdev net_ring2 --vdev net_ring3)
    SEED_VDEV=(--vdev "net_pcap0,rx_pcap=$WORK/seed.pcap")
    PORT_PREFIX=net_ring
  else
    CONFIG=$SRC/bench/switch/vs_testpmd_l3.yaml
    VDEVS=()
    for i in 0 1 2 3; do VDEVS+=(--vdev "net_pcap$i,rx_pcap=$WORK/seed$i.pcap,infinite_rx=1"); done
    SEED_VDEV=()
    PORT_PREFIX=net_pcap
  fi
  "$PY" - "$WORK" "$mode" "${SEED_ORDER:-interleaved}" <<'PYEOF'
import struct, sys
work, mode, order = sys.argv[1], sys.argv[2], sys.argv[3]
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
    # The seed port allocates one mbuf per frame, in file order, from
    # consecutive pool memory, and a frame keeps its mbuf for the whole run.
    # interleaved (p0, p1, p2, p3, p0, ...) scatters each port's mbufs as a
    # NIC's rx would; block (32 of p0, then 32 of p1, ...) gives each port
    # one contiguous 76 KB run, and with ports on two workers the cores'
    # prefetchers, running past the end of one port's run into the next
    # (another worker's), halved the two-worker rate (docs/results.md, workers row).
    if order not in ('interleaved', 'block'):
        sys.exit(f'SEED_ORDER={order}: expected interleaved or block')
    pk = [(p, k) for k in range(32) for p in range(4)] if order == 'interleaved' else \
         [(p, k) for p in range(4) for k in range(32)]
    seeds = [(p, frame([2, 0, 0, 0, p, 2], p, k, [10, 1, p, 2 + k])) for p, k in pk]
    write(f'{work}/seed.pcap', [fr for _, fr in seeds])
    with open(f'{work}/seed.hex', 'w') as f:
        f.writelines(f'{p} {fr.hex()}\n' for p, fr in seeds)
else:
    for p in range(4):
        write(f'{work}/seed{p}.pcap', [frame([2, 0, 0, 0, 0, 0x10 + p], p, k, [10, 10 + (p + 1) % 4, k, 1])
                                       for k in range(64)])
PYEOF
}

# measure SOCKET PID THREAD: after WARMUP, counts opackets of ports 0-3
# (DPDK's own telemetry, /ethdev/stats: the same counter for every app) and
# the CPU time of the forwarding threads (those whose names start with
# THREAD: FWD_THREADS of them, default 1) until they have run MIN_CPU
# seconds together (or MAX_WALL passed). Prints "wall_mpps cpu_mpps
# core_share" (cpu_mpps: packets per CPU-second of all of them). CPU time is
# schedstat's run time (ns; /proc/PID/task/TID/stat has the same in 10 ms
# ticks).
measure() {
  "$PY" - "$1" "$2" "$3" "$WARMUP" "$MIN_CPU" "$MAX_WALL" "$PORT_PREFIX" "${FWD_THREADS:-1}" <<'PYEOF'
import json, os, socket, sys, time
sock, pid, thread = sys.argv[1], int(sys.argv[2]), sys.argv[3]
warmup, min_cpu, max_wall, prefix = float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
nthreads = int(sys.argv[8])
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
tids = [t for t in os.listdir(f'/proc/{pid}/task')
        if open(f'/proc/{pid}/task/{t}/comm').read().startswith(thread)]
if len(tids) != nthreads:
    sys.exit(f'expected {nthreads} {thread}* thread(s) in {pid}, found {len(tids)}')
stats = [f'/proc/{pid}/task/{t}/schedstat' for t in tids]
def sample():
    ports = [q(f'/ethdev/stats,{p}')['opackets'] for p in range(4)]
    cpus = [int(open(f).read().split()[0]) for f in stats]
    return time.monotonic_ns(), sum(cpus), sum(ports), ports, cpus
time.sleep(warmup)
t0, c0, p0, ports0, cpus0 = sample()
while True:
    time.sleep(0.5)
    t1, c1, p1, ports1, cpus1 = sample()
    if c1 - c0 >= min_cpu * 1e9 or t1 - t0 >= max_wall * 1e9:
        break
# Per port and per thread, for finding which of several threads is slow.
print('  ports Mpps (wall): ' + ' '.join(f'{(b - a) / (t1 - t0) * 1e3:.2f}' for a, b in zip(ports0, ports1)) +
      '; threads CPU share: ' + ' '.join(f'{(b - a) / (t1 - t0):.3f}' for a, b in zip(cpus0, cpus1)),
      file=sys.stderr)
if p1 == p0:
    sys.exit('no packets forwarded during the measurement')
print(f'{(p1 - p0) / (t1 - t0) * 1e3:.3f} {(p1 - p0) / max(c1 - c0, 1) * 1e3:.3f} {(c1 - c0) / (t1 - t0):.3f}')
PYEOF
}

APP_PID=""
# SIGINT, then SIGKILL after 5 s; waits for the process.
stop_app() {
  [[ -n $APP_PID ]] || return 0
  kill -INT "$APP_PID" 2>/dev/null || true
  local i
  for i in $(seq 50); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$APP_PID" 2>/dev/null && kill -KILL "$APP_PID" 2>/dev/null || true
  wait "$APP_PID" 2>/dev/null || true
  APP_PID=""
}

R=""

# run_app NAME TAG THREAD PREFIX CMD...: runs CMD (an EAL app started with
# --file-prefix PREFIX) in the background, logging to $WORK/NAME_TAG.log,
# measures it (THREAD: its forwarding thread's name prefix) and stops it;
# R = "wall_mpps cpu_mpps share".
run_app() {
  local name=$1 tag=$2 thread=$3 prefix=$4
  shift 4
  local log=$WORK/${name}_$tag.log r
  "$@" > "$log" 2>&1 &
  APP_PID=$!
  if ! r=$(measure "/var/run/dpdk/$prefix/dpdk_telemetry.v2" "$APP_PID" "$thread"); then
    stop_app; cat "$log" >&2; die "$name run $tag failed"
  fi
  stop_app
  rm -rf "/var/run/dpdk/$prefix"
  R=$r
}

# run_switch TAG: pfcswitch on VDEVS + SEED_VDEV with CONFIG, measured; fails on any drop.
run_switch() {
  local prefix=fwd_sw_$$_$1 stats=$WORK/switch_$1.json
  run_app pfcswitch "$1" rte-worker "$prefix" \
    "$PFCSWITCH" -l "$LCORES" --no-pci "${MEM[@]}" --file-prefix "$prefix" --log-level=lib.eal:error \
    "${VDEVS[@]}" "${SEED_VDEV[@]}" -- --config "$CONFIG" --stats-json "$stats"
  # Every packet that entered must have been forwarded: a drop would mean
  # the switch is not doing the work being timed.
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["drops_total"]==0 else "pfcswitch dropped %d packets" % d["drops_total"])' \
    "$stats" || die "pfcswitch run $1: drops (see $WORK/pfcswitch_$1.log)"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a/b}'; }
