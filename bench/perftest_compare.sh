#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# perftest_compare.sh [BUILDDIR] : RoCEv2 perftest through pfcswitch, through dpdk-testpmd (io
# forwarding on the same two net_af_packet ports) and through a Linux bridge, all in ONE boot of
# the rocev2-vm guest (tools/rocev2-vm). The forwarders take turns for ROUNDS rounds so that
# drifting load on the host hits them alike; each metric is the median over the rounds.
#   write_bw  ib_write_bw -s 65536 -n ITERS, BW average (Gb/s): higher is better
#   send_lat  ib_send_lat -s 64 -n ITERS (busy-polling), t_typical (usec): lower is better
#   send_lat_e  the same with -e (sleep on completion events), for reference
# pfcswitch runs tests/rocev2/rocev2.yaml and all traffic uses tclass 96, so the switch does its
# full work (routing, lossless class, DSCP rewrite). Ratios are pfcswitch / other: under TCG the
# absolute numbers mean little, the ratios show what the switch costs. The last line is
#   RESULT write_bw_vs_bridge=<x> write_bw_vs_testpmd=<y> send_lat_vs_bridge=<z>
# (send_lat_vs_bridge > 1 means pfcswitch adds latency). Exit 0 iff every run succeeded.
# Environment: ROUNDS (3), ITERS (300), RV_FWD_NICE (-10: see tools/rocev2-vm/guest-lib.sh;
# applied to pfcswitch and testpmd alike), RV_PMD (af_packet, or af_xdp for both DPDK
# forwarders), ROCEV2_VM_CACHE, ROCEV2_OUT_DIR (artifacts).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
FWDS="bridge testpmd pfcswitch"
CFG=$ROOT/tests/rocev2/rocev2.yaml

if [ "${1:-}" != "--in-guest" ]; then
  BUILD=$(cd "${1:-$ROOT/build}" && pwd) || exit 2
  [ -x "$BUILD/dataplane/app/pfcswitch" ] || { echo "no pfcswitch in $BUILD (ninja -C $BUILD)"; exit 2; }
  # The guest (qemu TCG) gets a build it can run (-Dcpu=baseline, see guest-build.sh).
  GBUILD=$("$ROOT/tools/rocev2-vm/guest-build.sh" "$BUILD") ||
    { echo "RESULT write_bw_vs_bridge=nan write_bw_vs_testpmd=nan send_lat_vs_bridge=nan"; exit 1; }
  OUT=${ROCEV2_OUT_DIR:-$BUILD/meson-logs/perftest_compare}
  rm -rf "$OUT"; mkdir -p "$OUT"
  T0=$(date +%s)
  "$ROOT/tools/rocev2-vm/rocev2-vm.sh" -q -t 900 -o "$OUT" -- env ROUNDS="${ROUNDS:-3}" \
    ITERS="${ITERS:-300}" RV_FWD_NICE="${RV_FWD_NICE:--10}" RV_PMD="${RV_PMD:-af_packet}" \
    "$HERE/perftest_compare.sh" --in-guest "$GBUILD/dataplane/app/pfcswitch"
  rc=$?
  [ -f "$OUT/compare.log" ] && cat "$OUT/compare.log"
  echo "perftest_compare: guest exit $rc after $(( $(date +%s) - T0 )) s; artifacts in $OUT"
  [ $rc -eq 0 ] || {
    [ $rc -ne 77 ] && tail -n 25 "$OUT/console.log"
    echo "RESULT write_bw_vs_bridge=nan write_bw_vs_testpmd=nan send_lat_vs_bridge=nan"; exit $rc; }
  tail -n 1 "$OUT/compare.log" | grep '^RESULT ' || { echo "RESULT write_bw_vs_bridge=nan write_bw_vs_testpmd=nan send_lat_vs_bridge=nan"; exit 1; }
  exit 0
fi

# ---- inside the guest -----------------------------------------------------------------------
RV_PFCSWITCH=$2
. "$ROOT/tools/rocev2-vm/guest-lib.sh"
LOG=$RV_OUT/compare.log
ROUNDS=${ROUNDS:-3} ITERS=${ITERS:-300}
say() { echo "$*" | tee -a "$LOG"; }
rv_require ib_write_bw ib_send_lat dpdk-testpmd tcpdump ethtool ss bc python3 || exit 77
rv_net_setup > "$RV_OUT/setup.txt" 2>&1 || { cat "$RV_OUT/setup.txt"; exit 1; }
FAILS=0
record() {  # record FWD METRIC VALUE
  echo "$1 $2 $3" >> "$RV_OUT/samples.txt"
}
for r in $(seq "$ROUNDS"); do
  for f in $FWDS; do
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
  done
done

python3 - "$RV_OUT/samples.txt" "$ROUNDS" "$ITERS" "$FAILS" >> "$LOG" <<'EOF'
import os, statistics, sys
samples, rounds, iters, fails = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
vals = {}
try:
    for line in open(samples):
        f, m, v = line.split()
        vals.setdefault((f, m), []).append(float(v))
except FileNotFoundError:
    pass
med = {k: statistics.median(v) for k, v in vals.items()}
print(f"perftest through three forwarders, median of {rounds} rounds, -n {iters}, tclass 96,"
      f" DPDK ports on {os.environ.get('RV_PMD', 'af_packet')}"
      f" ({fails} failed runs)")
print(f"{'forwarder':<10} {'write_bw Gb/s':>14} {'send_lat us':>12} {'send_lat -e us':>15}   all samples")
for f in ("bridge", "testpmd", "pfcswitch"):
    cells = [med.get((f, m)) for m in ("write_bw", "send_lat", "send_lat_e")]
    txt = [f"{c:.4g}" if c is not None else "n/a" for c in cells]
    raw = "; ".join(f"{m}=" + ",".join(f"{x:g}" for x in vals.get((f, m), []))
                    for m in ("write_bw", "send_lat", "send_lat_e"))
    print(f"{f:<10} {txt[0]:>14} {txt[1]:>12} {txt[2]:>15}   {raw}")
def ratio(a, b):
    if a is None or b is None or b == 0:
        return "nan"
    return f"{a / b:.3f}"
g = lambda f, m: med.get((f, m))
print(f"send_lat_e_vs_bridge={ratio(g('pfcswitch', 'send_lat_e'), g('bridge', 'send_lat_e'))}"
      f" send_lat_testpmd_vs_bridge={ratio(g('testpmd', 'send_lat'), g('bridge', 'send_lat'))}")
print(f"RESULT write_bw_vs_bridge={ratio(g('pfcswitch', 'write_bw'), g('bridge', 'write_bw'))}"
      f" write_bw_vs_testpmd={ratio(g('pfcswitch', 'write_bw'), g('testpmd', 'write_bw'))}"
      f" send_lat_vs_bridge={ratio(g('pfcswitch', 'send_lat'), g('bridge', 'send_lat'))}")
EOF
[ $FAILS -eq 0 ]
