# SPDX-License-Identifier: BSD-3-Clause
# Shared by the fabric experiment scripts (bench/tagger/fig11.sh, fig11_rc.sh,
# fig12.sh, bench/hotnets/deadlocks.sh, bench/fabric/mixed.sh), sourced as
# `source bench/fabric/common.sh BUILD_DIR OUT_DIR` from the source root:
# running pfcfabric quietly, and the without/with Tagger pair of runs with
# the rules pfc-tagger computes for ELP = shortest up-down + 1-bounce paths.

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
B=$1
OUT=$(realpath -m "$2")
FAB=configs/fabric
FABRIC=$(pfc_bin "$B" pfcfabric)
TAGGER=$(pfc_bin "$B" pfc-tagger)
[[ -x $FABRIC && -x $TAGGER ]] || { echo "build first: ninja -C $B" >&2; exit 1; }
mkdir -p "$OUT"

# pfcfabric FABRIC_FILE OUT_SUBDIR [ARGS...]: one run, without the event log.
fabric_run() {
  local file=$1 dir=$2
  shift 2
  "$FABRIC" --fabric "$file" --out "$OUT/$dir" "$@" | { grep -v '^pfcfabric: [0-9.]* ms:' || true; }
}

# tagger_pair WITHOUT_FILE WITH_FILE: runs OUT/without, makes OUT/rules with
# pfc-tagger from the topology the first run wrote, and runs OUT/with.
tagger_pair() {
  fabric_run "$1" without
  "$TAGGER" tag --topo "$OUT/without/topology.json" --elp-gen clos --bounces 1 --algo clos \
    -o "$OUT/rules" | tail -1
  fabric_run "$2" with --rules "$OUT/rules"
}

# tagger_figure WITHOUT_FILE WITH_FILE PNG LABELS TITLE: tagger_pair, then
# OUT/PNG with the two runs side by side (tools/fabric_plot.py).
tagger_figure() {
  tagger_pair "$1" "$2"
  /usr/bin/python3 tools/fabric_plot.py "$OUT/without" "$OUT/with" -o "$OUT/$3" --labels "$4" --title "$5"
}
