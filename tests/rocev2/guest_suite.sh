#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The rocev2 suite's body: runs INSIDE the rocev2-vm guest (started by rocev2_test.sh), as root.
# Real RoCEv2 from rdma-core perftest between two soft-RoCE hosts, through pfcswitch (topology and
# helpers: tools/rocev2-vm/guest-lib.sh). With RV_NET=vhost (rocev2_test.sh's default) the hosts
# sit on the guest's two virtio-net NICs and pfcswitch runs natively on the host with net_vhost
# ports (tools/rocev2-vm/rocev2-vhost.sh); with RV_NET=veth it runs inside the guest on
# net_af_packet ports over veths. Checks:
#   1. ib_write_bw, ib_send_bw, ib_send_lat, ib_read_lat complete (exit 0 on both sides) in the
#      lossless class (tclass 96 = DSCP 24 -> priority 3), and the switch counts packets on both
#      ports, rewrites, and no drop at all in a lossless priority;
#   2. tclass 96 (DSCP 24, a tag with a rule): arrives at b0 as DSCP 26 (TOS 0x68), routed
#      (TTL 63); the ACKs (rule p1 -> p0 keeps 24) arrive at a0 as DSCP 24, and rxe completes;
#   3. tclass 184 (DSCP 46, no rule in rocev2.yaml): arrives with the lossy tag 0 both ways, is
#      counted as lossy, and rxe still completes;
#   4. PFC (skipped with ROCEV2_PFC=0): two switches in a row, the second shaped below the load:
#      PFC frames leave the first switch towards the sender (decoded by tshark) and the lossless
#      counters stay at zero drops on the second switch;
#   3b. ECN: tclass 98 (DSCP 24 with ECT(0): rxe puts the tclass in the TOS byte as it is) is
#      marked CE by the switch on its way to b0 (rocev2.yaml's ecn section), tclass 96 (Not-ECT)
#      never is, rxe completes with the marks, and rxe at b0 sends no CNP (opcode 0x81) back to
#      a0: soft-RoCE has no DCQCN notification point (nor a reaction point);
#   5. the switch stops cleanly on SIGINT and its exit counters agree;
#   6. fabric (with --pfcfabric; skipped with ROCEV2_FABRIC=0): the hosts keep their addresses and
#      reach each other across three emulated switches in one pfcfabric process (fabric3.yaml),
#      always inside the guest on veths (with RV_NET=vhost the hosts move to veths for it):
#      ib_write_bw completes, TTL at b0 is 61 (three routed hops), every switch forwarded, and
#      no lossless drop anywhere.
# Usage: guest_suite.sh --pfcswitch BIN --config YAML [--pfcctl BIN] [--pfcfabric BIN]
#   (with RV_NET=vhost, --pfcswitch and --pfcctl are not used: the host runs its own build)
#        [--forwarder testpmd]
#   --forwarder testpmd runs the same perftests and captures through dpdk-testpmd instead
#   (harness self-check: tags must arrive unchanged, no switch counters).
# Exit: 0 all checks passed, 1 some failed, 77 a prerequisite is missing in the guest.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# The switches may preempt the busy-polling perftest processes at once (see guest-lib.sh).
RV_FWD_NICE=${RV_FWD_NICE:--10}
. "$ROOT/tools/rocev2-vm/guest-lib.sh"
STATS="python3 $ROOT/tools/rocev2-vm/switch_stats.py"
FWD=pfcswitch CFG="" N=${ROCEV2_ITERS:-200} FABRIC_BIN=
while [ $# -gt 0 ]; do
  case $1 in
    --pfcswitch) RV_PFCSWITCH=$2; shift 2 ;;
    --pfcctl) RV_PFCCTL=$2; shift 2 ;;
    --pfcfabric) FABRIC_BIN=$2; shift 2 ;;
    --config) CFG=$2; shift 2 ;;
    --forwarder) FWD=$2; shift 2 ;;
    *) echo "guest_suite.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

PASSED=0 FAILED=0 SKIPPED=0
check() {  # check DESCRIPTION COMMAND... : one assertion; the command's output is shown
  if "${@:2}"; then PASSED=$((PASSED + 1)); echo "PASS: $1"
  else FAILED=$((FAILED + 1)); echo "FAIL: $1"; return 1; fi
}
skip() { SKIPPED=$((SKIPPED + 1)); echo "SKIP: $*"; }
finish() {
  rv_log "rocev2 suite ($FWD): $PASSED passed, $FAILED failed, $SKIPPED skipped"
  echo "$PASSED passed, $FAILED failed"
  [ $FAILED -eq 0 ] && exit 0 || exit 1
}
counters() { $STATS check "$@"; }

# only_dscp PCAP DSCP : every RoCEv2 packet in PCAP carries DSCP, and there is at least one.
only_dscp() {
  local s; s=$(rv_dscp_summary "$1")
  echo "    $(basename "$1"): ${s:-no RoCEv2 packets} (want only dscp$2)"
  [[ "$s" =~ ^dscp$2:[0-9]+$ ]]
}
only_ttl() {
  local s; s=$(rv_ttl_summary "$1")
  echo "    $(basename "$1"): ${s:-no RoCEv2 packets} (want only ttl$2)"
  [[ "$s" =~ ^ttl$2:[0-9]+$ ]]
}

rv_require ib_write_bw ib_send_bw ib_send_lat ib_read_lat rdma tcpdump ethtool ss bc python3 stdbuf || exit 77
case $FWD in
  pfcswitch) [ -x "${RV_PFCSWITCH:-}" ] || [ "$RV_NET" = vhost ] || { echo "need --pfcswitch BIN"; exit 2; }
    [ -f "$CFG" ] || { echo "need --config YAML"; exit 2; } ;;
  testpmd) rv_require dpdk-testpmd || exit 77 ;;
  *) echo "unknown forwarder $FWD"; exit 2 ;;
esac
T0=$(rv_now)
rv_log "rocev2 suite: forwarder $FWD ($([ "$RV_NET" = vhost ] && echo "native on the host, vhost-user" || echo "in the guest, $RV_PMD")), config ${CFG:-none}, -n $N"
HAVE_CTL=0; [ $FWD = pfcswitch ] && { [ -n "${RV_PFCCTL:-}" ] || [ "$RV_NET" = vhost ]; } && HAVE_CTL=1
rv_net_setup || { echo "FAIL: topology setup"; exit 1; }
check "$FWD starts and forwards" rv_fwd_start $FWD "$CFG" || finish
live() {  # live NAME : counters of the running switch via pfcctl, if we have pfcctl
  [ $FWD = pfcswitch ] && { [ -n "${RV_PFCCTL:-}" ] || [ "$RV_NET" = vhost ]; } && rv_sw_stats_live main "$RV_OUT/live.$1.json"
}

# A dead switch fails everything after it: stop there instead of waiting for perftest timeouts.
alive() { rv_fwd_alive && return 0; FAILED=$((FAILED + 1)); echo "FAIL: $FWD died; stopping here"; finish; }

# ---- 1. every perftest through the switch, in the lossless class ----------------------------
# -u 18: rxe retransmits after 1 s instead of 67 ms, so a switch slowed down by a busy host
# does not receive a second copy of the window while the first is still queued.
TC="--tclass=96 -u 18"
check "ib_write_bw" rv_perf write_bw ib_write_bw -s 65536 -n $N --report_gbits $TC || alive
check "ib_send_bw" rv_perf send_bw ib_send_bw -s 65536 -n $N --report_gbits $TC || alive
check "ib_send_lat" rv_perf send_lat ib_send_lat -s 64 -n $N $TC || alive
check "ib_read_lat" rv_perf read_lat ib_read_lat -s 64 -n $N $TC || alive
if [ $FWD = pfcswitch ]; then
  if [ $HAVE_CTL = 1 ]; then
    check "pfcctl stats reads the running switch" live perf
    check "switch counters after the perftests (pfcctl)" counters "$RV_OUT/live.perf.json" \
      'p0.rx_packets>0' 'p0.tx_packets>0' 'p1.rx_packets>0' 'p1.tx_packets>0' \
      'p0.prio3.rx_packets>0' 'p1.prio4.tx_packets>0' 'p0.prio3.rewrites>0' \
      '*.lossless.drops_total==0'
  else
    skip "pfcctl not given: live counters not checked (final counters are)"
  fi
fi

# ---- 2./3. tags on the far side -------------------------------------------------------------
tag_run() {  # tag_run NAME TCLASS [ITERS] : capture both hosts' ingress while one ib_write_bw runs
  rv_cap_start $1.b0 b0 udp dst port 4791 && rv_cap_start $1.a0 a0 udp dst port 4791 || return 1
  rv_perf $1 ib_write_bw -s 4096 -n ${3:-50} -u 18 --tclass=$2
  local rc=$?
  rv_cap_stop $1.b0; rv_cap_stop $1.a0
  return $rc
}
if [ $FWD = pfcswitch ]; then WANT96B=26 WANT96A=24 WANT184=0 TTL=63; else WANT96B=24 WANT96A=24 WANT184=46 TTL=64; fi
[ $HAVE_CTL = 1 ] && check "pfcctl stats before the tclass 184 run" live before184
check "rxe completes with tclass 96 (DSCP 24)" tag_run tc96 96 || alive
check "tclass 96: data at b0 carries DSCP $WANT96B" only_dscp "$RV_OUT/tc96.b0.pcap" $WANT96B
check "tclass 96: ACKs at a0 carry DSCP $WANT96A" only_dscp "$RV_OUT/tc96.a0.pcap" $WANT96A
check "tclass 96: TTL at b0 is $TTL" only_ttl "$RV_OUT/tc96.b0.pcap" $TTL
check "rxe completes with tclass 184 (DSCP 46)" tag_run tc184 184 || alive
check "tclass 184: data at b0 carries DSCP $WANT184" only_dscp "$RV_OUT/tc184.b0.pcap" $WANT184
check "tclass 184: ACKs at a0 carry DSCP $WANT184" only_dscp "$RV_OUT/tc184.a0.pcap" $WANT184
if [ $HAVE_CTL = 1 ] && check "pfcctl stats after the tclass 184 run" live after184; then
  check "tclass 184 went lossy (counter deltas)" counters "$RV_OUT/live.after184.json" \
    --base "$RV_OUT/live.before184.json" 'p0.prio0.rx_packets>=50' 'p0.prio0.lossy_fallback>=50' 'p0.prio0.to_lossy_tag>=50' \
    'p1.prio0.tx_packets>=50' '*.lossless.drops_total==0'
fi

# ---- 3b. ECN on rxe's own traffic --------------------------------------------------------------
count() {  # count PCAP FILTER : packets of PCAP that tshark's display filter FILTER matches
  tshark -r "$1" -Y "$2" 2>/dev/null | wc -l
}
ecn_phase() {
  rv_require tshark || return 1
  # 200 messages, not 50: a frame is marked only when it finds another
  # queued before it, and in one run of 50 none did (0 CE of 200 frames,
  # a fresh-clone CI at 81b40ac; 38 of 200 on the rerun).
  check "rxe completes with tclass 98 (DSCP 24, ECT(0))" tag_run tc98 98 200 || alive
  local ce ect cnp ce96
  ce=$(count "$RV_OUT/tc98.b0.pcap" 'infiniband && ip.dsfield.ecn == 3')
  ect=$(count "$RV_OUT/tc98.b0.pcap" 'infiniband && ip.dsfield.ecn == 2')
  cnp=$(count "$RV_OUT/tc98.a0.pcap" 'infiniband.bth.opcode == 129')
  ce96=$(count "$RV_OUT/tc96.b0.pcap" 'ip.dsfield.ecn != 0')
  echo "    tclass 98 at b0: $ce CE, $ect ECT(0); CNPs at a0: $cnp; tclass 96 at b0 with ECN bits: $ce96"
  check "ECN: the switch marks rxe's ECT(0) data CE on its way to b0" test "$ce" -gt 0
  RV_ECN_CE=$ce  # the exit counters must count as many
  check "ECN: tclass 96 (Not-ECT) is never marked" test "$ce96" -eq 0
  check "ECN: rxe sends no CNP for the CE marks it receives" test "$cnp" -eq 0
}
[ $FWD = pfcswitch ] && ecn_phase

# ---- 5. clean stop and the exit counters ----------------------------------------------------
check "$FWD stops cleanly on SIGINT" rv_fwd_stop
if [ $FWD = pfcswitch ]; then
  F=${RV_SW_STATS[main]}
  check "exit counters: the exit line sums the --stats-json file's (rx, tx, drops)" \
    python3 -c 'import json,re,sys; a=json.load(open(sys.argv[1])); l=[x for x in open(sys.argv[2]) if x.startswith("pfcswitch: exit: ")]; m=l and re.match(r"pfcswitch: exit: rx (\d+) tx (\d+) packets, dropped (\d+) ", l[-1]); s=lambda k: sum(p[k] for p in a["ports"]); sys.exit(0 if m and [int(x) for x in m.groups()]==[s("rx_packets"), s("tx_packets"), a["drops_total"]] else 1)' \
    "$F" "${RV_SW_LOG[main]}"
  check "exit counters: traffic on both ports, rewrites, lossy fallback, no lossless drop" counters "$F" \
    'p0.rx_packets>0' 'p0.tx_packets>0' 'p1.rx_packets>0' 'p1.tx_packets>0' \
    'p0.arp_reply_tx>0' 'p1.arp_request_tx>0' \
    'p0.prio3.rx_packets>0' 'p1.prio4.tx_packets>0' 'p0.prio3.rewrites>0' 'p0.prio0.to_lossy_tag>0' \
    '*.lossless.drops_total==0'
  check "exit counters: ECN marks counted where they were made (p1, priority 4), nowhere else" \
    counters "$F" "p1.prio4.ecn_marked>=${RV_ECN_CE:-0}" "p1.prio4.ecn_marked>0" 'p0.prio3.ecn_marked==0' 'p0.prio4.ecn_marked==0'
  echo "  final counters (nonzero):"; $STATS show "$F"
fi

# ---- 4. PFC between two switch instances ----------------------------------------------------
# The PFC part of issue 4. On by default; ROCEV2_PFC=0 (in the environment of meson test or
# rocev2_test.sh) skips it, e.g. to bisect a failure in the single-switch part.
xoff_prio3() {  # DECODED : rv_pfc_decode lines (src enbv c0..c7); any with bit 3 and c3 > 0?
  local src enbv c0 c1 c2 c3 rest
  while read -r src enbv c0 c1 c2 c3 rest; do
    (( (enbv & 8) && c3 > 0 )) && return 0
  done < "$1"
  return 1
}
pfc_phase() {
  rv_require tshark || return 1
  local ok=0
  rv_chain_setup || return 1
  rv_sw_launch sw1 sw swA x1 "$HERE/pfc-sw1.yaml" && rv_sw_launch sw2 sw2 x2 swB "$HERE/pfc-sw2.yaml"
  if rv_sw_wait sw1 && rv_sw_wait sw2; then
    rv_use_plan l3; check "PFC: ping a0 -> b0 through both switches" rv_warm_l3
    rv_cap_start pfc.a0 a0 ether proto 0x8808
    # For a failure's post-mortem: drops in the guest's own receive path (backlog, NIC).
    { cat /proc/net/softnet_stat; ip -s link show a0; ip -s link show b0; } > "$RV_OUT/pfc.guest-net.before.txt" 2>&1
    check "PFC: ib_write_bw (8 QPs) completes through two switches, the second shaped to 20M" \
      rv_perf pfc.write_bw ib_write_bw -s 65536 -n 12 -q 8 -u 18 --report_gbits --tclass=96
    { cat /proc/net/softnet_stat; ip -s link show a0; ip -s link show b0; } > "$RV_OUT/pfc.guest-net.after.txt" 2>&1
    rv_cap_stop pfc.a0
    check "PFC: sw1 stops cleanly" rv_sw_stop sw1
    check "PFC: sw2 stops cleanly" rv_sw_stop sw2
    rv_pfc_decode "$RV_OUT/pfc.a0.pcap" > "$RV_OUT/pfc.a0.decoded.txt"
    echo "  PFC frames received by a0 (count, src, class-enable vector, pause quanta c0..c7):"
    sort "$RV_OUT/pfc.a0.decoded.txt" | uniq -c | head -n 10 | sed 's/^/    /'
    # fields: src enbv c0 .. c7 -> an XOFF for priority 3 has bit 3 set and a nonzero c3.
    check "PFC: tshark decodes XOFF frames for priority 3 from sw1 at a0" xoff_prio3 "$RV_OUT/pfc.a0.decoded.txt"
    check "PFC: sw2 sent XOFF for priority 4 towards sw1 and held it paused" counters "${RV_SW_STATS[sw2]}" \
      'p0.pfc_frames_tx>0' 'p0.prio4.pfc_xoff_tx>0' 'p0.prio4.pausing_ns>0'
    check "PFC: sw1 received XOFF for priority 4, was paused, and paused a0 in turn" counters "${RV_SW_STATS[sw1]}" \
      'p1.pfc_frames_rx>0' 'p1.prio4.pfc_xoff_rx>0' 'p1.prio4.paused_ns>0' 'p0.pfc_frames_tx>0' 'p0.prio3.pfc_xoff_tx>0'
    check "PFC: zero lossless drops on sw2 (the link between the switches is lossless)" counters \
      "${RV_SW_STATS[sw2]}" '*.lossless.drops_total==0' 'p1.prio4.tx_packets>0'
    echo "  sw1 counters:"; $STATS show "${RV_SW_STATS[sw1]}"
    echo "  sw2 counters:"; $STATS show "${RV_SW_STATS[sw2]}"
    ok=1
  fi
  [ -n "${RV_SW_PID[sw1]:-}" ] && rv_sw_stop sw1
  [ -n "${RV_SW_PID[sw2]:-}" ] && rv_sw_stop sw2
  rv_chain_teardown
  [ $ok = 1 ]
}
if [ $FWD = pfcswitch ] && [ "${ROCEV2_PFC:-1}" = 1 ]; then
  pfc_phase || { FAILED=$((FAILED + 1)); echo "FAIL: PFC phase could not be set up (see the messages above)"; }
else
  skip "PFC phase ($([ $FWD = pfcswitch ] && echo "ROCEV2_PFC=0" || echo "needs pfcswitch"))"
fi

# ---- 6. across an emulated 3-switch fabric -------------------------------------------------
FAB_OUT=$RV_OUT/fabric
fabric_ctl() {  # fabric_ctl SWITCH FILE : that switch's live counters
  ip netns exec sw "$RV_PFCCTL" --file-prefix "rvfab$$" --switch "$1" stats > "$2"
}
fabric_phase() {
  local pid log=$RV_OUT/pfcfabric.log ok=0 s
  rm -rf "$FAB_OUT"
  ip netns exec sw nice -n "$RV_FWD_NICE" "$FABRIC_BIN" -l 0,1 --no-huge --no-pci --no-shconf -m 512 \
    --log-level=lib.eal:error --file-prefix "rvfab$$" $(_rv_vdevs swA swB) -- \
    --fabric "$HERE/fabric3.yaml" --out "$FAB_OUT" > "$log" 2>&1 &
  pid=$!
  _rv_wait_ready pfcfabric $pid "$log" '^pfcfabric: running' || return 1
  rv_use_plan l3 && check "fabric: ping a0 -> b0 across S1, S2, S3" rv_warm_l3 &&
  rv_cap_start fab.b0 b0 udp dst port 4791 &&
  check "fabric: ib_write_bw completes across three emulated switches (tclass 96, lossless)" \
    rv_perf fabric.write_bw ib_write_bw -s 65536 -n 50 -u 18 --report_gbits --tclass=96 && ok=1
  rv_cap_stop fab.b0
  if [ -n "${RV_PFCCTL:-}" ]; then
    for s in S1 S2 S3; do
      check "fabric: pfcctl --switch $s reads the running fabric" fabric_ctl $s "$RV_OUT/fabric.$s.json" &&
      check "fabric: $s forwarded RoCEv2 in priority 3 with no lossless drop" counters "$RV_OUT/fabric.$s.json" \
        '*.prio3.tx_packets>0' '*.lossless.drops_total==0'
    done
  fi
  check "fabric: TTL at b0 is 61 (three routed hops)" only_ttl "$RV_OUT/fab.b0.pcap" 61
  check "fabric: pfcfabric stops cleanly on SIGINT" _rv_stop_pid pfcfabric $pid "$log"
  check "fabric: results.json counts no lossless drop" python3 -c \
    'import json,sys; sys.exit(json.load(open(sys.argv[1]))["lossless_drops"] != 0)' "$FAB_OUT/results.json"
  [ $ok = 1 ]
}
if [ $FWD = pfcswitch ] && [ -x "$FABRIC_BIN" ] && [ "${ROCEV2_FABRIC:-1}" = 1 ]; then
  # pfcfabric has no host-side runner yet: its hosts are af_packet ports on the guest's veths.
  if [ "$RV_NET" = vhost ]; then
    rv_net_teardown > "$RV_OUT/net-teardown.txt" 2>&1
    RV_NET=veth
    check "fabric: the hosts move to veths (rxe on new links)" rv_net_setup
  fi
  fabric_phase || { FAILED=$((FAILED + 1)); echo "FAIL: fabric phase (see the messages above)"; }
else
  skip "fabric phase (needs --pfcfabric and ROCEV2_FABRIC=1)"
fi

rv_log "suite wall time $(rv_since $T0)s"
finish
