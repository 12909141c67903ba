#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pfcswitch vs Open vSwitch with DPDK (Debian's openvswitch-switch-dpdk), the
# switch users would run instead, on the same virtual ports doing the same
# per-packet work, in the same run, alternating, several times; the rate is
# packets per CPU-second of the forwarding thread (pfcswitch's worker lcore,
# OVS's PMD thread), medians over the runs. Both port kinds are measured:
#  * ring: four self-looped net_ring ports (bench/switch/fwd_common.sh), 128 frames
#    circulating. pfcswitch: static L2 (bench/switch/vs_testpmd.yaml). OVS:
#    per port, match in_port + dl_dst + DSCP, set DSCP (24 <-> 26 swap, 10
#    kept, others untouched), output to the port it came from. On this loop
#    OVS runs on its megaflow classifier (its exact-match cache inserts only
#    1 flow in 100 by default and hits rarely). OVS gets its frames by
#    packet-out; pfcswitch reads them from a fifth port (net_pcap0, a finite
#    capture) which it keeps polling, idle, so the comparison slightly
#    favours OVS.
#  * pcap: four net_pcap ports replaying a pcap forever (a copy per packet,
#    tx dropped). pfcswitch: the full L3 pipeline
#    (bench/switch/vs_testpmd_l3.yaml). OVS, for the same work: match in_port
#    + dl_dst (the switch's port MAC) + DSCP + the destination /16, set DSCP
#    as the switch's rewrite rules do, decrement the TTL, rewrite both MACs,
#    output to the next port. Here OVS's exact-match cache hits nearly always.
# The bench/switch/vs_testpmd.sh comparison is the I/O floor (testpmd only
# passes pointers); this one is the comparison with a real switch.
#
# Prints per-run lines, the medians, and as its LAST line:
#   RESULT switch_mpps=<x> ovs_mpps=<y> ratio=<x/y> pcap_switch_mpps=<x> pcap_ovs_mpps=<y> pcap_ratio=<x/y>
# (the first three for net_ring; with PORTS=ring or pcap only that kind, as
# switch_mpps/ovs_mpps/ratio).
#
# Usage: bench/switch/vs_ovs.sh [BUILD_DIR]      (default build)
#   env: RUNS=3 (runs per app and port kind, alternating)  WARMUP=1 (s)
#        MIN_CPU=1.0 (s of forwarding-thread CPU time to measure over, at
#          most MAX_WALL=15 s of wall time)  LCORES=0,1 (main lcore, forwarding
#          lcore / OVS PMD core)  HUGE=0|1 (1: hugepages, needs free 2 MB pages)
#        PORTS=both|ring|pcap  KEEP_WORK=1 (keep the logs and OVS's files)
#
# OVS runs from temporary directories (database, run dir with its control
# sockets, logs) under this run's work directory, as its own ovsdb-server
# and ovs-vswitchd processes, which are stopped after every run and on any
# exit (trap): no daemon is left behind, and an OVS the host may already
# run is not touched. If openvswitch-switch-dpdk is missing it is installed
# from Debian (root), and the ovs-vswitchd alternative is pointed at its
# DPDK build; Debian starts no service when the host's policy-rc.d says so,
# otherwise the package's own openvswitch-switch service may start (it does
# not use DPDK by default and does not share anything with this run).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "switch_vs_ovs: $*" >&2; exit 1; }
# OVS asks for 262,144 mbufs of ~3 kB (about 800 MB) per MTU; both apps get
# this much (pfcswitch sizes its pool from its config, not from -m).
MEM_MB=${MEM_MB:-2048}
# shellcheck source=bench/switch/fwd_common.sh
source "$SRC/bench/switch/fwd_common.sh" "${1:-build}"
PORTS=${PORTS:-both}
VSWITCHD_DPDK=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
[[ $PORTS == both || $PORTS == ring || $PORTS == pcap ]] || die "PORTS must be both, ring or pcap"
[[ $LCORES =~ ^([0-9]+),([0-9]+)$ ]] || die "LCORES must be MAIN,FORWARDING (two CPU numbers), got '$LCORES'"
MAIN_CPU=${BASH_REMATCH[1]} FWD_CPU=${BASH_REMATCH[2]}

if ! dpkg -s openvswitch-switch-dpdk > /dev/null 2>&1; then
  [[ $(id -u) == 0 ]] || die "openvswitch-switch-dpdk is not installed (apt-get install openvswitch-switch-dpdk as root)"
  echo "switch_vs_ovs: installing openvswitch-switch-dpdk from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends openvswitch-switch-dpdk > /dev/null ||
    { apt-get update > /dev/null && apt-get install -y --no-install-recommends openvswitch-switch-dpdk > /dev/null; } ||
    die "could not install openvswitch-switch-dpdk"
fi
[[ -x $VSWITCHD_DPDK ]] || die "$VSWITCHD_DPDK missing (package openvswitch-switch-dpdk)"
if [[ $(readlink -f /usr/sbin/ovs-vswitchd) != "$VSWITCHD_DPDK" ]]; then
  [[ $(id -u) == 0 ]] || die "ovs-vswitchd is not the DPDK build: update-alternatives --set ovs-vswitchd $VSWITCHD_DPDK"
  update-alternatives --set ovs-vswitchd "$VSWITCHD_DPDK" > /dev/null
fi
VSWITCHD=/usr/sbin/ovs-vswitchd
"$VSWITCHD" --version | grep -q DPDK || die "$VSWITCHD has no DPDK support"
for t in ovsdb-tool ovsdb-server ovs-vsctl ovs-ofctl ovs-appctl; do
  command -v "$t" > /dev/null || die "$t not found (package openvswitch-common/-switch)"
done

WORK=$(mktemp -d /tmp/switch_vs_ovs.XXXXXX)

OVS_DIR=""        # the current OVS run's directory (db, sockets, logs)
OVSDB_PID="" VSWITCHD_PID=""
# Stops this run's ovs-vswitchd and ovsdb-server: politely through their
# control sockets, then by signal; waits until both are gone.
stop_ovs() {
  [[ -n $OVS_DIR ]] || return 0
  if [[ -n $VSWITCHD_PID ]]; then
    ovs-appctl -t "$OVS_DIR/vswitchd.ctl" --timeout=5 exit > /dev/null 2>&1 || kill -TERM "$VSWITCHD_PID" 2>/dev/null || true
  fi
  if [[ -n $OVSDB_PID ]]; then
    ovs-appctl -t "$OVS_DIR/ovsdb.ctl" --timeout=5 exit > /dev/null 2>&1 || kill -TERM "$OVSDB_PID" 2>/dev/null || true
  fi
  local pid i
  for pid in $VSWITCHD_PID $OVSDB_PID; do
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  VSWITCHD_PID="" OVSDB_PID=""
  rm -rf "/var/run/dpdk/$(basename "$OVS_DIR")"
  OVS_DIR=""
}
cleanup() {
  stop_app
  stop_ovs
  if [[ ${KEEP_WORK:-0} == 1 ]]; then echo "switch_vs_ovs: logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The OpenFlow rules for the current port kind (see the header). OpenFlow
# port k+1 is net_ring<k> / net_pcap<k>; nw_tos is the DSCP shifted left 2.
ovs_flows() {
  "$PY" - "$1" <<'PYEOF'
import sys
mode = sys.argv[1]
host = lambda p: f'02:00:00:00:{p:02x}:02'
port_mac = lambda p: f'02:00:00:00:00:{0x10 + p:02x}'
for p in range(4):
    if mode == 'ring':
        m = f'in_port={p + 1},dl_dst={host(p)},ip'
        print(f'priority=10,{m},nw_tos=96,actions=mod_nw_tos:104,in_port')
        print(f'priority=10,{m},nw_tos=104,actions=mod_nw_tos:96,in_port')
        print(f'priority=10,{m},nw_tos=40,actions=mod_nw_tos:40,in_port')
        print(f'priority=5,{m},actions=in_port')
    else:
        q = (p + 1) % 4
        m = f'in_port={p + 1},dl_dst={port_mac(p)},ip,nw_dst=10.{10 + q}.0.0/16'
        fwd = f'dec_ttl,mod_dl_src:{port_mac(q)},mod_dl_dst:{host(q)},output:{q + 1}'
        # pfcswitch's L3 rules: 24 -> 26 on p0->p1 and p2->p3, else kept.
        print(f'priority=10,{m},nw_tos=96,actions=mod_nw_tos:{104 if p in (0, 2) else 96},{fwd}')
        print(f'priority=10,{m},nw_tos=104,actions=mod_nw_tos:104,{fwd}')
        print(f'priority=10,{m},nw_tos=40,actions=mod_nw_tos:40,{fwd}')
        print(f'priority=5,{m},actions={fwd}')
PYEOF
}

# Packets OVS's datapath dropped so far (its datapath_drop_* coverage counters).
ovs_drops() {
  ovs-appctl -t "$OVS_DIR/vswitchd.ctl" coverage/show | awk '$1 ~ /^datapath_drop/ {n += $NF} END {print n + 0}'
}

# run_ovs TAG MODE: a fresh ovsdb-server + ovs-vswitchd (dpdk-init, main
# lcore on MAIN_CPU, one PMD thread on FWD_CPU), bridge br0 (netdev
# datapath) over the four ports, the rules, then (ring) the seed frames by
# packet-out, measured.
run_ovs() {
  local tag=$1 mode=$2
  local prefix=svo_$$_$tag
  OVS_DIR=$WORK/$prefix
  mkdir -p "$OVS_DIR"
  local db=unix:$OVS_DIR/db.sock
  export OVS_RUNDIR=$OVS_DIR OVS_LOGDIR=$OVS_DIR OVS_DBDIR=$OVS_DIR OVS_SYSCONFDIR=$OVS_DIR
  ovsdb-tool create "$OVS_DIR/conf.db" /usr/share/openvswitch/vswitch.ovsschema
  ovsdb-server "$OVS_DIR/conf.db" --remote="punix:$OVS_DIR/db.sock" --unixctl="$OVS_DIR/ovsdb.ctl" \
    --log-file="$OVS_DIR/ovsdb.log" > /dev/null 2>&1 &
  OVSDB_PID=$!
  local i
  for i in $(seq 100); do [[ -S $OVS_DIR/db.sock ]] && break; sleep 0.1; done
  [[ -S $OVS_DIR/db.sock ]] || die "ovsdb-server did not start (see $OVS_DIR/ovsdb.log)"
  local vsctl=(ovs-vsctl --db="$db" --timeout=60)
  # OVS adds --in-memory to EAL unless --legacy-mem is given, and
  # --in-memory refuses --no-huge (which implies legacy memory).
  local eal_mem
  if [[ $HUGE == 1 ]]; then eal_mem="--in-memory"; else eal_mem="--no-huge --legacy-mem -m $MEM_MB --no-shconf"; fi
  "${vsctl[@]}" --no-wait init
  "${vsctl[@]}" --no-wait set Open_vSwitch . other_config:dpdk-init=true \
    "other_config:dpdk-lcore-mask=$(printf '0x%x' $((1 << MAIN_CPU)))" \
    "other_config:pmd-cpu-mask=$(printf '0x%x' $((1 << FWD_CPU)))" \
    "other_config:dpdk-extra=$eal_mem --no-pci --file-prefix $prefix --log-level=lib.eal:error ${VDEVS[*]}"
  "$VSWITCHD" "$db" --unixctl="$OVS_DIR/vswitchd.ctl" --log-file="$OVS_DIR/vswitchd.log" > "$OVS_DIR/vswitchd.out" 2>&1 &
  VSWITCHD_PID=$!
  "${vsctl[@]}" add-br br0 -- set bridge br0 datapath_type=netdev ||
    { tail -20 "$OVS_DIR/vswitchd.log" >&2; die "ovs-vswitchd did not take the bridge"; }
  # The rules go in before the ports: a pcap port starts receiving as soon
  # as it is added, and nothing may take the default NORMAL rule.
  local br=unix:$OVS_DIR/br0.mgmt
  ovs_flows "$mode" > "$OVS_DIR/flows.txt"
  ovs-ofctl del-flows "$br"
  ovs-ofctl add-flows "$br" "$OVS_DIR/flows.txt"
  # A net_ring rx queue i shares ring i with tx queue i, and OVS transmits
  # from its PMD on tx queue 1 (queue 0 is the main thread's), so the PMD
  # must poll rx queue 1 too: n_rxq=2. A pcap port has one queue per file.
  local nrxq=1 k
  [[ $mode == ring ]] && nrxq=2
  for k in 0 1 2 3; do
    "${vsctl[@]}" add-port br0 "p$k" -- set Interface "p$k" type=dpdk \
      "options:dpdk-devargs=$PORT_PREFIX$k" "options:n_rxq=$nrxq" "ofport_request=$((k + 1))"
    local err
    err=$("${vsctl[@]}" get Interface "p$k" error 2>/dev/null || true)
    [[ -z $err || $err == '[]' ]] ||
      { grep -v "|INFO|" "$OVS_DIR/vswitchd.log" | tail -15 >&2; die "OVS port p$k ($PORT_PREFIX$k): $err"; }
    [[ $("${vsctl[@]}" get Interface "p$k" ofport) == $((k + 1)) ]] || die "OVS port p$k did not get OpenFlow port $((k + 1))"
  done
  # Frames sent before the rules exist would be lost, so they go in now:
  # one packet-out per port with its 32 frames, out of port k+1 (the main
  # thread's tx queue 0, which the PMD reads back as rx queue 0).
  if [[ $mode == ring ]]; then
    for k in 0 1 2 3; do
      # shellcheck disable=SC2046
      ovs-ofctl packet-out "$br" controller "output:$((k + 1))" $(awk -v p="$k" '$1 == p {print $2}' "$WORK/seed.hex")
    done
  fi
  # Like pfcswitch's drops_total: OVS must drop nothing it was asked to
  # forward while it is measured. A pcap port receives from the moment it
  # is added, and while the other ports are added (each one reconfigures
  # the PMD) some of its packets are lost to upcall errors: that is set-up,
  # not the work being timed (on a loaded machine OVS's main thread can
  # lag the PMD by seconds), so the window starts once the drop counters
  # have stood still for 2 s. What the pcap device drops on tx is not OVS's doing and
  # not counted.
  local r d0 d1 i still=0
  d0=$(ovs_drops)
  for i in $(seq 60); do
    sleep 0.5
    d1=$(ovs_drops)
    if [[ $d1 == "$d0" ]]; then still=$((still + 1)); else still=0; fi
    d0=$d1
    ((still < 4)) || break
  done
  if ! r=$(measure "/var/run/dpdk/$prefix/dpdk_telemetry.v2" "$VSWITCHD_PID" pmd-c); then
    tail -20 "$OVS_DIR/vswitchd.log" >&2; die "OVS run $tag failed"
  fi
  d1=$(ovs_drops)
  [[ $d1 == "$d0" ]] || { ovs-appctl -t "$OVS_DIR/vswitchd.ctl" coverage/show | grep datapath_drop >&2
                          die "OVS run $tag dropped $((d1 - d0)) packets while measured"; }
  if [[ $tag == 1-$mode ]]; then
    ovs-appctl -t "$OVS_DIR/vswitchd.ctl" dpif-netdev/pmd-perf-show | grep -E 'EMC hits|SMC hits|Megaflow hits|Upcalls' |
      sed 's/^ */  OVS cache: /'
  fi
  stop_ovs
  R=$r
}

# compare MODE: RUNS alternating runs of each app on that port kind; sets
# SW_CPU OVS_CPU (medians per CPU-second).
compare() {
  local mode=$1
  fwd_ports "$mode"
  echo "switch_vs_ovs: ports $mode, $RUNS alternating runs per app, ${WARMUP}s warm-up, then until" \
       "${MIN_CPU}s of forwarding CPU (max ${MAX_WALL}s); lcores $LCORES; memory: ${MEM[*]}"
  local run w c s sw_wall=() sw_cpu=() ovs_wall=() ovs_cpu=()
  for run in $(seq "$RUNS"); do
    run_switch "$run-$mode"
    read -r w c s <<< "$R"
    echo "run $run $mode pfcswitch: wall ${w} Mpps, ${c} Mpps per forwarding-thread CPU-second (core share ${s})"
    sw_wall+=("$w"); sw_cpu+=("$c")
    run_ovs "$run-$mode" "$mode"
    read -r w c s <<< "$R"
    echo "run $run $mode OVS-DPDK : wall ${w} Mpps, ${c} Mpps per PMD-thread CPU-second (core share ${s})"
    ovs_wall+=("$w"); ovs_cpu+=("$c")
  done
  local sw_w ovs_w
  sw_w=$(median "${sw_wall[@]}"); ovs_w=$(median "${ovs_wall[@]}")
  SW_CPU=$(median "${sw_cpu[@]}"); OVS_CPU=$(median "${ovs_cpu[@]}")
  echo "$mode median wall-clock:     switch ${sw_w} Mpps, OVS ${ovs_w} Mpps, ratio $(ratio "$sw_w" "$ovs_w")"
  echo "$mode median per CPU-second: switch ${SW_CPU} Mpps, OVS ${OVS_CPU} Mpps, ratio $(ratio "$SW_CPU" "$OVS_CPU")"
}

result() { awk -v x="$2" -v y="$3" -v p="$1" 'BEGIN {printf "%sswitch_mpps=%.2f %sovs_mpps=%.2f %sratio=%.3f", p, x, p, y, p, x/y}'; }
line="RESULT"
if [[ $PORTS != pcap ]]; then
  compare ring
  line+=" $(result "" "$SW_CPU" "$OVS_CPU")"
fi
if [[ $PORTS != ring ]]; then
  compare pcap
  if [[ $PORTS == pcap ]]; then line+=" $(result "" "$SW_CPU" "$OVS_CPU")"; else line+=" $(result pcap_ "$SW_CPU" "$OVS_CPU")"; fi
fi
echo "$line"
