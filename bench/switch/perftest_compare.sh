#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/switch/perftest_compare.sh [BUILDDIR] : RoCEv2 perftest between the two soft-RoCE hosts of ONE boot of
# the rocev2-vm guest through three switches, as VMs are attached in testbeds:
#   pfcswitch  natively on this host, net_vhost ports serving the guest's two virtio-net NICs
#              (tools/rocev2-vm/rocev2-vhost.sh; BUILDDIR's native build, tests/rocev2/rocev2.yaml:
#              routing, lossless class, DSCP 24 -> 26 rewrite);
#   ovs        Open vSwitch-DPDK (Debian's openvswitch-switch-dpdk) natively on this host,
#              dpdkvhostuser ports on the same sockets (tools/rocev2-vm/host-ovs.sh: DSCP rewrite
#              and TTL decrement by OpenFlow rules, layer-2 forwarding);
#   bridge     a Linux bridge inside the guest between veths (the hosts move to veths for it);
#   testpmd    dpdk-testpmd io forwarding on the same sockets: the I/O floor, forwarding with no
#              switching work; it busy-polls a core, which under TCG takes CPU from the guest
#              (not in FWDS by default; FWDS="bridge pfcswitch ovs testpmd" adds it).
# They take turns for ROUNDS rounds (every other round in reverse order) so that drifting load
# on the host hits them alike; each
# metric is the median over the rounds:
#   write_bw  ib_write_bw -s 65536 -n ITERS, BW average (Gb/s): higher is better
#   send_lat  ib_send_lat -s 64 -n ITERS (busy-polling), t_typical (usec): lower is better
#   send_lat_e  the same with -e (sleep on completion events), for reference
# All traffic uses tclass 96 (DSCP 24). Ratios are pfcswitch / other; the last line is
#   RESULT write_bw_vs_ovs=<x> write_bw_vs_bridge=<y> send_lat_vs_ovs=<z>
# (send_lat_vs_ovs < 1 means pfcswitch is faster); the plot is OUT/perftest_compare.png.
# Exit 0 iff every run succeeded; 1 when some failed (RESULT then comes from the runs that
# completed).
# Environment: ROUNDS (3), ITERS (300), IDLE_SLEEP_US (pfcswitch's switch.idle_sleep_us, 300;
# rocev2.yaml has 20), OVS_MAXSLEEP (OVS pmd-maxsleep in us, IDLE_SLEEP_US: the two host switches
# sleep alike; 0 = busy polling),
# FWDS (the switches to run, "bridge pfcswitch ovs"), HV_NICE (-10, both host switches),
# ROCEV2_VM_CACHE, ROCEV2_OUT_DIR.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FWDS=${FWDS:-bridge pfcswitch ovs}
# The host switches' sleep. Under TCG the guest's vCPUs are the bottleneck and every wake-up of a
# host switch thread (nice -10) takes CPU from them: the longer a switch sleeps while a stream
# flows, the more bandwidth the guest has, and the longer a request can wait (docs/howto/vms.md, "Attaching
# VMs"; measured, docs/results.md: pfcswitch at 100 / 300 / 1,000 us about 0.10 / 0.14 / 0.14-0.16 Gb/s and
# 0.5 / 0.44 / 1.2 ms; OVS at pmd-maxsleep 50 us 3-4 ms, at 300 us 0.45 ms, at 1,000 us 1.1 ms).
# 300 us is the middle; OVS gets the same by default.
IDLE_SLEEP_US=${IDLE_SLEEP_US:-300}
export OVS_MAXSLEEP=${OVS_MAXSLEEP:-$IDLE_SLEEP_US}  # host-ovs.sh reads it
CFG=${CFG:-$ROOT/tests/rocev2/rocev2.yaml}
NAN="RESULT write_bw_vs_ovs=nan write_bw_vs_bridge=nan send_lat_vs_ovs=nan"

if [ "${1:-}" != "--in-guest" ]; then
  BUILD=$(cd "${1:-$ROOT/build}" && pwd) || exit 2
  [ -x "$BUILD/dataplane/pfcswitch/pfcswitch" ] || { echo "no pfcswitch in $BUILD (ninja -C $BUILD)"; echo "$NAN"; exit 2; }
  [ -x /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk ] ||
    { echo "perftest_compare: needs Open vSwitch-DPDK: apt-get install openvswitch-switch-dpdk"; echo "$NAN"; exit 77; }
  OUT=${ROCEV2_OUT_DIR:-$BUILD/meson-logs/perftest_compare}
  rm -rf "$OUT"; mkdir -p "$OUT"
  # The switch's config, in the output directory the guest sees as /rocev2-out.
  sed "s/idle_sleep_us: *[0-9]*/idle_sleep_us: $IDLE_SLEEP_US/" "$CFG" > "$OUT/switch.yaml"
  T0=$(date +%s)
  CTL=()
  [ -x "$BUILD/dataplane/pfcctl/pfcctl" ] && CTL=(--pfcctl "$BUILD/dataplane/pfcctl/pfcctl")
  "$ROOT/tools/rocev2-vm/rocev2-vhost.sh" --pfcswitch "$BUILD/dataplane/pfcswitch/pfcswitch" "${CTL[@]}" \
    --config "$OUT/switch.yaml" -q -t 1200 -b 300 -o "$OUT" -- env ROUNDS="${ROUNDS:-3}" ITERS="${ITERS:-300}" \
    FWDS="$FWDS" CFG=/rocev2-out/switch.yaml IDLE_SLEEP_US="$IDLE_SLEEP_US" OVS_MAXSLEEP="$OVS_MAXSLEEP" \
    "$HERE/perftest_compare.sh" --in-guest
  rc=$?
  [ -f "$OUT/compare.log" ] && cat "$OUT/compare.log"
  if [ -s "$OUT/samples.txt" ]; then
    /usr/bin/python3 "$HERE/perftest_compare_plot.py" "$OUT/samples.txt" "$OUT/perftest_compare.png" &&
      echo "perftest_compare: plot $OUT/perftest_compare.png"
  fi
  echo "perftest_compare: guest exit $rc after $(( $(date +%s) - T0 )) s; artifacts in $OUT"
  # A run that failed (soft-RoCE under TCG now and then ends a run with "Failed status 9",
  # through the in-guest bridge too) is counted in compare.log's header and makes the exit
  # status 1; the medians of the runs that completed are still the RESULT.
  [ $rc -eq 0 ] || [ $rc -eq 1 ] || { [ $rc -ne 77 ] && tail -n 25 "$OUT/console.log"; echo "$NAN"; exit $rc; }
  tail -n 1 "$OUT/compare.log" 2>/dev/null | grep '^RESULT ' || { tail -n 25 "$OUT/console.log"; echo "$NAN"; exit 1; }
  exit $rc
fi

# ---- inside the guest -----------------------------------------------------------------------
. "$ROOT/tools/rocev2-vm/guest-lib.sh"
LOG=$RV_OUT/compare.log
ROUNDS=${ROUNDS:-3} ITERS=${ITERS:-300}
say() { echo "$*" | tee -a "$LOG"; }
rv_require ib_write_bw ib_send_lat tcpdump ethtool ss bc python3 || exit 77
FAILS=0 NET=""
use_net() {  # use_net veth|vhost : the hosts' links for the next forwarder
  [ "$NET" = "$1" ] && return 0
  [ -n "$NET" ] && rv_net_teardown >> "$RV_OUT/setup.txt" 2>&1
  NET=$1 RV_NET=$1
  rv_net_setup >> "$RV_OUT/setup.txt" 2>&1 || { cat "$RV_OUT/setup.txt"; return 1; }
}
record() {  # record FWD METRIC VALUE
  echo "$1 $2 $3" >> "$RV_OUT/samples.txt"
}
for r in $(seq "$ROUNDS"); do
  # Every other round in reverse order: the hosts move between veths and NICs less often
  # (that takes tens of seconds under TCG), and no switch always runs right after the bridge.
  order=$FWDS
  [ $((r % 2)) = 0 ] && order=$(echo $FWDS | tr ' ' '\n' | tac | tr '\n' ' ')
  for f in $order; do
    if [ $f = bridge ]; then use_net veth; else use_net vhost; fi || { FAILS=$((FAILS + 1)); continue; }
    rv_fwd_start $f "$CFG" || { FAILS=$((FAILS + 1)); say "round $r: $f did not start"; continue; }
    if rv_perf r$r.$f.write_bw ib_write_bw -s 65536 -n "$ITERS" --report_gbits --tclass=96; then
      record $f write_bw "$(rv_perf_metric bw)"
    else FAILS=$((FAILS + 1)); fi
    if rv_perf r$r.$f.send_lat ib_send_lat -s 64 -n "$ITERS" --tclass=96; then
      record $f send_lat "$(rv_perf_metric lat)"
    else FAILS=$((FAILS + 1)); fi
    if rv_perf r$r.$f.send_lat_e ib_send_lat -s 64 -n "$ITERS" -e --tclass=96; then
      record $f send_lat_e "$(rv_perf_metric lat)"
    else FAILS=$((FAILS + 1)); fi
    rv_fwd_stop > /dev/null || { FAILS=$((FAILS + 1)); say "round $r: $f did not stop cleanly"; continue; }
    if [ $f = pfcswitch ]; then
      cp "${RV_SW_STATS[main]}" "$RV_OUT/r$r.pfcswitch.stats.json"
      python3 "$ROOT/tools/rocev2-vm/switch_stats.py" check "$RV_OUT/r$r.pfcswitch.stats.json" \
        '*.lossless.drops_total==0' 'p1.prio4.tx_packets>0' > "$RV_OUT/r$r.switch_check.txt" ||
        { FAILS=$((FAILS + 1)); say "round $r: pfcswitch counters wrong: $(grep FAIL "$RV_OUT/r$r.switch_check.txt")"; }
    fi
    if [ $f = ovs ]; then  # the tclass 96 traffic took OVS's DSCP-rewrite rule
      cp "$RV_OUT/ovs.flows.$RV_FWD_SEQ.txt" "$RV_OUT/r$r.ovs.flows.txt"
      grep -q 'n_packets=[1-9][0-9]*,.*priority=20,.*nw_tos=96' "$RV_OUT/r$r.ovs.flows.txt" ||
        { FAILS=$((FAILS + 1)); say "round $r: no packet took OVS's tos 96 rule (see r$r.ovs.flows.txt)"; }
    fi
  done
done

python3 "$HERE/perftest_compare_table.py" "$RV_OUT/samples.txt" "$ROUNDS" "$ITERS" "$FAILS" >> "$LOG"
[ $FAILS -eq 0 ]
