#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rocev2-demo.sh [--config FILE] [--pfc] [--skip-deps] [--builddir DIR] [--meson-args "ARGS"]
# One command from a fresh Debian 12 machine to real RDMA traffic through pfcswitch:
#   1. installs the Debian packages it needs (tools/install-deps.sh; a quick check when they are
#      all there; --skip-deps skips it). Run as root;
#   2. builds the switch with meson into build/ (or --builddir);
#   3. starts pfcswitch natively on this host with two vhost-user ports and boots a throw-away
#      qemu guest with soft-RoCE (tools/rocev2-vm: the host kernel needs no RDMA support; the
#      guest kernel is downloaded once and cached) whose two virtio-net NICs are attached to
#      them, as testbeds attach VMs to a DPDK switch (DEMO_NET=veth: the switch runs inside
#      the guest on af_packet ports instead, the old way);
#   4. runs rdma-core's perftest between the two soft-RoCE hosts through pfcswitch with
#      configs/demo.yaml (or --config) and prints a report: perftest results, the DSCP tags seen
#      on the far side, PFC pause frames and the switch's counters, ending with a table and a
#      plot (PNG) of per-priority throughput and PFC frames over the run. --pfc adds a congested run
#      (two switches, the second shaped below the offered load) so that pause frames flow.
# Takes a few minutes the first time (packages, build), about two minutes afterwards.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CFG=$ROOT/configs/demo.yaml BUILD=$ROOT/build DEPS=yes PFC="" MESON_ARGS=""
while [ $# -gt 0 ]; do
  case $1 in
    --config) CFG=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --builddir) BUILD=$2; shift 2 ;;
    --pfc) PFC=--pfc; shift ;;
    --skip-deps) DEPS=no; shift ;;
    --meson-args) MESON_ARGS=$2; shift 2 ;;
    -h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "rocev2-demo: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
step() { echo; echo "==> $*"; }
T0=$(date +%s)

# 1. packages (install-deps.sh only checks when everything is already installed)
[ "$(id -u)" = 0 ] || { echo "rocev2-demo: run as root (package installs, network namespaces, qemu)" >&2; exit 1; }
if [ "$DEPS" = yes ]; then
  step "checking/installing Debian packages (tools/install-deps.sh)"
  "$ROOT/tools/install-deps.sh"
fi

# 2. build
NET=${DEMO_NET:-vhost}
step "building pfcswitch in $BUILD"
if [ ! -f "$BUILD/build.ninja" ]; then
  # eval: --meson-args is shell words, e.g. "-Dcpu=baseline"
  eval "meson setup \"\$BUILD\" \"\$ROOT\" --buildtype=release $MESON_ARGS"
fi
if [ "$NET" = vhost ]; then
  ninja -C "$BUILD" dataplane/pfcswitch/pfcswitch dataplane/pfcctl/pfcctl
  SW=$BUILD/dataplane/pfcswitch/pfcswitch
  VM=("$ROOT/tools/rocev2-vm/rocev2-vhost.sh" --pfcswitch "$SW" --pfcctl "$BUILD/dataplane/pfcctl/pfcctl" --config "$CFG")
  WHERE="natively on this host, vhost-user ports"
else
  # The switch runs in the guest (qemu TCG), which cannot run a build for this machine's
  # AVX2/AVX-512: it gets a build of its own (BUILD itself when it is a baseline build, else
  # BUILD-guest; see tools/rocev2-vm/guest-build.sh).
  GBUILD=$("$ROOT/tools/rocev2-vm/guest-build.sh" "$BUILD") || exit 1
  SW=$GBUILD/dataplane/pfcswitch/pfcswitch VM=("$ROOT/tools/rocev2-vm/rocev2-vm.sh")
  WHERE="inside the guest, af_packet ports"
fi

# 3. + 4. guest
OUT=$BUILD/rocev2-demo
step "booting the soft-RoCE guest and running perftest through pfcswitch ($WHERE, $(basename "$CFG")); output in $OUT"
set +e
# -b: a guest booting under TCG on a machine busy with other work takes past rocev2-vm's 120 s.
"${VM[@]}" -t 900 -b "${ROCEV2_VM_BOOT_TIMEOUT:-300}" -o "$OUT" -- \
  env RV_NET="$NET" "$ROOT/tools/rocev2-vm/demo-guest.sh" "$SW" "$CFG" $PFC
rc=$?
set -e
echo
echo "==================== pfcswitch RoCEv2 demo report ===================="
if [ -s "$OUT/report.txt" ]; then cat "$OUT/report.txt"; else echo "(no report: see $OUT/console.log)"; fi
echo
# The table and the plot are drawn here, on the host, from the counters the guest sampled.
/usr/bin/python3 "$ROOT/tools/rocev2-vm/demo_plot.py" "$OUT" || true
echo "======================================================================"
echo "files (in $OUT):"
echo "  report.txt        this report          demo-plot.png    the plot (per-priority throughput, PFC frames)"
echo "  *.cli.txt *.srv.txt  perftest output   *.pcap           captures at the hosts (tshark -r)"
echo "  pfcswitch.*.log, pfcswitch.*.stats.json  the switches' logs and exit counters"
echo "  samples/          counters once a second  console.log   the guest's console"
echo "config: $CFG"
echo "rocev2-demo: finished in $(( $(date +%s) - T0 )) s with status $rc"
exit $rc
