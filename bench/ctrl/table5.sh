#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Reproduces Tagger Table V (Jellyfish, destination-rooted shortest-path
# trees; half the ports to hosts) and the §VIII-C BCube and F10 results,
# printing our numbers beside the paper's. Usage:
#   bench/ctrl/table5.sh [BUILD_DIR]        (default: build/ in the repo)
# Rules per switch are the compressed rules file entries: "exact" keeps
# hairpins (in == out) lossy; "hp" is with --hairpin-drop (the switch drops
# hairpinned packets, so in == out is don't-care). Greedy runs use
# TAGGER_BUDGET (default 256 edges per cycle search) for >= 1000 switches, exact Algorithm 2 below.
# Takes a few minutes on 2 cores (the 2000-switch cases dominate).
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="${1:-$REPO/build}"
BUDGET="${TAGGER_BUDGET:-256}"
source "$REPO/bench/lib.sh"
pfc_build_target "$BUILD" ctrl/tagger/pfc-tagger
T="$BUILD/ctrl/tagger/pfc-tagger"

printf '%-34s | %-10s | %-10s | %-13s | %-18s | %s\n' case "longest" "priorities" "max rules" "ours exact / hp" "s"
printf '%-34s | %-10s | %-10s | %-13s | %-18s | %s\n' "" "paper/ours" "paper/ours" "paper" "" ""
row() {  # name paper_longest paper_prio paper_rules -- pfc-tagger tag args
  name=$1 pl=$2 pp=$3 pr=$4
  shift 4
  start=$(date +%s.%N)
  out=$("$T" tag "$@" 2>&1) || { echo "$name: FAILED"; echo "$out" | tail -5; return; }
  end=$(date +%s.%N)
  s=$(echo "$out" | grep '^summary:')
  p=$(echo "$s" | sed 's/.*priorities=\([0-9]*\).*/\1/')
  r=$(echo "$s" | sed 's/.* max_rules=\([0-9]*\).*/\1/')
  o=$(echo "$s" | sed 's/.*other_max_rules=\([0-9]*\).*/\1/')
  l=$(echo "$s" | sed 's/.*longest=\([0-9]*\).*/\1/')
  v=$(echo "$s" | sed 's/.*verified=\([a-zA-Z]*\).*/\1/')
  printf '%-34s | %4s / %-3s | %4s / %-3s | %-13s | %5s / %-5s %-6s | %.1f\n' "$name" "$pl" "$l" "$pp" "$p" \
    "$pr" "$r" "$o" "($v)" "$(awk "BEGIN { print $end - $start }")"
}
row "Jellyfish 100/32 trees" 5 2 40 --topo-gen jellyfish:100:32:16:1 --elp-gen trees
row "Jellyfish 500/64 trees" 6 3 76 --topo-gen jellyfish:500:64:32:1 --elp-gen trees
row "Jellyfish 1000/64 trees" 6 3 88 --topo-gen jellyfish:1000:64:32:1 --elp-gen trees --search-budget "$BUDGET"
row "Jellyfish 2000/64 trees" 7 3 98 --topo-gen jellyfish:2000:64:32:1 --elp-gen trees --search-budget "$BUDGET"
row "Jellyfish 2000/64 trees+20000 rnd" 7 4 135 --topo-gen jellyfish:2000:64:32:1 --elp-gen trees --extra 20000 --search-budget "$BUDGET"
row "Jellyfish 100/32 16 shortest/pair" - 2 47 --topo-gen jellyfish:100:32:16:1 --elp-gen shortest --per-pair 16
row "BCube(8,3) paper / ours BCube(4,3)" - 4 41 --topo-gen bcube:4:3 --elp-gen shortest --per-pair 4
row "  ours: BCube(8,2) 4 shortest" - - - --topo-gen bcube:8:2 --elp-gen shortest --per-pair 4
row "F10 64-port clos scheme, 1 bounce" - 2 164 --topo-gen f10:64 --algo clos --clos-bounces 1
row "  F10 k=8 clos scheme, verified" - 2 - --topo-gen f10:8 --algo clos --clos-bounces 1 --elp-gen clos --bounces 1
row "  F10 k=8 greedy (alg. 2)" - - - --topo-gen f10:8 --elp-gen clos --bounces 1
echo "(BCube(8,3) row runs BCube(4,3): 67M explicit paths of BCube(8,3) do not fit; a k-level BCube needs k tags either way.)"
