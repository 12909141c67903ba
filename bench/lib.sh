# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the bench scripts of every family folder (`source bench/lib.sh`
# from the source root, or `source "$(dirname "$0")/../lib.sh"`): the source
# root, the one default build directory (PFC_BUILD_DIR, else build/, as
# tools/test.sh), the programs in it, and PYTHONPATH for the project's Python
# package (tools/pfclib) and for bench/ itself: each family folder is a
# package (`python3 -m fabric.identical`, `from dcfit import detect`,
# `from switch import soak`), so the experiments other scripts and tests
# rerun import without touching sys.path.
PFC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PFC_BUILD_DEFAULT=${PFC_BUILD_DIR:-build}
export PYTHONPATH="$PFC_ROOT/tools:$PFC_ROOT/bench${PYTHONPATH:+:$PYTHONPATH}"

# pfc_build_target BUILD_DIR TARGET: configures BUILD_DIR if it is not yet
# (release, this source tree) and builds just TARGET (a ninja target such as
# ctrl/tagger/pfc-tagger), quietly.
pfc_build_target() {
  [ -f "$1/build.ninja" ] || meson setup "$1" "$PFC_ROOT" --buildtype=release > /dev/null
  ninja -C "$1" -j2 "$2" > /dev/null
}

# pfc_bin BUILD_DIR NAME: the path of program NAME (pfcswitch, pfcctl,
# pfc-tagger, pfcfabric) in BUILD_DIR.
pfc_bin() {
  case $2 in
    pfcswitch) echo "$1/dataplane/pfcswitch/pfcswitch" ;;
    pfcctl) echo "$1/dataplane/pfcctl/pfcctl" ;;
    pfc-tagger) echo "$1/ctrl/tagger/pfc-tagger" ;;
    pfcfabric) echo "$1/dataplane/emulator/pfcfabric" ;;
    *) echo "pfc_bin: unknown program $2" >&2; return 1 ;;
  esac
}
