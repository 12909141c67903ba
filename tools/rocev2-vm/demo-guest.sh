#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# demo-guest.sh PFCSWITCH CONFIG [--pfc] : the guest half of tools/rocev2-demo.sh. Runs the four
# perftests (RDMA write/send bandwidth, send/read latency) between two soft-RoCE hosts through
# pfcswitch with CONFIG, a tagged run with tclass 96 (DSCP 24) and one with tclass 184 (DSCP 46)
# while capturing what reaches each host, and writes a short report to $ROCEV2_OUT/report.txt:
# perftest results, the DSCP tags seen on the far side, PFC pause frames seen by the hosts
# (decoded by tshark) and the switch's counters. With --pfc it also runs two switches in a row
# with the second one's egress shaped below the offered load (tests/rocev2/pfc-sw*.yaml), so
# that pause frames actually flow. Progress goes to stdout.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RV_PFCSWITCH=$1 CFG=$2 PFC=${3:-}
RV_PFCCTL=${RV_PFCCTL:-$(dirname "$RV_PFCSWITCH")/../ctl/pfcctl}   # samples for the plot
RV_FWD_NICE=${RV_FWD_NICE:--10}   # the switch preempts busy-polling perftest (see guest-lib.sh)
. "$ROOT/tools/rocev2-vm/guest-lib.sh"
STATS="python3 $ROOT/tools/rocev2-vm/switch_stats.py"
R=$RV_OUT/report.txt N=${DEMO_ITERS:-200}
: > "$R"
rep() { echo "$*" >> "$R"; }
FAILS=0
rv_require ib_write_bw ib_send_bw ib_send_lat ib_read_lat tcpdump tshark ethtool ss bc python3 || exit 77

rv_log "demo: setting up two soft-RoCE hosts (rxeA on a0, rxeB on b0) and pfcswitch between them"
rv_net_setup || exit 1
rv_fwd_start pfcswitch "$CFG" || { echo "pfcswitch did not start"; exit 1; }
rv_sw_sample_start main || rv_log "demo: no counter samples, so no plot"
rv_cap_start pause.a0 a0 ether proto 0x8808
rv_cap_start pause.b0 b0 ether proto 0x8808

if [ "$RV_NET" = vhost ]; then
  rep "perftest through pfcswitch running natively on the host, the guest's virtio-net NICs on its vhost-user ports"
else
  rep "perftest through pfcswitch running inside the guest on af_packet ports"
fi
rep "(soft-RoCE in a qemu/TCG guest: absolute numbers are far below real NICs)"
perf() {  # perf LABEL KIND NAME BIN ARGS...
  local label=$1 kind=$2 name=$3
  shift 3
  if rv_perf "$name" "$@"; then
    case $kind in
      # The unit is the one perftest printed: Gb/sec with --report_gbits, MB/sec without.
      bw) rep "$(printf '  %-34s OK   %s %s average' "$label" "$(rv_perf_metric bw)" "$(rv_perf_unit bw)")" ;;
      lat) rep "$(printf '  %-34s OK   %s %s typical' "$label" "$(rv_perf_metric lat)" "$(rv_perf_unit lat)")" ;;
    esac
  else
    FAILS=$((FAILS + 1)); rep "$(printf '  %-34s FAILED (see %s.cli.txt)' "$label" "$name")"
  fi
}
# -u 18: a 1 s retransmission timeout instead of 67 ms. When the config shapes an egress, rxe
# (which ignores pause) would otherwise resend its whole window while the first copies still
# sit in the switch's queue, and the copies pile up until the lossless headroom overflows.
U="-u 18"
perf "ib_write_bw 64 KiB x $N" bw write_bw ib_write_bw -s 65536 -n $N $U --report_gbits --tclass=96
perf "ib_send_bw  64 KiB x $N" bw send_bw ib_send_bw -s 65536 -n $N $U --report_gbits --tclass=96
perf "ib_send_lat 64 B x $N (events)" lat send_lat ib_send_lat -s 64 -n $N $U -e --tclass=96
perf "ib_read_lat 64 B x $N" lat read_lat ib_read_lat -s 64 -n $N $U --tclass=96

rep ""
rep "DSCP tags (RoCEv2 packets as they arrive at each host; tag = DSCP = tclass / 4)"
for tc in 96 184; do
  rv_cap_start tag$tc.b0 b0 udp dst port 4791 && rv_cap_start tag$tc.a0 a0 udp dst port 4791
  perf "ib_write_bw --tclass=$tc" bw tag$tc ib_write_bw -s 4096 -n 50 $U --tclass=$tc
  rv_cap_stop tag$tc.b0; rv_cap_stop tag$tc.a0
  rep "  sent DSCP $((tc / 4)):  data at b0: $(rv_dscp_summary "$RV_OUT/tag$tc.b0.pcap")  ($(rv_ttl_summary "$RV_OUT/tag$tc.b0.pcap"))   ACKs at a0: $(rv_dscp_summary "$RV_OUT/tag$tc.a0.pcap")"
done
rv_cap_stop pause.a0; rv_cap_stop pause.b0
rv_sw_sample_stop main
rv_fwd_stop || FAILS=$((FAILS + 1))

rep ""
rv_pfc_decode "$RV_OUT/pause.a0.pcap" > "$RV_OUT/pause.a0.decoded.txt"
rv_pfc_decode "$RV_OUT/pause.b0.pcap" > "$RV_OUT/pause.b0.decoded.txt"
rep "PFC pause frames seen by the hosts (decoded by tshark): a0 $(wc -l < "$RV_OUT/pause.a0.decoded.txt"), b0 $(wc -l < "$RV_OUT/pause.b0.decoded.txt")"
sort "$RV_OUT/pause.a0.decoded.txt" | uniq -c | sort -rn | head -n 3 | sed 's/^/    a0: /' >> "$R"
rep "  (few or none when nothing is congested; --pfc adds a run with a shaped bottleneck)"
rep ""
rep "switch counters at exit (nonzero only; rx/drops by ingress priority, tx by egress priority)"
$STATS show "${RV_SW_STATS[main]}" >> "$R" 2>&1

if [ "$PFC" = --pfc ]; then
  rv_log "demo: two switches in a row, the second shaped to 20 Mbit/s towards b0"
  rep ""
  rep "PFC: a0 = [sw1] ==== [sw2, egress shaped to 20M] = b0, ib_write_bw --tclass=96"
  rv_chain_setup
  rv_sw_launch sw1 sw swA x1 "$ROOT/tests/rocev2/pfc-sw1.yaml"
  rv_sw_launch sw2 sw2 x2 swB "$ROOT/tests/rocev2/pfc-sw2.yaml"
  if rv_sw_wait sw1 && rv_sw_wait sw2 && rv_use_plan l3 && rv_warm_l3; then
    rv_sw_sample_start sw1; rv_sw_sample_start sw2
    rv_cap_start pfc.a0 a0 ether proto 0x8808
    perf "ib_write_bw 64 KiB x 12 x 8 QPs (shaped)" bw pfc ib_write_bw -s 65536 -n 12 -q 8 -u 18 --report_gbits --tclass=96
    rv_cap_stop pfc.a0
    rv_sw_sample_stop sw1; rv_sw_sample_stop sw2
    rv_sw_stop sw1; rv_sw_stop sw2
    rv_pfc_decode "$RV_OUT/pfc.a0.pcap" > "$RV_OUT/pfc.a0.decoded.txt"
    rep "  PFC frames from sw1 at a0, decoded by tshark: $(wc -l < "$RV_OUT/pfc.a0.decoded.txt") (count, src, class-enable vector, quanta c0..c7):"
    sort "$RV_OUT/pfc.a0.decoded.txt" | uniq -c | sort -rn | head -n 4 | sed 's/^/    /' >> "$R"
    rep "  sw1:"; $STATS show "${RV_SW_STATS[sw1]}" >> "$R" 2>&1
    rep "  sw2:"; $STATS show "${RV_SW_STATS[sw2]}" >> "$R" 2>&1
  else
    FAILS=$((FAILS + 1)); rep "  the two switches did not start (see pfcswitch.sw*.log)"
  fi
  rv_chain_teardown
fi
rv_log "demo: done ($FAILS failures)"
[ $FAILS -eq 0 ]
